// Sends under way, alone: each keeps its bytes until done, then lent bytes are released once
// (also when the receiver is lost or the send fails) and a payload's buffer is kept for reuse;
// payload tags count per destination and wrap.
#include "comm/pending_sends.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "comm/frame.hpp"
#include "fakes.hpp"

namespace lightning::comm {
namespace {

using testing::FakeCommunicator;

class PendingSendsTest : public ::testing::Test {
 protected:
  // A message that lends `bytes`, counting its releases in `released`.
  DataMessage lending(const std::vector<uint8_t>& bytes, int& released) {
    DataMessage m;
    m.lent = {bytes.data(), bytes.size(), [&released] { ++released; }};
    return m;
  }

  FakeCommunicator comm{0, 3, /*tag_ub=*/4};
  BufferPool buffers{16};
  PendingSends sends{comm, buffers};
  PeerFailures failed;
};

TEST_F(PendingSendsTest, LentBytesAreSentInPlaceAndReleasedOnceWhenDone) {
  const std::vector<uint8_t> bytes(100, 7);
  int released = 0;
  sends.send_payload(/*to=*/1, /*tag=*/9, lending(bytes, released), failed);
  ASSERT_EQ(comm.operations.size(), 1u);
  EXPECT_TRUE(comm.operations[0].is_send);
  EXPECT_EQ(comm.operations[0].send_data, bytes.data()) << "no copy";
  EXPECT_EQ(comm.operations[0].size, 100u);
  EXPECT_EQ(comm.operations[0].peer, 1);
  EXPECT_EQ(comm.operations[0].tag, 9);

  EXPECT_FALSE(sends.test(failed));
  EXPECT_EQ(released, 0) << "MPI still reads them";
  comm.operations[0].done = true;
  EXPECT_TRUE(sends.test(failed));
  EXPECT_EQ(released, 1);
  EXPECT_TRUE(sends.empty());
  EXPECT_FALSE(sends.test(failed));
  EXPECT_EQ(released, 1);
  EXPECT_TRUE(failed.empty());
}

TEST_F(PendingSendsTest, AFinishedPayloadsBufferIsKept) {
  DataMessage m;
  m.payload = Payload(64, 1);
  const uint8_t* data = m.payload.data();
  sends.send_payload(1, 9, std::move(m), failed);
  EXPECT_EQ(comm.operations[0].send_data, data);
  comm.operations[0].done = true;
  sends.test(failed);
  EXPECT_EQ(buffers.kept(), 1u);
  EXPECT_EQ(buffers.take(50).data(), data);
}

TEST_F(PendingSendsTest, AFrameIsKeptUntilSent) {
  sends.send_frame(2, signal_frame(FrameKind::kHeartbeat), failed);
  ASSERT_EQ(comm.operations.size(), 1u);
  EXPECT_EQ(comm.operations[0].tag, kControlTag);
  EXPECT_EQ(comm.operations[0].size, 1u);
  EXPECT_EQ(*static_cast<const uint8_t*>(comm.operations[0].send_data),
            static_cast<uint8_t>(FrameKind::kHeartbeat));
  EXPECT_EQ(sends.size(), 1u);
  comm.operations[0].done = true;
  EXPECT_TRUE(sends.test(failed));
  EXPECT_TRUE(sends.empty());
}

TEST_F(PendingSendsTest, DroppingALostRankReleasesItsLentBytesOnce) {
  const std::vector<uint8_t> bytes(100, 7);
  int to_lost = 0, to_live = 0;
  sends.send_payload(1, 2, lending(bytes, to_lost), failed);
  sends.send_frame(1, signal_frame(FrameKind::kHeartbeat), failed);
  sends.send_payload(2, 2, lending(bytes, to_live), failed);
  sends.drop_to(1);
  EXPECT_EQ(to_lost, 1);
  EXPECT_EQ(to_live, 0);
  EXPECT_EQ(comm.operations[0].frees, 1);
  EXPECT_EQ(comm.operations[1].frees, 1);
  EXPECT_EQ(comm.operations[2].frees, 0);
  EXPECT_EQ(sends.size(), 1u);
  sends.drop_to(1);
  EXPECT_EQ(to_lost, 1);
  comm.operations[2].done = true;
  sends.test(failed);
  EXPECT_EQ(to_live, 1);
}

TEST_F(PendingSendsTest, AFailedSendNamesItsPeerAndReleasesItsBytes) {
  const std::vector<uint8_t> bytes(100, 7);
  int released = 0;
  comm.fail_next = "no route";
  sends.send_payload(2, 2, lending(bytes, released), failed);
  EXPECT_EQ(released, 1);
  EXPECT_TRUE(sends.empty());
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].rank, 2);
  EXPECT_EQ(failed[0].reason, "sending to it failed: no route");

  failed.clear();
  sends.send_frame(1, signal_frame(FrameKind::kGoodbye), failed);
  comm.operations[0].failure = "peer gone";
  EXPECT_TRUE(sends.test(failed));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].rank, 1);
  EXPECT_EQ(failed[0].reason, "sending to it failed: peer gone");
  EXPECT_TRUE(sends.empty());
}

// One failure loses the rank: its other sends are left for drop_to(), which releases their
// bytes, instead of failing one by one.
TEST_F(PendingSendsTest, AfterAFailedSendTheRanksOtherSendsWaitForTheDrop) {
  const std::vector<uint8_t> bytes(100, 7);
  int first = 0, second = 0, other = 0;
  sends.send_payload(1, 2, lending(bytes, first), failed);
  sends.send_payload(2, 2, lending(bytes, other), failed);
  sends.send_payload(1, 3, lending(bytes, second), failed);
  comm.operations[0].failure = "peer gone";
  comm.operations[2].failure = "peer gone";
  comm.operations[1].done = true;
  EXPECT_TRUE(sends.test(failed));
  ASSERT_EQ(failed.size(), 1u) << "reported once";
  EXPECT_EQ(failed[0].rank, 1);
  EXPECT_EQ(comm.operations[2].tests, 0);
  EXPECT_EQ(other, 1) << "other ranks' sends complete as usual";
  EXPECT_EQ(sends.size(), 1u);
  sends.drop_to(1);
  EXPECT_EQ(second, 1);
  EXPECT_EQ(comm.operations[2].frees, 1);
  EXPECT_TRUE(sends.empty());
}

TEST_F(PendingSendsTest, NoReleaseOnceStopped) {
  const std::vector<uint8_t> bytes(100, 7);
  int released = 0;
  sends.send_payload(1, 2, lending(bytes, released), failed);
  sends.send_payload(1, 3, lending(bytes, released), failed);
  sends.stop_releasing();
  comm.operations[0].done = true;
  sends.test(failed);
  EXPECT_EQ(sends.size(), 1u);
  sends.abandon();
  EXPECT_TRUE(sends.empty());
  EXPECT_EQ(comm.operations[1].frees, 1);
  EXPECT_EQ(released, 0);
}

TEST_F(PendingSendsTest, PayloadTagsCountPerDestinationAndWrap) {
  // tag_ub is 4: tags 2, 3, 4, then 2 again.
  EXPECT_EQ(sends.payload_tag(1), kFirstPayloadTag);
  EXPECT_EQ(sends.payload_tag(1), 3);
  EXPECT_EQ(sends.payload_tag(2), kFirstPayloadTag);
  EXPECT_EQ(sends.payload_tag(1), 4);
  EXPECT_EQ(sends.payload_tag(1), kFirstPayloadTag);
  EXPECT_EQ(sends.payload_tag(2), 3);
}

}  // namespace
}  // namespace lightning::comm
