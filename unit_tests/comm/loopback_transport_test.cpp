#include "comm/loopback_transport.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace lightning::comm {
namespace {

TEST(LoopbackTransport, DeliversByWorkerAndRejectsUnknownOnes) {
  LoopbackTransport t;
  std::vector<uint64_t> got;
  t.set_handler(WorkerId(1), [&](DataMessage m) { got.push_back(m.tag); });
  t.send({WorkerId(0), WorkerId(1), 42, {1, 2, 3}, {}, {}, 0});
  EXPECT_EQ(got, std::vector<uint64_t>{42});
  try {
    t.send({WorkerId(0), WorkerId(5), 7, {}, {}, {}, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCommunication);
    EXPECT_EQ(e.message(),
              "message with tag 7 for worker W5, which does not exist in this process");
  }
}

// Lent bytes arrive whole (copied) and are released once, before send() returns; a send that
// is refused does not release them.
TEST(LoopbackTransport, CopiesAndReleasesLentBytes) {
  LoopbackTransport t;
  std::vector<DataMessage> got;
  t.set_handler(WorkerId(1), [&](DataMessage m) { got.push_back(std::move(m)); });
  std::vector<uint8_t> bytes = {5, 6, 7, 8};
  int released = 0;
  DataMessage m;
  m.from = WorkerId(0);
  m.to = WorkerId(1);
  m.tag = 3;
  m.lent = {bytes.data(), bytes.size(), [&] { ++released; }};
  DataMessage refused = m;
  t.send(std::move(m));
  EXPECT_EQ(released, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].payload, Payload({5, 6, 7, 8}));
  EXPECT_EQ(got[0].lent.data, nullptr);
  EXPECT_EQ(got[0].pending_size, 0u);
  refused.to = WorkerId(9);
  EXPECT_THROW(t.send(std::move(refused)), Error);
  EXPECT_EQ(released, 1);
}

}  // namespace
}  // namespace lightning::comm
