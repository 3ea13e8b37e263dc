// The table of announced payloads, alone: a payload asked for in time lands in the named
// destination, one not asked for by its deadline goes into a buffer that the later receive()
// gets, each is handed over once, and a lost sender fails its payloads.
#include "comm/incoming_payloads.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "fakes.hpp"

namespace lightning::comm {
namespace {

using testing::FakeClock;
using testing::FakeCommunicator;
using namespace std::chrono_literals;

// What one receive()'s done saw.
struct Received {
  int calls = 0;
  Payload payload;
  std::string error;
};

Transport::ReceiveDone into(Received& r) {
  return [&r](Payload p, std::string error) {
    ++r.calls;
    r.payload = std::move(p);
    r.error = std::move(error);
  };
}

std::vector<uint8_t> bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 3 * i);
  return v;
}

Payload payload_of(const std::vector<uint8_t>& v) {
  return Payload(v.begin(), v.end());
}

class IncomingPayloadsTest : public ::testing::Test {
 protected:
  FakeClock clock;
  FakeCommunicator comm{0, 3};
  BufferPool buffers{16};
  IncomingPayloads table{comm, buffers, clock, 2ms};
  PeerFailures failed;
  const WorkerId w{0};
};

TEST_F(IncomingPayloadsTest, APayloadAskedForInTimeLandsInItsDestination) {
  table.announce(/*from=*/1, w, /*tag=*/7, /*payload_tag=*/5, /*size=*/64, failed);
  EXPECT_TRUE(comm.operations.empty()) << "nothing is received before it is asked for";
  EXPECT_EQ(table.size(), 1u);

  Payload destination(64, 0);
  Received r;
  table.receive(w, 7, destination.data(), into(r), failed);
  ASSERT_EQ(comm.operations.size(), 1u);
  const auto& op = comm.operations[0];
  EXPECT_FALSE(op.is_send);
  EXPECT_EQ(op.receive_data, destination.data()) << "received straight into the destination";
  EXPECT_EQ(op.size, 64u);
  EXPECT_EQ(op.peer, 1);
  EXPECT_EQ(op.tag, 5);
  EXPECT_TRUE(table.receiving());

  EXPECT_FALSE(table.test(failed));
  EXPECT_EQ(r.calls, 0) << "not arrived yet";
  // Past the deadline, a payload on its way into its destination is left alone.
  clock.advance(10ms);
  EXPECT_FALSE(table.buffer_overdue(failed));
  EXPECT_EQ(comm.operations.size(), 1u);

  comm.arrive(/*request=*/1, bytes(64, 9));
  EXPECT_TRUE(table.test(failed));
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.payload.empty()) << "the bytes are in the destination, not in a buffer";
  EXPECT_EQ(destination, payload_of(bytes(64, 9)));
  EXPECT_EQ(table.size(), 0u);
  EXPECT_FALSE(table.receiving());
  EXPECT_TRUE(failed.empty());
}

TEST_F(IncomingPayloadsTest, APayloadNotAskedForByItsDeadlineIsBuffered) {
  table.announce(1, w, 7, 5, 64, failed);
  clock.advance(2ms - 1us);
  EXPECT_FALSE(table.buffer_overdue(failed));
  EXPECT_TRUE(comm.operations.empty()) << "before the deadline it waits for receive()";

  clock.advance(1us);
  EXPECT_TRUE(table.buffer_overdue(failed));
  ASSERT_EQ(comm.operations.size(), 1u);
  EXPECT_NE(comm.operations[0].receive_data, nullptr);
  EXPECT_EQ(comm.operations[0].size, 64u);
  EXPECT_EQ(comm.operations[0].peer, 1);
  EXPECT_EQ(comm.operations[0].tag, 5);
  EXPECT_FALSE(table.buffer_overdue(failed)) << "posted once";
  EXPECT_EQ(comm.operations.size(), 1u);

  comm.arrive(/*request=*/1, bytes(64, 4));
  EXPECT_TRUE(table.test(failed));
  EXPECT_EQ(table.size(), 1u) << "kept until receive() comes";
  EXPECT_FALSE(table.receiving());

  // receive() after buffering gets the buffer; the destination it names is left alone.
  Payload destination(64, 0xAA);
  Received r;
  table.receive(w, 7, destination.data(), into(r), failed);
  EXPECT_EQ(r.calls, 1) << "handed over at once: it had arrived";
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.payload, payload_of(bytes(64, 4)));
  EXPECT_EQ(destination, Payload(64, 0xAA));
  EXPECT_EQ(comm.operations.size(), 1u) << "no second receive";
  EXPECT_EQ(table.size(), 0u);
  EXPECT_TRUE(failed.empty());
}

TEST_F(IncomingPayloadsTest, AReceiveWhileBufferingGetsTheBufferOnArrival) {
  table.announce(1, w, 7, 5, 32, failed);
  clock.advance(2ms);
  ASSERT_TRUE(table.buffer_overdue(failed));
  Payload destination(32, 0);
  Received r;
  table.receive(w, 7, destination.data(), into(r), failed);
  EXPECT_EQ(r.calls, 0);
  EXPECT_EQ(comm.operations.size(), 1u) << "the receive into a buffer goes on";
  comm.arrive(/*request=*/1, bytes(32, 1));
  EXPECT_TRUE(table.test(failed));
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.payload, payload_of(bytes(32, 1)));
  EXPECT_EQ(destination, Payload(32, 0));
  EXPECT_EQ(table.size(), 0u);
}

