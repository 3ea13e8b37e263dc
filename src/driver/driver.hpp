// The driver: the application's side of the runtime. Plans requests and hands the fragments
// to the workers; waits where the application must (host reads, scalar results, fences).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "annotation/annotation_cache.hpp"
#include "core/config.hpp"
#include "core/ids.hpp"
#include "distribution/data_distribution.hpp"
#include "distribution/work_distribution.hpp"
#include "driver/cluster.hpp"
#include "driver/launch.hpp"
#include "driver/task_error.hpp"
#include "driver/worker_group.hpp"
#include "planner/planner.hpp"
#include "planner/task_failure.hpp"
#include "worker/fragment_context.hpp"
#include "worker/worker.hpp"

namespace lightning::driver {

/// Runs requests on a WorkerGroup: the workers of this process (in-process mode), or one
/// worker per rank of an MPI run (on rank 0; see Cluster and join()).
///
/// Launches, fills, writes and deletes return at once and run in order of their data; reads,
/// scalar reductions and fence() wait. A task that fails makes the next fence(), read() or
/// reduction throw an Error naming the kernel and superblock (or the task), of the kind of the
/// underlying error: kTask for a kernel's own exception, kOutOfMemory, kCuda, ... (see
/// task_error); the runtime stays usable.
class Driver final {
 public:
  /// `workers` workers in this process (each with Config::devices's devices), joined by an
  /// in-process transport. Throws Error(kConfig) for devices this build cannot drive.
  explicit Driver(const Config& config, int workers = 1);
  /// One worker per rank of `cluster` (this process is rank 0 and worker 0): each rank
  /// contributes the devices it drives under `config`, numbered rank by rank. Throws
  /// Error(kConfig) naming a rank that cannot take part, Error(kCommunication) for one lost.
  Driver(const Config& config, std::shared_ptr<Cluster> cluster);
  /// Runs on `workers` (either of the above, or a group of a test's own).
  Driver(const Config& config, std::unique_ptr<WorkerGroup> workers);
  /// Fences, then stops every worker (worker ranks go back to serving).
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  const DeviceSet& devices() const { return planner_.devices(); }
  /// Whether every device of the run is a GPU.
  bool gpus_only() const { return workers_->gpus_only(); }

  /// `axes_reversed`: the program indexes the array's axes in reverse order (a LayoutLeft
  /// View), for messages.
  ArrayId create_array(const std::string& name, DataType type, const Point& extent,
                       const DataDistribution& distribution, bool axes_reversed = false);
  /// Frees the array once every task using it has run.
  void delete_array(ArrayId array);
  /// Sets `region` to `value` (one element's bytes).
  void fill(ArrayId array, const Rect& region, const void* value);
  /// Copies `host` (`region`, row-major) into the array; returns when `host` may be reused.
  void write(ArrayId array, const Rect& region, const void* host);
  /// Copies `region` (row-major) into `host`; returns when it is there.
  void read(ArrayId array, const Rect& region, void* host);
  /// Launches a kernel; returns at once, except for reductions, which wait for the value.
  void launch(const Launch& launch);
  /// Waits for everything submitted so far that the program can tell apart from done: every
  /// task but the deletions of launches' temporaries (a reduction's partial), which free
  /// memory nothing refers to any more and go on behind the fence (Kokkos fences after each
  /// value a parallel_reduce returns: waiting for that deletion was a round trip per value).
  /// Throws the first task error since the last one.
  void fence();

  /// Number of arrays alive (for tests).
  size_t array_count() const { return arrays_.size(); }
  /// Memory in use, spill files and counters of every worker, once every task submitted has
  /// ended, the temporaries' deletions too (waits for the workers' staging threads): for
  /// tests and diagnostics.
  std::vector<worker::Worker::MemoryReport> memory_reports();
  /// The planner's cache counters.
  planner::PlanCacheStats plan_cache_stats() const { return planner_.cache_stats(); }

 private:
  struct ArrayInfo {
    std::string name;
    DataType type;
    Point extent;
    bool axes_reversed = false;
  };

