// A communicator and a clock that the tests drive by hand: the transport's protocols are
// tested in one process, without MPI and without waiting for real time.
#pragma once

#include <chrono>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "comm/clock.hpp"
#include "comm/communicator.hpp"

namespace lightning::comm::testing {

/// Time stands still until advance().
class FakeClock final : public Clock {
 public:
  time_point now() const override { return now_; }
  void advance(std::chrono::microseconds d) { now_ += d; }

 private:
  time_point now_{std::chrono::hours(1)};
};

/// Records every operation started on it; an operation completes when the test says so.
/// Request r is operations[r - 1] (0 names none).
class FakeCommunicator final : public Communicator {
 public:
  struct Operation {
    bool is_send = false;
    const void* send_data = nullptr;
    void* receive_data = nullptr;
    size_t size = 0;
    int peer = -1;
    int tag = 0;
    bool done = false;  // the next test() says so
    int tests = 0;      // test() calls on it
    int cancels = 0;
    int frees = 0;
    std::string failure;  // what the next test() returns
  };

  FakeCommunicator(int rank, int size, int tag_ub = 32767)
      : rank_(rank), size_(size), tag_ub_(tag_ub) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int tag_ub() const override { return tag_ub_; }

  std::string isend(const void* data, size_t size, int to, int tag, Request* request) override {
    if (!fail_next.empty()) return std::exchange(fail_next, {});
    Operation op;
    op.is_send = true;
    op.send_data = data;
    op.size = size;
    op.peer = to;
    op.tag = tag;
    operations.push_back(op);
    *request = operations.size();
    return {};
  }
  std::string irecv(void* data, size_t size, int from, int tag, Request* request) override {
    if (!fail_next.empty()) return std::exchange(fail_next, {});
    Operation op;
    op.receive_data = data;
    op.size = size;
    op.peer = from;
    op.tag = tag;
    operations.push_back(op);
    *request = operations.size();
    return {};
  }
  std::string test(Request* request, bool* done) override {
    Operation& op = at(*request);
    ++op.tests;
    if (!op.failure.empty()) return op.failure;
    *done = op.done;
    return {};
  }
  void cancel(Request* request) override { ++at(*request).cancels; }
  void free(Request* request) override { ++at(*request).frees; }
  bool receive_any(int /*tag*/, int* from, std::vector<uint8_t>* bytes) override {
    if (inbound.empty()) return false;
    *from = inbound.front().first;
    *bytes = std::move(inbound.front().second);
    inbound.pop_front();
    return true;
  }

  /// The bytes of receive `request` arrive: written where it receives into, and done.
  void arrive(Request request, const std::vector<uint8_t>& bytes) {
    Operation& op = at(request);
    std::memcpy(op.receive_data, bytes.data(), bytes.size());
    op.done = true;
  }
  Operation& at(Request request) { return operations.at(static_cast<size_t>(request - 1)); }

  std::vector<Operation> operations;
  std::deque<std::pair<int, std::vector<uint8_t>>> inbound;  ///< for receive_any()
  std::string fail_next;  ///< when set, the next isend() or irecv() fails with it

 private:
  int rank_;
  int size_;
  int tag_ub_;
};

}  // namespace lightning::comm::testing
