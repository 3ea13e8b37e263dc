// The queue the runtime's threads talk through: order, bursts, and waiting across threads.
#include "core/message_queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace lightning {
namespace {

TEST(MessageQueue, PopAllTakesTheBurstInOrderIntoTheCallersDeque) {
  MessageQueue<std::string> queue;
  std::deque<std::string> popped = {"stale"};  // whatever it held is dropped
  for (const char* m : {"a", "b", "c"}) queue.push(m);
  queue.pop_all(popped);
  EXPECT_EQ(popped, (std::deque<std::string>{"a", "b", "c"}));
  EXPECT_FALSE(queue.try_pop().has_value());
  // Reused: the next burst replaces the last one.
  queue.push("d");
  queue.pop_all(popped);
  EXPECT_EQ(popped, (std::deque<std::string>{"d"}));
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
  std::deque<int> popped;
  int seen = 0;
  while (seen < 2) {
    queue.pop_all(popped);
    for (int m : popped) EXPECT_EQ(m, 7 + seen++);
  }
  producer.join();
}

}  // namespace
}  // namespace lightning