  void on_lost(const std::string& reason);
  /// Hands each fragment of `plan` to its worker, with `context`; returns the plan's
  /// completion tasks (what a wait_for waits for).
  std::vector<TaskId> submit(planner::Plan plan, worker::FragmentContext context);
  void wait_for(const std::vector<TaskId>& tasks);
  /// Waits until every task submitted has ended, the temporaries' deletions too (before the
  /// workers stop, and for memory reports).
  void drain();
  /// Returns (holding `lock` on mutex_) once `done()` holds: polls while the workers' wait
  /// policy says (a GPU works), then sleeps until a completion it waits for wakes it.
  template <class Done>
  void wait_until(std::unique_lock<std::mutex>& lock, const Done& done);
  /// Waits for the tasks that deliver a value the program waits for (a reduction's, a read's)
  /// and reports failures; after a failure it first waits for everything, as a fence.
  void wait_for_value(const std::vector<TaskId>& tasks);
  void on_completed(TaskId task, std::optional<planner::TaskFailure> failure);
  void throw_pending_error();
  // Regions a failed or skipped kernel run left invalid ("poisoned"): reads of them, and
  // launches that read their arrays, are refused until they are overwritten.
  void poison(const std::vector<planner::TaskFailure>& failures);
  void refuse_if_poisoned(ArrayId array, const Rect& region, const std::string& use) const;
  void overwritten(ArrayId array, const Rect& region);
  void renew_written(const planner::Plan& plan);
  // Checked mode: the names of `launch`'s parameters and Views, kept until its tasks ended.
  void remember_names(LaunchId launch, const Launch& l, const kernel::KernelDescription& described,
                      const annotation::BoundAnnotation& bound);
  planner::HostBufferId next_buffer() { return planner::HostBufferId{next_buffer_++}; }
  /// Records on the trace's "program" track (when tracing) a span from `start` until now of
  /// the program's thread, called `name()` (called only when tracing).
  template <class Name>
  void trace_program(const Name& name, worker::TraceWriter::Clock::time_point start) const {
    if (trace_) trace_->record(program_track_, name(), start, worker::TraceWriter::Clock::now());
  }
  /// Now, where the program's spans are traced (else a constant: no clock read).
  worker::TraceWriter::Clock::time_point trace_now() const {
    return trace_ ? worker::TraceWriter::Clock::now() : worker::TraceWriter::Clock::time_point();
  }

  std::unique_ptr<WorkerGroup> workers_;  // declared first: stopped in the destructor's body
  worker::TraceWriter* trace_ = nullptr;  // the workers', while tracing
  int program_track_ = -1;
  Config config_;
  planner::Planner planner_;
  annotation::AnnotationCache annotations_;
  // The program thread's last decoded launch, its storage reused by the next one; and the
  // launch data the workers were given last, given again (not copied) to a launch whose
  // data is the same, as a loop's launches are.
  planner::LaunchRequest decoded_request_;
  worker::LaunchData decoded_data_;
  std::shared_ptr<const worker::LaunchData> last_launch_data_;
  std::unordered_map<ArrayId, ArrayInfo> arrays_;
  std::unordered_map<LaunchId, LaunchNames> launch_names_;  // checked mode only
  struct Poison {
    Rect region;
    std::string why;  // the failed launch, in words
  };
  std::unordered_map<ArrayId, std::vector<Poison>> poisoned_;
  uint64_t next_buffer_ = 1;

  // Completions from the workers' threads.
  std::mutex mutex_;
  std::condition_variable completed_;
  std::atomic<uint64_t> wakes_{0};      // completions that woke a wait (set under mutex_), polled
  std::unordered_set<TaskId> waiting_;  // tasks someone waits for, not yet completed
  // Those a wait_for call is blocked on, with how many calls: only their ends wake it (a
  // fence behind a chain of launches would otherwise wake at every launch's end).
  std::unordered_map<TaskId, int> awaited_;
  int fencing_ = 0;  // fence() and drain() calls waiting for outstanding_ to reach zero
  std::vector<planner::TaskFailure> failures_;  // not yet reported, in arrival order
  // Why the run cannot go on (every wait throws it): a rank was lost, or a worker failed
  // itself (a broken invariant: its tasks may never end).
  std::optional<Error> stopped_;
  uint64_t outstanding_ = 0;  // tasks submitted, not yet completed, but for those below
  // Deletions of launches' temporaries submitted, not yet completed: a fence does not wait
  // for them, drain() does.
  std::unordered_set<TaskId> deleting_temporaries_;
};

}  // namespace lightning::driver
