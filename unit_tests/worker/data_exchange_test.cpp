// The Send/Recv protocol alone: a DataExchange with a fake worker (host jobs run at once) over
// a transport that records what is sent and announces payloads as the MPI transport does.
#include "worker/data_exchange.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "worker/region_ops.hpp"

namespace lightning::worker {
namespace {

using planner::Task;

// Runs host jobs at once and records how each task ended.
class FakePort final : public DataExchange::Port {
 public:
  explicit FakePort(bool in_place) : in_place_(in_place) {}
  void run_on_host(const Task& task, std::vector<HostAccess> accesses,
                   Device::HostJob job) override {
    ++host_jobs;
    std::vector<BoxBuffer> views;
    for (const HostAccess& a : accesses) views.push_back(a.buffer.view());
    std::exception_ptr error;
    try {
      job(views);
    } catch (...) {
      error = std::current_exception();
    }
    finished(task)(error, {});
  }
  Device::Done finished(const Task& task) override {
    return [this, id = task.id](std::exception_ptr e, OpSpan) {
      std::string what;
      if (e) try {
          std::rethrow_exception(e);
        } catch (const Error& error) {
          what = error.message();
          EXPECT_EQ(error.kind(), ErrorKind::kCommunication);
        }
      ended[id] = what;
    };
  }
  void* block_in_place(const PlacedBuffer& buffer, const Rect& region) const override {
    return in_place_ ? contiguous_block(buffer.view(), region) : nullptr;
  }
  void post_received(TaskId task, comm::Payload payload, std::string error) override {
    received.push_back({task, std::move(payload), std::move(error)});
  }

  struct Received {
    TaskId task;
    comm::Payload payload;
    std::string error;
  };
  int host_jobs = 0;
  std::map<TaskId, std::string> ended;  ///< "" for success, else the error
  std::vector<Received> received;       ///< receives that ended, to hand back

 private:
  bool in_place_;
};

// Records sends (lent bytes copied and released at once); receive() answers from `pending`.
class RecordingTransport final : public comm::Transport {
 public:
  void set_handler(WorkerId, Handler) override {}
  void send(comm::DataMessage m) override {
    comm::copy_lent_bytes(m);
    sent.push_back(std::move(m));
  }
  void receive(WorkerId, uint64_t tag, void* destination, ReceiveDone done) override {
    receives.push_back({tag, destination});
    comm::Payload bytes = std::move(pending.at(tag));
    if (!error.empty()) return done({}, error);
    if (!destination) return done(std::move(bytes), "");
    std::memcpy(destination, bytes.data(), bytes.size());
    done({}, "");
  }

  struct Receive {
    uint64_t tag;
    void* destination;
  };
  std::vector<comm::DataMessage> sent;
  std::vector<Receive> receives;
  std::map<uint64_t, comm::Payload> pending;  ///< announced payloads, by tag
  std::string error;                          ///< set: every receive fails with it
};

const Rect kBox(Point{0}, Point{4});

Task task_of(uint64_t id, planner::TaskKind kind) {
  Task t{TaskId(id), WorkerId(0), std::move(kind), {}, {}};
  t.accesses = planner::accesses_of(t.kind);
  return t;
}
Task send_task(uint64_t id) {
  return task_of(id, planner::SendTask{ChunkId(1), {}, {}, kBox, WorkerId(1), 99});
}
Task recv_task(uint64_t id) {
  return task_of(id, planner::RecvTask{ChunkId(2), {}, {}, kBox, WorkerId(0), 99});
}
PlacedBuffer buffer_of(std::vector<double>& v) {
  return {v.data(), Rect(Point{0}, Point{int64_t(v.size())}), 8, MemorySpace::host()};
}
comm::Payload payload_of(const std::vector<double>& v) {
  comm::Payload p(v.size() * 8);
  std::memcpy(p.data(), v.data(), p.size());
  return p;
}

struct Exchange {
  explicit Exchange(bool in_place) : port(in_place), exchange(WorkerId(0), transport, port) {}

  /// A message with tag 99 arrives: `values` whole, or announced as `pending` bytes.
  void arrive(const std::vector<double>& values, size_t pending = 0) {
    comm::DataMessage m;
    m.tag = 99;
    m.pending_size = pending;
    if (pending)
      transport.pending[99] = payload_of(values);
    else
      m.payload = payload_of(values);
    exchange.arrived(std::move(m));
  }
  /// Runs Recv `id` into `dst`.
  void recv(uint64_t id, std::vector<double>& dst) {
    const Task task = recv_task(id);
    exchange.recv(task, std::get<planner::RecvTask>(task.kind), buffer_of(dst));
  }
  /// Hands the first receive's end back, as the worker's scheduler thread does.
  void hand_back_receive() {
    ASSERT_EQ(port.received.size(), 1u);
    auto& r = port.received[0];
    exchange.received(r.task, std::move(r.payload), r.error);
  }

