// How a thread that has nothing to do waits for what comes next: the runtime's threads for
// their next message or job, the program's thread for a task it waits on.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace lightning {

/// Before a waiting thread goes to sleep it polls (yielding its core): for kShortPoll always,
/// since the messages of a chain of small tasks follow one another within microseconds and
/// a sleep and a wake-up cost more (two system calls and a reschedule on each side; tens of
/// microseconds more for a core that has idled, as in a virtual machine); and for as long as a
/// GPU of the process runs operations the runtime gave it, up to `gpu_poll`, since each
/// thread a launch or a reduction's value passes through would otherwise sleep through the
/// kernel and be woken after it, one wake-up after another (a 1.4 ms team reduction on an
/// H100 returned its value 18-65% later than the same kernel launched natively, 5-7% with
/// polling). CUDA's own default does the same for a host thread waiting for a GPU. A wait
/// also polls for kAfterGpu after the GPU's last operation ended (at most `gpu_poll`): the
/// program's next launch follows its last reduction's value within microseconds, and each
/// thread it passes through would otherwise have gone to sleep the moment the GPU went idle.
///
/// One per process, shared by the threads on a launch's path (the program's waits, the
/// worker's scheduler and staging threads, each GPU's compute thread and compute waiter);
/// GPUs count their launches (and what runs behind them) in and out, not their copies, which
/// are long or not what a program waits for. Thread-safe.
class WaitPolicy {
 public:
  using Clock = std::chrono::steady_clock;

  /// How long every wait polls before it sleeps.
  static constexpr std::chrono::microseconds kShortPoll{50};
  /// How long a wait goes on polling after the GPU's last operation ended (at most gpu_poll).
  static constexpr std::chrono::microseconds kAfterGpu{1000};

  /// `gpu_poll`: how long a wait keeps polling while a GPU works (0: kShortPoll only).
  explicit WaitPolicy(std::chrono::microseconds gpu_poll = {})
      : gpu_poll_(gpu_poll), after_gpu_(std::min(gpu_poll, kAfterGpu)) {}
  WaitPolicy(const WaitPolicy&) = delete;
  WaitPolicy& operator=(const WaitPolicy&) = delete;

  /// A GPU operation was issued / has been reported done (one each per operation).
  void gpu_operation_started() { gpu_operations_.fetch_add(1, std::memory_order_relaxed); }
  void gpu_operation_ended() {
    last_gpu_end_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
    gpu_operations_.fetch_sub(1, std::memory_order_relaxed);
  }
  /// GPU operations issued and not yet reported done.
  int64_t gpu_operations() const { return gpu_operations_.load(std::memory_order_relaxed); }
  /// Whether a wait at `now` polls on for the GPU: one works, or its last operation ended
  /// less than kAfterGpu (at most gpu_poll) ago.
  bool gpu_busy_or_just_idle(Clock::time_point now) const {
    if (gpu_operations() > 0) return true;
    const Clock::duration since_last_end =
        now.time_since_epoch() - Clock::duration(last_gpu_end_.load(std::memory_order_relaxed));
    return since_last_end < after_gpu_;
  }

  /// Calls `ready` until it returns true, yielding the core between calls, for as long as
  /// the policy `policy` (null: kShortPoll only) says a wait polls. Returns whether `ready`
  /// became true; false: the caller should sleep.
  template <class Ready>
  static bool poll(const WaitPolicy* policy, const Ready& ready) {
    if (ready()) return true;
    const auto start = Clock::now();
    for (;;) {
      std::this_thread::yield();
      if (ready()) return true;
      const auto now = Clock::now();
      const auto waited = now - start;
      if (waited < kShortPoll) continue;
      if (!policy || waited >= policy->gpu_poll_ || !policy->gpu_busy_or_just_idle(now))
        return false;
    }
  }

 private:
  const std::chrono::microseconds gpu_poll_;
  const std::chrono::microseconds after_gpu_;
  std::atomic<int64_t> gpu_operations_{0};
  /// When the last GPU operation ended (Clock ticks since its epoch; 0: none yet, long ago).
  std::atomic<Clock::rep> last_gpu_end_{0};
};

/// Counts one GPU operation for a WaitPolicy (null: none) from construction to destruction.
class GpuOperationCount {
 public:
  explicit GpuOperationCount(WaitPolicy* policy) : policy_(policy) {
    if (policy_) policy_->gpu_operation_started();
  }
  ~GpuOperationCount() {
    if (policy_) policy_->gpu_operation_ended();
  }
  GpuOperationCount(const GpuOperationCount&) = delete;
  GpuOperationCount& operator=(const GpuOperationCount&) = delete;

 private:
  WaitPolicy* policy_;
};

}  // namespace lightning
