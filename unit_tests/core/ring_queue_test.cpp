// The queue between threads: first in first out across wrap-around and growth, storage kept.
#include "core/ring_queue.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>
#include <string>

namespace lightning {
namespace {

TEST(RingQueue, KeepsOrderAcrossWrapAroundAndGrowthAsADequeDoes) {
  RingQueue<std::string> ring;
  std::deque<std::string> reference;
  std::mt19937 random(7);
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    // Bursts of pushes and pops, so the head wraps at every capacity the queue grows through.
    if (random() % 3 != 0 || reference.empty()) {
      ring.push_back(std::to_string(next));
      reference.push_back(std::to_string(next++));
    } else {
      ASSERT_EQ(ring.front(), reference.front());
      ASSERT_EQ(ring.pop_front(), reference.front());
      reference.pop_front();
    }
    ASSERT_EQ(ring.size(), reference.size());
    if (!reference.empty()) {
      ASSERT_EQ(ring[reference.size() - 1], reference.back());
    }
  }
  const size_t capacity = ring.capacity();
  EXPECT_EQ(capacity & (capacity - 1), 0u) << "a power of two";
  ring.clear();
  EXPECT_TRUE(ring.empty());
  EXPECT_EQ(ring.capacity(), capacity) << "clear keeps the storage";
}

TEST(RingQueue, StopsGrowingAtItsLargestSizeAndReleasesWhatItPops) {
  RingQueue<std::shared_ptr<int>> ring;
  auto held = std::make_shared<int>(1);
  for (int i = 0; i < 5; ++i) ring.push_back(held);
  const size_t capacity = ring.capacity();
  for (int round = 0; round < 1000; ++round) {  // at most 5 queued: the storage stays
    ring.pop_front();
    ring.push_back(held);
  }
  EXPECT_EQ(ring.capacity(), capacity);
  EXPECT_EQ(held.use_count(), 6);
  while (!ring.empty()) ring.pop_front();
  EXPECT_EQ(held.use_count(), 1) << "popped slots keep nothing alive";

  RingQueue<std::shared_ptr<int>> other;
  other.push_back(held);
  ring.swap(other);
  EXPECT_EQ(ring.size(), 1u);
  EXPECT_TRUE(other.empty());
  EXPECT_EQ(other.capacity(), capacity);
}

}  // namespace
}  // namespace lightning
