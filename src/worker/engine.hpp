// An engine: jobs in, completions out. One class serves every engine of a worker: a host
// device's compute threads, its copy engine, the worker's host copy engine, a GPU's threads.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "worker/thread_pool.hpp"

namespace lightning::worker {

/// When an operation ran, for traces: from its start on the device's engine to its end (on a
/// GPU, from its submission to the callback that reports its end).
struct OpSpan {
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;
};

/// Runs jobs on its own named thread pool and reports each job's end, and when it ran,
/// through a callback.
///
/// `done` runs on the engine's thread right after its job, with nullptr when the job
/// returned and the exception when it threw (the engine never lets an exception escape), and
/// the job's span. `done` itself must not throw (std::terminate, see ThreadPool). Jobs start
/// in submission order; with more than one thread they run concurrently and may finish in any
/// order.
///
/// execute() allocates nothing of its own once warm: a job and its callback go into an item
/// the engine reuses. The functions of a finished job are destroyed when its item is reused,
/// by the thread submitting then (usually the one that made them, which keeps the allocator's
/// per-thread caches working). Only kKeptFunctions finished items keep their functions (and
/// what these hold) that way, until the item is reused or the engine is destroyed; the engine
/// destroys those of any other finished job at once.
///
/// Destruction waits for every submitted job and its `done`; whatever `done` touches must
/// outlive the engine.
class Engine {
 public:
  using Job = std::function<void()>;
  using Done = std::function<void(std::exception_ptr error, OpSpan span)>;

  /// `name` names the threads and, by convention, the trace track ("D0 compute", "D0 copy",
  /// "W0 host copy"). `threads` >= 1. Its threads wait for jobs as `wait` (null: briefly)
  /// says.
  explicit Engine(std::string name, int threads = 1, const WaitPolicy* wait = nullptr);
  ~Engine();

  /// Queues `job`; `done` (may be empty) is called when it has finished. From any thread.
  void execute(Job job, Done done);

  const std::string& name() const { return pool_.name(); }
  int threads() const { return pool_.size(); }

 private:
  struct Item {
    Job job;
    Done done;
  };
  /// Finished items whose functions are kept for their submitter to destroy.
  static constexpr size_t kKeptFunctions = 4;

  Item* take_item();
  void run(Item& item);

  std::mutex items_mutex_;
  std::vector<std::unique_ptr<Item>> items_;  // every item made (at most the jobs in flight)
  std::vector<Item*> spare_;                  // finished, ready for execute()
  ThreadPool pool_;  // last: its threads stop (and finish their jobs) before the items go
};

}  // namespace lightning::worker
