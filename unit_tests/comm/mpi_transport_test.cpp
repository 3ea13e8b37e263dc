// The MPI transport between ranks: data messages of every size (inline and separate payloads)
// and control messages arrive intact, in any number, including those that arrive before
// their worker's handler exists.
#include "comm/mpi_transport.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace lightning::comm {
namespace {

// Collects what a handler receives, for the test's thread.
template <class T>
class Inbox {
 public:
  void put(T m) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.push_back(std::move(m));
    ready_.notify_all();
  }
  std::vector<T> wait_for(size_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return items_.size() >= n; });
    return items_;
  }
  /// Waits for an item for which `match` holds and returns it.
  template <class Match>
  T wait_for_one(Match match) {
    std::unique_lock<std::mutex> lock(mutex_);
    typename std::vector<T>::iterator it;
    ready_.wait(lock, [&] {
      it = std::find_if(items_.begin(), items_.end(), match);
      return it != items_.end();
    });
    return *it;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<T> items_;
};

Payload pattern(size_t size, uint64_t seed) {
  Payload v(size);
  for (size_t i = 0; i < size; ++i) v[i] = static_cast<uint8_t>((i * 131 + seed * 7) >> 3);
  return v;
}

// Puts `m` into `inbox` whole: an announced payload is fetched into a buffer first.
void take_whole(MpiTransport& t, DataMessage m, Inbox<DataMessage>& inbox) {
  if (m.pending_size == 0) return inbox.put(std::move(m));
  const WorkerId to = m.to;
  const uint64_t tag = m.tag;
  t.receive(to, tag, nullptr, [&inbox, m = std::move(m)](Payload p, std::string error) mutable {
    EXPECT_EQ(p.size(), m.pending_size);
    m.payload = std::move(p);
    EXPECT_TRUE(error.empty()) << error;
    inbox.put(std::move(m));
  });
}

// Waits for a flag set by another thread (a transport callback).
class Signal {
 public:
  void set() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    ready_.notify_all();
  }
  int wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return count_ > 0; });
    return count_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  int count_ = 0;
};

TEST(MpiTransport, DataAndControlMessagesReachEveryRank) {
  Inbox<DataMessage> data;
  Inbox<ControlMessage> control;
  MpiTransport::Options o;
  o.inline_limit = 1024;  // small, so that both payload paths are used
  MpiTransport t(
      o, [&](ControlMessage m) { control.put(std::move(m)); }, nullptr);
  const int rank = t.rank(), size = t.size();
  // Sizes on both sides of the inline limit, and empty.
  const std::vector<size_t> sizes = {0, 1, 1024, 1025, 3 << 20};
  for (int to = 0; to < size; ++to) {
    for (size_t s = 0; s < sizes.size(); ++s) {
      DataMessage m;
      m.from = WorkerId(static_cast<uint64_t>(rank));
      m.to = WorkerId(static_cast<uint64_t>(to));
      m.tag = static_cast<uint64_t>(rank) * 1000 + s;
      m.payload = pattern(sizes[s], m.tag);
      if (s == 1) m.failed_task = TaskId(1000 + static_cast<uint64_t>(rank));
      t.send(std::move(m));
    }
    t.send_control(to, {static_cast<uint8_t>(rank), 42});
  }
  // The handler is set after messages may have arrived: they wait for it.
  t.set_handler(WorkerId(static_cast<uint64_t>(rank)),
                [&](DataMessage m) { take_whole(t, std::move(m), data); });

  const auto got = data.wait_for(sizes.size() * static_cast<size_t>(size));
  ASSERT_EQ(got.size(), sizes.size() * static_cast<size_t>(size));
  for (const DataMessage& m : got) {
    const uint64_t from = m.tag / 1000, s = m.tag % 1000;
    ASSERT_LT(s, sizes.size());
    EXPECT_EQ(m.from, WorkerId(from));
    EXPECT_EQ(m.to, WorkerId(static_cast<uint64_t>(rank)));
    EXPECT_EQ(m.payload, pattern(sizes[s], m.tag)) << "tag " << m.tag;
    EXPECT_EQ(m.failed_task, s == 1 ? TaskId(1000 + from) : TaskId());
  }
  const auto controls = control.wait_for(static_cast<size_t>(size));
  std::vector<int> seen(static_cast<size_t>(size), 0);
  for (const ControlMessage& m : controls) {
    ASSERT_EQ(m.bytes.size(), 2u);
    EXPECT_EQ(m.bytes[0], m.from);
    EXPECT_EQ(m.bytes[1], 42);
    EXPECT_EQ(m.to, rank);
    ++seen[static_cast<size_t>(m.from)];
  }
  EXPECT_EQ(seen, std::vector<int>(static_cast<size_t>(size), 1));
  // Nobody stops before everyone has received everything.
  t.set_handler(WorkerId(static_cast<uint64_t>(rank)), nullptr);
}

