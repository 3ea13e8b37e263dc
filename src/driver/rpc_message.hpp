// The RPC between the driver (rank 0) and the worker ranks of an MPI run: what each control
// message says. Encoded by wire_format.hpp; carried by comm::MpiTransport.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/config.hpp"
#include "core/ids.hpp"
#include "planner/task.hpp"
#include "planner/task_failure.hpp"
#include "worker/fragment_context.hpp"
#include "worker/memory_manager.hpp"

namespace lightning::driver::rpc {

/// Driver → every worker rank: a Driver starts. The settings are the driver's; each rank
/// answers with the devices it contributes (DevicesOffered).
struct OpenSession {
  uint64_t session = 0;
  Config config;
};

/// Worker rank → driver: how many devices this rank drives under the session's settings, or
/// why it cannot take part.
struct DevicesOffered {
  uint64_t session = 0;
  int count = 0;
  bool gpus = false;  ///< GPUs, else emulated host devices
  std::string error;
};

/// Driver → worker rank: start the rank's worker on these devices (global numbering).
struct StartWorker {
  uint64_t session = 0;
  std::vector<DeviceId> devices;
  uint64_t device_bytes = 0;  ///< memory cap of each device
};

/// Worker rank → driver: the worker runs, or why it could not start.
struct WorkerStarted {
  std::string error;
};

/// Driver → worker rank: a fragment of a plan, with the launches its tasks name (a worker
/// rank never sees host buffers: the planner routes host reads and writes through worker 0).
struct SubmitFragment {
  std::vector<planner::Task> tasks;
  /// Shared with the driver's own fragment context (sending copies nothing) and, decoded, with
  /// the worker's.
  std::vector<std::pair<LaunchId, std::shared_ptr<const worker::LaunchData>>> launches;
  /// Launches named instead of sent again, their data equal to that of the last launch this
  /// rank was told of (in full or as a repeat itself): (launch, that last launch). A loop of
  /// launches of one kernel sends its functor's bytes, extents and name once. After `launches`, in
  /// order.
  std::vector<std::pair<LaunchId, LaunchId>> repeated;
};

/// The launch a worker rank was told of last, and its data, as both ends of the wire keep it
/// for SubmitFragment::repeated.
struct LastLaunch {
  LaunchId id;
  std::shared_ptr<const worker::LaunchData> data;
};

/// One task finished; `failure` is empty on success (an invalid task id with a failure: the
/// worker itself failed).
struct TaskCompleted {
  TaskId task;
  std::optional<planner::TaskFailure> failure;
};

/// Worker rank → driver: the tasks that finished in one burst of the worker's scheduler, in the
/// order they finished (one message for all: a busy worker finishes several per burst).
struct TasksCompleted {
  std::vector<TaskCompleted> tasks;
};

/// Driver → worker rank: send a MemoryReported.
struct ReportMemory {};

/// Worker rank → driver: the worker's Worker::MemoryReport.
struct MemoryReported {
  uint64_t device_bytes = 0;
  uint64_t host_bytes = 0;
  uint64_t spill_files = 0;
  uint64_t chunks = 0;
  worker::MemoryCounters counters;
};

/// Driver → worker rank: the Driver ends (after a fence); stop the worker, write its trace.
struct CloseSession {};

/// Worker rank → driver: the worker has stopped.
struct SessionClosed {
  std::string error;  ///< e.g. the trace file could not be written
};

/// Driver → worker rank: the run is over; serve() returns.
struct EndRun {};

/// Any control message.
using Message =
    std::variant<OpenSession, DevicesOffered, StartWorker, WorkerStarted, SubmitFragment,
                 TasksCompleted, ReportMemory, MemoryReported, CloseSession, SessionClosed, EndRun>;

}  // namespace lightning::driver::rpc
