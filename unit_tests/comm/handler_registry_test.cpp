// Local delivery: a message reaches its worker's handler, or waits for it in order.
#include "comm/handler_registry.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace lightning::comm {
namespace {

DataMessage to(uint64_t worker, uint64_t tag) {
  DataMessage m;
  m.to = WorkerId(worker);
  m.tag = tag;
  return m;
}

TEST(HandlerRegistry, MessagesBeforeTheHandlerWaitForItInOrder) {
  HandlerRegistry handlers;
  std::vector<uint64_t> got0, got1;
  handlers.deliver(to(0, 1));
  handlers.deliver(to(1, 2));
  handlers.deliver(to(0, 3));
  handlers.set(WorkerId(0), [&](DataMessage m) { got0.push_back(m.tag); });
  EXPECT_EQ(got0, (std::vector<uint64_t>{1, 3}));
  handlers.deliver(to(0, 4));
  EXPECT_EQ(got0, (std::vector<uint64_t>{1, 3, 4}));
  EXPECT_TRUE(got1.empty());
  handlers.set(WorkerId(1), [&](DataMessage m) { got1.push_back(m.tag); });
  EXPECT_EQ(got1, std::vector<uint64_t>{2});
  // Removed: later messages wait again.
  handlers.set(WorkerId(0), nullptr);
  handlers.deliver(to(0, 5));
  EXPECT_EQ(got0, (std::vector<uint64_t>{1, 3, 4}));
  handlers.set(WorkerId(0), [&](DataMessage m) { got0.push_back(m.tag); });
  EXPECT_EQ(got0, (std::vector<uint64_t>{1, 3, 4, 5}));
}

}  // namespace
}  // namespace lightning::comm