// Payload buffers of sent messages are reused for later receives, of other sizes too: every
// message must still arrive whole and intact.
TEST(MpiTransport, ReusedBuffersCarryEveryMessageWhole) {
  Inbox<DataMessage> data;
  MpiTransport t({}, nullptr, nullptr);
  const int rank = t.rank(), size = t.size();
  t.set_handler(WorkerId(static_cast<uint64_t>(rank)),
                [&](DataMessage m) { take_whole(t, std::move(m), data); });
  const std::vector<size_t> sizes = {2 << 20, 1 << 20, (3 << 20) + 5, 100 << 10, 2 << 20};
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  for (size_t round = 0; round < sizes.size(); ++round) {
    // Around the ring: each receive may reuse the buffer of an earlier send.
    DataMessage m;
    m.from = WorkerId(static_cast<uint64_t>(rank));
    m.to = WorkerId(static_cast<uint64_t>(next));
    m.tag = round;
    m.payload = pattern(sizes[round], static_cast<uint64_t>(rank) * 100 + round);
    t.send(std::move(m));
    // Large payloads may complete out of order (they are matched by tag, not by order).
    const DataMessage got = data.wait_for_one([&](const DataMessage& x) { return x.tag == round; });
    EXPECT_EQ(got.from, WorkerId(static_cast<uint64_t>(previous)));
    EXPECT_EQ(got.payload, pattern(sizes[round], static_cast<uint64_t>(previous) * 100 + round))
        << "round " << round;
  }
  t.set_handler(WorkerId(static_cast<uint64_t>(rank)), nullptr);
}

