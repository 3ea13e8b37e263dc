// A named pool of worker threads owned by one object: no global state.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/ring_queue.hpp"
#include "core/wait_policy.hpp"

namespace lightning::worker {

/// Runs submitted jobs on `threads` threads, in submission order (first in, first started).
///
/// Threads are named for debuggers and profilers (pthread_setname_np, at most 15 characters):
/// "<name>" for a pool of one thread, "<name>#<i>" otherwise, the name shortened to fit.
///
/// Exceptions: a job must not throw. An exception escaping a job is a bug in the caller; the
/// pool prints the pool's name and the exception's what() to stderr and calls std::terminate
/// (as std::thread does). Code that must survive failures catches in the job: Engine does,
/// and hands the exception to its completion callback.
///
/// Destruction finishes every queued job, including jobs that running jobs submit meanwhile,
/// then joins the threads. submit() may be called from any thread, jobs included, until the
/// destructor has begun (afterwards only from jobs of this pool). A pool must not be destroyed
/// by one of its own jobs (it would join its own thread).
class ThreadPool {
 public:
  /// Starts `threads` threads (at least 1; Error(kInvalidArgument) otherwise). A thread out
  /// of jobs polls for the next as `wait` (null: briefly) says before it sleeps.
  ThreadPool(std::string name, int threads, const WaitPolicy* wait = nullptr);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Queues a job; it runs on one of the pool's threads. An empty job: Error(kInvalidArgument).
  void submit(std::function<void()> job);

  const std::string& name() const { return name_; }
  int size() const { return count_; }

 private:
  void run(int index);

  std::string name_;
  int count_;
  const WaitPolicy* wait_;
  std::mutex mutex_;
  std::condition_variable wake_;
  RingQueue<std::function<void()>> queue_;
  std::atomic<size_t> queued_{0};      // queue_.size(), read without the lock while spinning
  std::atomic<bool> stopping_{false};  // set under mutex_; read without it while polling
  std::vector<std::thread> threads_;   // last: started once everything above exists
};

/// Names the calling thread for debuggers and profilers (shortened to the system's 15
/// characters): the runtime's threads outside pools name themselves with it.
void name_current_thread(const std::string& name);

/// The name of the calling thread as the system knows it (what a pool named it; for tests
/// and messages).
std::string current_thread_name();

}  // namespace lightning::worker
