// An executor: jobs in, completions out. One class serves every engine of a worker: a host
// device's compute threads, its copy engine, the disk and network threads.
#pragma once

#include <exception>
#include <functional>
#include <string>

#include "backend/host/thread_pool.hpp"

namespace lightning::host {

/// Runs jobs on its own named thread pool and reports each job's end through a callback.
///
/// `done` runs on the executor's thread right after its job, with nullptr when the job
/// returned and the exception when it threw (the executor never lets an exception escape).
/// `done` itself must not throw (std::terminate, see ThreadPool). Jobs start in submission
/// order; with more than one thread they run concurrently and may finish in any order.
///
/// Destruction waits for every submitted job and its `done`; whatever `done` touches must
/// outlive the executor.
class Executor {
 public:
  using Job = std::function<void()>;
  using Done = std::function<void(std::exception_ptr)>;

  /// `name` names the threads and, by convention, the trace track ("D0 compute", "D0 copy",
  /// "disk", "network"). `threads` >= 1.
  explicit Executor(std::string name, int threads = 1);

  /// Queues `job`; `done` (may be empty) is called when it has finished.
  void execute(Job job, Done done);

  const std::string& name() const { return pool_.name(); }
  int threads() const { return pool_.size(); }

 private:
  ThreadPool pool_;
};

}  // namespace lightning::host
