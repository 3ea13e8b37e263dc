#include "core/ids.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <type_traits>
#include <unordered_set>

namespace lightning {
namespace {

TEST(StrongId, DefaultIsInvalid) {
  ChunkId c;
  EXPECT_FALSE(c.valid());
  EXPECT_TRUE(ChunkId(0).valid());
}

TEST(StrongId, KindsDoNotMix) {
  static_assert(!std::is_convertible_v<ChunkId, ArrayId>);
  static_assert(!std::is_convertible_v<uint64_t, ChunkId>);  // explicit construction only
  static_assert(sizeof(ChunkId) == sizeof(uint64_t));
}

TEST(StrongId, PrintsWithKindPrefixAndHashes) {
  std::ostringstream os;
  os << ChunkId(12) << " " << DeviceId(3) << " " << WorkerId(1);
  EXPECT_EQ(os.str(), "C12 D3 W1");
  EXPECT_EQ(TaskId(7).to_string(), "T7");
  std::unordered_set<ArrayId> set{ArrayId(1), ArrayId(2), ArrayId(1)};
  EXPECT_EQ(set.size(), 2u);
  EXPECT_LT(KernelId(1), KernelId(2));
}

}  // namespace
}  // namespace lightning
