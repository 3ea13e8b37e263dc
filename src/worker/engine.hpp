// An engine: jobs in, completions out. One class serves every engine of a worker: a host
// device's compute threads, its copy engine, the worker's host copy engine.
#pragma once

#include <exception>
#include <functional>
#include <string>

#include "worker/thread_pool.hpp"

namespace lightning::worker {

/// Runs jobs on its own named thread pool and reports each job's end through a callback.
///
/// `done` runs on the engine's thread right after its job, with nullptr when the job
/// returned and the exception when it threw (the engine never lets an exception escape).
/// `done` itself must not throw (std::terminate, see ThreadPool). Jobs start in submission
/// order; with more than one thread they run concurrently and may finish in any order.
///
/// Destruction waits for every submitted job and its `done`; whatever `done` touches must
/// outlive the engine.
class Engine {
 public:
  using Job = std::function<void()>;
  using Done = std::function<void(std::exception_ptr)>;

  /// `name` names the threads and, by convention, the trace track ("D0 compute", "D0 copy",
  /// "W0 host copy"). `threads` >= 1.
  explicit Engine(std::string name, int threads = 1);

  /// Queues `job`; `done` (may be empty) is called when it has finished.
  void execute(Job job, Done done);

  const std::string& name() const { return pool_.name(); }
  int threads() const { return pool_.size(); }

 private:
  ThreadPool pool_;
};

}  // namespace lightning::worker