// Lent bytes go from the sender's memory straight into the destination the receiver names
// (the payload waits for it: a long direct_receive_wait), and are released once, after that.
TEST(MpiTransport, LentBytesLandInTheNamedDestination) {
  MpiTransport::Options o;
  o.direct_receive_wait = std::chrono::seconds(60);
  MpiTransport t(o, nullptr, nullptr);
  const int rank = t.rank(), size = t.size();
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  const WorkerId self(static_cast<uint64_t>(rank));
  const std::vector<size_t> sizes = {100, (3 << 20) + 7};  // inline, and a payload of its own
  Inbox<DataMessage> announced;
  t.set_handler(self, [&](DataMessage m) { announced.put(std::move(m)); });
  std::vector<Payload> lent;
  std::vector<std::unique_ptr<Signal>> released;
  for (size_t i = 0; i < sizes.size(); ++i) {
    lent.push_back(pattern(sizes[i], static_cast<uint64_t>(rank) * 10 + i));
    released.push_back(std::make_unique<Signal>());
    DataMessage m;
    m.from = self;
    m.to = WorkerId(static_cast<uint64_t>(next));
    m.tag = i;
    m.lent = {lent[i].data(), lent[i].size(), [s = released[i].get()] { s->set(); }};
    t.send(std::move(m));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    const DataMessage m = announced.wait_for_one([&](const DataMessage& x) { return x.tag == i; });
    const Payload expected = pattern(sizes[i], static_cast<uint64_t>(previous) * 10 + i);
    if (m.pending_size == 0) {  // small: it came whole, inside its header
      EXPECT_EQ(m.payload, expected);
      continue;
    }
    EXPECT_EQ(m.pending_size, sizes[i]);
    EXPECT_TRUE(m.payload.empty());
    Payload destination(sizes[i], 0);
    Inbox<std::pair<Payload, std::string>> done;
    t.receive(self, m.tag, destination.data(), [&](Payload p, std::string error) {
      done.put({std::move(p), std::move(error)});
    });
    const auto result = done.wait_for(1).front();
    EXPECT_EQ(result.second, "");
    EXPECT_TRUE(result.first.empty()) << "the bytes should be in the destination, not a buffer";
    EXPECT_EQ(destination, expected);
  }
  for (auto& r : released) EXPECT_EQ(r->wait(), 1);
  // A payload nobody announced, or one received already, is an error, not a wait.
  Inbox<std::string> errors;
  t.receive(self, 1, nullptr, [&](Payload, std::string error) { errors.put(std::move(error)); });
  EXPECT_NE(errors.wait_for(1).front().find("no payload with tag 1"), std::string::npos);
  t.set_handler(self, nullptr);
  MPI_Barrier(MPI_COMM_WORLD);  // nobody's transport stops before the others are done
}

// A payload that nobody asks for within direct_receive_wait goes into a buffer of the
// receiving rank's, so that its sender gets its bytes back without waiting for the receiver;
// the receive() that comes later gets it in that buffer.
TEST(MpiTransport, APayloadNotAskedForInTimeIsBuffered) {
  MpiTransport::Options o;
  o.direct_receive_wait = std::chrono::milliseconds(1);
  Inbox<ControlMessage> control;
  MpiTransport t(
      o, [&](ControlMessage m) { control.put(std::move(m)); }, nullptr);
  const int rank = t.rank(), size = t.size();
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  const WorkerId self(static_cast<uint64_t>(rank));
  Inbox<DataMessage> announced;
  t.set_handler(self, [&](DataMessage m) { announced.put(std::move(m)); });
  const Payload bytes = pattern(1 << 20, static_cast<uint64_t>(rank));
  Signal released;
  DataMessage m;
  m.from = self;
  m.to = WorkerId(static_cast<uint64_t>(next));
  m.tag = 5;
  m.lent = {bytes.data(), bytes.size(), [&] { released.set(); }};
  t.send(std::move(m));
  // Released although the receiver has not asked yet: it waits for this message to ask.
  released.wait();
  t.send_control(next, {1});
  control.wait_for(1);
  const DataMessage got = announced.wait_for(1).front();
  ASSERT_EQ(got.pending_size, size_t{1} << 20);
  Payload destination(1 << 20, 0);
  Inbox<std::pair<Payload, std::string>> done;
  t.receive(self, 5, destination.data(), [&](Payload p, std::string error) {
    done.put({std::move(p), std::move(error)});
  });
  const auto result = done.wait_for(1).front();
  EXPECT_EQ(result.second, "");
  EXPECT_EQ(result.first, pattern(1 << 20, static_cast<uint64_t>(previous)))
      << "the payload comes in the transport's buffer";
  EXPECT_EQ(destination, Payload(1 << 20, 0)) << "the destination is left alone";
  t.set_handler(self, nullptr);
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(MpiTransport, AMessageForAWorkerThatDoesNotExistIsRefused) {
  MpiTransport t({}, nullptr, nullptr);
  DataMessage m;
  m.to = WorkerId(static_cast<uint64_t>(t.size()));
  m.tag = 7;
  EXPECT_THROW(t.send(std::move(m)), std::exception);
  EXPECT_THROW(t.send_control(-1, {}), std::exception);
}

}  // namespace
}  // namespace lightning::comm
