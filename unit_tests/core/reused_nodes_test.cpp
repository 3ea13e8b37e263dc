// Reused map nodes: an erased entry's node serves the next key, with its value's storage.
#include "core/reused_nodes.hpp"

#include <gtest/gtest.h>

#include <unordered_map>
#include <vector>

namespace lightning {
namespace {

using Map = std::unordered_map<int, std::vector<int>>;

TEST(ReusedNodes, AnErasedEntrysNodeAndStorageServeTheNextKey) {
  Map map;
  ReusedNodes<Map, 2> reused;
  bool fresh = false;
  auto it = reused.find_or_insert(map, 1, &fresh);
  EXPECT_TRUE(fresh);
  it->second.assign(100, 7);
  const int* storage = it->second.data();
  const auto* value = &it->second;
  EXPECT_EQ(reused.find_or_insert(map, 1, &fresh)->second.size(), 100u);  // found, as is
  EXPECT_FALSE(fresh);

  reused.erase(map, it);
  EXPECT_EQ(map.count(1), 0u);
  it = reused.find_or_insert(map, 5, &fresh);
  EXPECT_TRUE(fresh);
  EXPECT_EQ(it->first, 5);
  EXPECT_EQ(&it->second, value);       // the same node
  EXPECT_EQ(it->second.size(), 100u);  // its value as left: the caller resets what it needs
  it->second.clear();
  it->second.push_back(3);
  EXPECT_EQ(it->second.data(), storage);  // no new storage
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.at(5), std::vector<int>{3});
}

TEST(ReusedNodes, KeepsAtMostItsLimitAndNewNodesBeyondItStartEmpty) {
  Map map;
  ReusedNodes<Map, 2> reused;
  for (int k = 0; k < 4; ++k) reused.find_or_insert(map, k)->second.push_back(k);
  for (int k = 0; k < 4; ++k) reused.erase(map, map.find(k));
  EXPECT_TRUE(map.empty());
  // The first two erased were kept (the limit), reused last kept first; the others were freed.
  EXPECT_EQ(reused.find_or_insert(map, 10)->second, std::vector<int>{1});
  EXPECT_EQ(reused.find_or_insert(map, 11)->second, std::vector<int>{0});
  EXPECT_TRUE(reused.find_or_insert(map, 12)->second.empty());
  EXPECT_EQ(map.size(), 3u);
}

}  // namespace
}  // namespace lightning
