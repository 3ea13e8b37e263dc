// The queue the runtime's threads talk through: order, bursts, and waiting across threads.
#include "core/message_queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace lightning {
namespace {

TEST(MessageQueue, PopAllTakesTheBurstInOrderIntoTheCallersQueue) {
  MessageQueue<std::string> queue;
  RingQueue<std::string> popped;
  popped.push_back("stale");  // whatever it held is dropped
  for (const char* m : {"a", "b", "c"}) queue.push(m);
  queue.pop_all(popped);
  ASSERT_EQ(popped.size(), 3u);
  EXPECT_EQ(popped[0], "a");
  EXPECT_EQ(popped[1], "b");
  EXPECT_EQ(popped[2], "c");
  EXPECT_FALSE(queue.try_pop().has_value());
  // Reused: the next burst replaces the last one.
  queue.push("d");
  queue.pop_all(popped);
  ASSERT_EQ(popped.size(), 1u);
  EXPECT_EQ(popped[0], "d");
  queue.push("e");
  EXPECT_EQ(queue.pop(), "e");
}

TEST(MessageQueue, PopAllWaitsForAMessageFromAnotherThread) {
  MessageQueue<int> queue;
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the spin: it sleeps
    queue.push(7);
    queue.push(8);
  });
  RingQueue<int> popped;
  int seen = 0;
  while (seen < 2) {
    queue.pop_all(popped);
    for (size_t i = 0; i < popped.size(); ++i) EXPECT_EQ(popped[i], 7 + seen++);
  }
  producer.join();
}

}  // namespace
}  // namespace lightning
