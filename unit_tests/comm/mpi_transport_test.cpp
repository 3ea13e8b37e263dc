// The MPI transport between ranks: data messages of every size (inline and separate payloads)
// and control messages arrive intact, in any number, including those that arrive before
// their worker's handler exists.
#include "comm/mpi_transport.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
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
      if (s == 1) m.error = "send failed on rank " + std::to_string(rank);
      t.send(std::move(m));
    }
    t.send_control(to, {static_cast<uint8_t>(rank), 42});
  }
  // The handler is set after messages may have arrived: they wait for it.
  t.set_handler(WorkerId(static_cast<uint64_t>(rank)),
                [&](DataMessage m) { data.put(std::move(m)); });

  const auto got = data.wait_for(sizes.size() * static_cast<size_t>(size));
  ASSERT_EQ(got.size(), sizes.size() * static_cast<size_t>(size));
  for (const DataMessage& m : got) {
    const uint64_t from = m.tag / 1000, s = m.tag % 1000;
    ASSERT_LT(s, sizes.size());
    EXPECT_EQ(m.from, WorkerId(from));
    EXPECT_EQ(m.to, WorkerId(static_cast<uint64_t>(rank)));
    EXPECT_EQ(m.payload, pattern(sizes[s], m.tag)) << "tag " << m.tag;
    EXPECT_EQ(m.error, s == 1 ? "send failed on rank " + std::to_string(from) : "");
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
                [&](DataMessage m) { data.put(std::move(m)); });
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
