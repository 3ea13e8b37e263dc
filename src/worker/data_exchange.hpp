// The worker's side of the Send/Recv protocol between workers.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "comm/transport.hpp"
#include "core/ids.hpp"
#include "core/rect.hpp"
#include "planner/task.hpp"
#include "planner/task_failure.hpp"
#include "worker/device.hpp"

namespace lightning::worker {

/// Runs a worker's Send and Recv tasks over a Transport and keeps what the protocol owes:
/// messages that arrived before their Recv ran, payloads announced and on their way, the empty
/// message a failed Send still sends (so its Recv is skipped rather than waiting forever), the
/// announced payload a skipped Recv still takes (so its Send finishes).
///
/// A Send lends the transport the chunk's bytes when they lie in host-addressable memory as one
/// block, and is done once they are sent; otherwise it packs them into a payload of its own. A
/// Recv whose payload arrived whole unpacks it; one the transport announced is received
/// straight into the chunk where it can be, otherwise into a buffer of the transport's, then
/// unpacked.
///
/// Single-threaded: every call comes from the worker's scheduler thread.
class DataExchange {
 public:
  /// What the exchange asks of its worker (a test fakes it).
  class Port {
   public:
    virtual ~Port() = default;
    /// Runs `job` on the host over `accesses`, on the engine that serves the task's data, and
    /// reports the task's end.
    virtual void run_on_host(const planner::Task& task, std::vector<HostAccess> accesses,
                             Device::HostJob job) = 0;
    /// What reports the task's end (null error: success) to the scheduler thread.
    virtual Device::Done finished(const planner::Task& task) = 0;
    /// The bytes of `region` in `buffer`, where the host can use them in place as one block;
    /// null otherwise.
    virtual void* block_in_place(const PlacedBuffer& buffer, const Rect& region) const = 0;
    /// Hands a receive's end (from a transport thread) to the scheduler thread, which gives it
    /// back through DataExchange::received.
    virtual void post_received(TaskId task, comm::Payload payload, std::string error) = 0;
  };

  DataExchange(WorkerId self, comm::Transport& transport, Port& port);

  /// A message for this worker arrived.
  void arrived(comm::DataMessage message);
  /// Runs a Send whose source is `src`.
  void send(const planner::Task& task, const planner::SendTask& send, const PlacedBuffer& src);
  /// Runs a Recv (its message has arrived) into `dst`.
  void recv(const planner::Task& task, const planner::RecvTask& recv, const PlacedBuffer& dst);
  /// An announced payload's receive ended (see Port::post_received).
  void received(TaskId task, comm::Payload payload, const std::string& error);
  /// A task is done or was skipped: settles what the protocol still owes for it.
  void ended(const planner::Task& task, const std::optional<planner::TaskFailure>& failure);

  /// Messages that arrived and whose Recv has not run.
  size_t waiting_messages() const { return messages_.size(); }

 private:
  struct Receiving {  // a Recv whose announced payload is on its way
    planner::Task task;
    PlacedBuffer dst;
    size_t size = 0;  // announced bytes
    std::chrono::steady_clock::time_point start;
  };

  void unpack(const planner::Task& task, const PlacedBuffer& dst,
              std::shared_ptr<comm::Payload> payload);

  WorkerId self_;
  comm::Transport& transport_;
  Port& port_;
  std::unordered_map<uint64_t, comm::DataMessage> messages_;  // by tag: arrived, Recv not run
  std::unordered_map<TaskId, Receiving> receiving_;
};

}  // namespace lightning::worker