  FakePort port;
  RecordingTransport transport;
  DataExchange exchange;
};

TEST(DataExchange, ASendFromHostMemoryLendsItsBytesAndEndsWhenTheyAreSent) {
  Exchange x(/*in_place=*/true);
  std::vector<double> src{1, 2, 3, 4};
  const Task send = send_task(1);
  x.exchange.send(send, std::get<planner::SendTask>(send.kind), buffer_of(src));
  EXPECT_EQ(x.port.host_jobs, 0);  // nothing packed
  ASSERT_EQ(x.transport.sent.size(), 1u);
  EXPECT_EQ(x.transport.sent[0].payload, payload_of(src));
  EXPECT_EQ(x.transport.sent[0].tag, 99u);
  EXPECT_EQ(x.transport.sent[0].to, WorkerId(1));
  EXPECT_EQ(x.port.ended.at(TaskId(1)), "");
}

TEST(DataExchange, ASendFromMemoryTheHostCannotUseInPlacePacksAPayload) {
  Exchange x(/*in_place=*/false);
  std::vector<double> src{0, 1, 2, 3, 4, 5};  // the region is [0, 4) of a larger buffer
  const Task send = send_task(1);
  x.exchange.send(send, std::get<planner::SendTask>(send.kind), buffer_of(src));
  EXPECT_EQ(x.port.host_jobs, 1);
  ASSERT_EQ(x.transport.sent.size(), 1u);
  EXPECT_EQ(x.transport.sent[0].payload, payload_of({0, 1, 2, 3}));
  EXPECT_EQ(x.port.ended.at(TaskId(1)), "");
}

TEST(DataExchange, ARecvUnpacksAWholePayloadAndRefusesOneOfTheWrongSize) {
  Exchange x(true);
  std::vector<double> dst(4, 0);
  x.arrive({5, 6, 7, 8});
  EXPECT_EQ(x.exchange.waiting_messages(), 1u);
  x.recv(2, dst);
  EXPECT_EQ(dst, (std::vector<double>{5, 6, 7, 8}));
  EXPECT_EQ(x.port.ended.at(TaskId(2)), "");
  EXPECT_EQ(x.exchange.waiting_messages(), 0u);

  x.arrive({1, 2});
  x.recv(3, dst);
  EXPECT_EQ(x.port.ended.at(TaskId(3)), "message of 16 bytes, expected 32");
  EXPECT_EQ(dst, (std::vector<double>{5, 6, 7, 8}));
}

TEST(DataExchange, AnAnnouncedPayloadIsReceivedStraightIntoTheChunk) {
  Exchange x(true);
  std::vector<double> dst(4, 0);
  x.arrive({9, 8, 7, 6}, 32);
  x.recv(2, dst);
  ASSERT_EQ(x.transport.receives.size(), 1u);
  EXPECT_EQ(x.transport.receives[0].destination, dst.data());
  EXPECT_TRUE(x.port.ended.empty());  // not until the worker hands the receive's end back
  x.hand_back_receive();
  EXPECT_EQ(x.port.ended.at(TaskId(2)), "");
  EXPECT_EQ(x.port.host_jobs, 0);
  EXPECT_EQ(dst, (std::vector<double>{9, 8, 7, 6}));
}

TEST(DataExchange, AnAnnouncedPayloadForMemoryTheHostCannotUseIsUnpacked) {
  Exchange x(false);
  std::vector<double> dst(4, 0);
  x.arrive({1, 3, 5, 7}, 32);
  x.recv(2, dst);
  EXPECT_EQ(x.transport.receives.at(0).destination, nullptr);
  x.hand_back_receive();
  EXPECT_EQ(x.port.host_jobs, 1);
  EXPECT_EQ(x.port.ended.at(TaskId(2)), "");
  EXPECT_EQ(dst, (std::vector<double>{1, 3, 5, 7}));
}

TEST(DataExchange, AnAnnouncedPayloadThatFailsOrHasTheWrongSizeFailsTheRecv) {
  for (const bool wrong_size : {false, true}) {
    Exchange x(true);
    std::vector<double> dst(4, 0);
    if (!wrong_size) x.transport.error = "the sender was lost";
    x.arrive(std::vector<double>(wrong_size ? 3 : 4, 1.0), wrong_size ? 24 : 32);
    x.recv(2, dst);
    // A payload of the wrong size goes to the transport's buffer, never into the chunk.
    EXPECT_EQ(x.transport.receives.at(0).destination, wrong_size ? nullptr : dst.data());
    x.hand_back_receive();
    EXPECT_EQ(x.port.ended.at(TaskId(2)),
              wrong_size ? "message of 24 bytes, expected 32" : "the sender was lost");
    EXPECT_EQ(dst, std::vector<double>(4, 0));
  }
}

TEST(DataExchange, ASendThatFailsOrIsSkippedStillTellsItsRecvWhichTaskFailed) {
  Exchange x(true);
  const Task send = send_task(5);
  x.exchange.ended(send, planner::failure_of(send, ErrorKind::kTask, "boom"));
  x.exchange.ended(send_task(6), planner::skipped_because(send_task(6), TaskId(3)));
  x.exchange.ended(send_task(7), std::nullopt);  // it ran: its message went already
  ASSERT_EQ(x.transport.sent.size(), 2u);
  EXPECT_EQ(x.transport.sent[0].failed_task, TaskId(5));
  EXPECT_EQ(x.transport.sent[1].failed_task, TaskId(3));
  for (const auto& m : x.transport.sent) {
    EXPECT_EQ(m.tag, 99u);
    EXPECT_TRUE(m.payload.empty());
  }
}

TEST(DataExchange, ARecvSkippedStillTakesItsAnnouncedPayloadSoTheSendFinishes) {
  Exchange x(true);
  x.arrive({1, 2, 3, 4}, 32);
  const Task recv = recv_task(2);
  x.exchange.ended(recv, planner::skipped_because(recv, TaskId(1)));
  ASSERT_EQ(x.transport.receives.size(), 1u);
  EXPECT_EQ(x.transport.receives[0].destination, nullptr);
  EXPECT_EQ(x.exchange.waiting_messages(), 0u);
  EXPECT_TRUE(x.transport.sent.empty());
}

TEST(DataExchange, ARecvBeforeItsMessageIsABrokenInvariant) {
  Exchange x(true);
  std::vector<double> dst(4, 0);
  try {
    x.recv(2, dst);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    EXPECT_NE(std::string(e.what()).find("T2 runs before its message (tag 99)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lightning::worker