TEST_F(IncomingPayloadsTest, ABufferedReceiveReusesAKeptBuffer) {
  Payload kept(100);
  const uint8_t* kept_data = kept.data();
  buffers.keep(std::move(kept));
  table.announce(1, w, 7, 5, 64, failed);
  clock.advance(2ms);
  ASSERT_TRUE(table.buffer_overdue(failed));
  EXPECT_EQ(comm.operations[0].receive_data, kept_data);
  EXPECT_EQ(buffers.kept(), 0u);
}

TEST_F(IncomingPayloadsTest, APayloadIsHandedOverOnce) {
  table.announce(1, w, 7, 5, 64, failed);
  EXPECT_THROW(table.announce(2, w, 7, 6, 64, failed), Error) << "same worker and tag";
  Payload destination(64, 0);
  Received first;
  table.receive(w, 7, destination.data(), into(first), failed);
  comm.arrive(/*request=*/1, bytes(64, 2));
  ASSERT_TRUE(table.test(failed));
  EXPECT_FALSE(table.test(failed));
  EXPECT_EQ(first.calls, 1);

  Received second;
  table.receive(w, 7, destination.data(), into(second), failed);
  EXPECT_EQ(second.calls, 1);
  EXPECT_NE(second.error.find("no payload with tag 7 for worker"), std::string::npos)
      << second.error;
  EXPECT_EQ(first.calls, 1);
  EXPECT_EQ(comm.operations.size(), 1u);
  EXPECT_EQ(comm.operations[0].frees, 0) << "a completed request is not freed again";

  // The same tag may come again once the first is forgotten.
  table.announce(1, w, 7, 8, 64, failed);
  EXPECT_EQ(table.size(), 1u);
}

TEST_F(IncomingPayloadsTest, ALostSenderFailsItsPayloadsOnce) {
  Payload destination(64, 0);
  Received asked, later, other;
  table.announce(1, w, 7, 5, 64, failed);
  table.announce(1, w, 8, 6, 64, failed);
  table.announce(2, w, 9, 5, 64, failed);
  table.receive(w, 7, destination.data(), into(asked), failed);
  ASSERT_EQ(comm.operations.size(), 1u);

  table.fail_from(1, "it died");
  EXPECT_EQ(comm.operations[0].cancels, 1);
  EXPECT_EQ(comm.operations[0].frees, 1);
  EXPECT_FALSE(table.receiving());
  EXPECT_EQ(asked.calls, 1);
  EXPECT_EQ(asked.error, "rank 1 was lost before its payload with tag 7 arrived: it died");
  EXPECT_EQ(table.size(), 2u);

  // Not buffered after the deadline: it never comes.
  clock.advance(10ms);
  EXPECT_TRUE(table.buffer_overdue(failed)) << "rank 2's payload";
  ASSERT_EQ(comm.operations.size(), 2u);
  EXPECT_EQ(comm.operations[1].peer, 2);

  table.receive(w, 8, nullptr, into(later), failed);
  EXPECT_EQ(later.calls, 1);
  EXPECT_EQ(later.error, "rank 1 was lost before its payload with tag 8 arrived: it died");
  table.fail_from(1, "again");
  EXPECT_EQ(comm.operations[0].frees, 1) << "freed once";
  EXPECT_EQ(asked.calls, 1);

  table.receive(w, 9, nullptr, into(other), failed);
  comm.arrive(/*request=*/2, bytes(64, 5));
  EXPECT_TRUE(table.test(failed));
  EXPECT_EQ(other.calls, 1);
  EXPECT_EQ(other.error, "");
  EXPECT_EQ(other.payload, payload_of(bytes(64, 5)));
  EXPECT_TRUE(failed.empty());
}

TEST_F(IncomingPayloadsTest, WithoutAWaitEveryPayloadIsBufferedAtOnce) {
  IncomingPayloads at_once(comm, buffers, clock, 0us);
  at_once.announce(1, w, 7, 5, 64, failed);
  ASSERT_EQ(comm.operations.size(), 1u);
  EXPECT_NE(comm.operations[0].receive_data, nullptr);
  EXPECT_TRUE(at_once.receiving());
}

TEST_F(IncomingPayloadsTest, AFailedReceiveNamesItsSender) {
  table.announce(1, w, 7, 5, 64, failed);
  comm.fail_next = "no route";
  Received r;
  table.receive(w, 7, nullptr, into(r), failed);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].rank, 1);
  EXPECT_EQ(failed[0].reason, "receiving from it failed: no route");
  EXPECT_EQ(r.calls, 0) << "the transport loses the rank, which fails the payload";
  table.fail_from(1, failed[0].reason);
  EXPECT_EQ(r.calls, 1);
  EXPECT_NE(r.error.find("receiving from it failed: no route"), std::string::npos);

  // A receive that fails while under way.
  failed.clear();
  table.announce(2, w, 8, 5, 64, failed);
  table.receive(w, 8, nullptr, into(r), failed);
  ASSERT_EQ(comm.operations.size(), 1u);
  comm.operations[0].failure = "truncated";
  EXPECT_TRUE(table.test(failed));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].rank, 2);
  EXPECT_EQ(failed[0].reason, "receiving from it failed: truncated");
}

TEST_F(IncomingPayloadsTest, NoCallbackOnceStopped) {
  table.announce(1, w, 7, 5, 64, failed);
  Received r;
  table.receive(w, 7, nullptr, into(r), failed);
  table.stop_delivering();
  comm.arrive(/*request=*/1, bytes(64, 0));
  EXPECT_TRUE(table.test(failed));
  EXPECT_EQ(r.calls, 0);
  table.announce(1, w, 8, 6, 64, failed);
  table.receive(w, 8, nullptr, into(r), failed);
  table.abandon();
  EXPECT_EQ(comm.operations[1].cancels, 1);
  EXPECT_EQ(comm.operations[1].frees, 1);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(r.calls, 0);
}

}  // namespace
}  // namespace lightning::comm
