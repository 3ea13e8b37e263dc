// The workers a driver runs requests on, behind one interface: the workers of this process,
// or one worker per rank of an MPI run (worker 0 in this process, the others on their ranks).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/ids.hpp"
#include "distribution/device_set.hpp"
#include "driver/cluster.hpp"
#include "planner/task.hpp"
#include "planner/task_failure.hpp"
#include "worker/fragment_context.hpp"
#include "worker/worker.hpp"

namespace lightning::driver {

/// What a driver hears from its workers, from any thread.
struct WorkerEvents {
  /// A task finished; `failure` is empty on success (over MPI, with the rank it ran on).
  std::function<void(TaskId task, std::optional<planner::TaskFailure> failure)> completed;
  /// A rank was lost: the run cannot go on.
  std::function<void(const std::string& reason)> lost;
};

/// The workers of a run. The driver plans for devices(), starts the workers once, hands each
/// its fragments, and stops them after its last fence.
class WorkerGroup {
 public:
  virtual ~WorkerGroup() = default;

  /// Every device of the run, numbered worker by worker.
  virtual const DeviceSet& devices() const = 0;
  /// Whether every device of the run is a GPU (what `Kokkos::AUTO` team sizes follow).
  virtual bool gpus_only() const { return false; }
  /// How the program's thread waits for tasks: the policy this process's workers and GPUs
  /// share (null: poll briefly, then sleep).
  virtual const WaitPolicy* wait_policy() const { return nullptr; }
  /// The trace this process's workers record in (null: not tracing); valid from start() to
  /// stop(). The driver adds the program's own spans to it.
  virtual worker::TraceWriter* trace() const { return nullptr; }
  /// Starts the workers; from then on their completions and losses go to `events`. Throws
  /// Error(kConfig) naming a worker that cannot start.
  virtual void start(WorkerEvents events) = 0;
  /// Hands worker `worker` a fragment and what its tasks refer to.
  virtual void submit(WorkerId worker, std::vector<planner::Task> tasks,
                      const std::shared_ptr<const worker::FragmentContext>& context) = 0;
  /// Memory statistics of every worker, in worker order (waits for them).
  virtual std::vector<worker::Worker::MemoryReport> memory_reports() = 0;
  /// Stops every worker (worker ranks go back to serving) and writes the trace. Nothing may be
  /// in flight: the driver fences first.
  virtual void stop() = 0;
  /// "2 worker(s)", "3 ranks": for the log.
  virtual std::string describe() const = 0;
};

/// `workers` workers in this process (each with Config::devices's devices), joined by an
/// in-process transport. Throws Error(kConfig) for devices this build cannot drive.
std::unique_ptr<WorkerGroup> local_workers(const Config& config, int workers);

/// Worker 0 in this process (rank 0) and one worker per other rank of `cluster`, each with the
/// devices it drives under `config`: opens a session on every worker rank. Throws
/// Error(kConfig) naming a rank that cannot take part, Error(kCommunication) for one lost.
std::unique_ptr<WorkerGroup> cluster_workers(const Config& config,
                                             std::shared_ptr<Cluster> cluster);

}  // namespace lightning::driver
