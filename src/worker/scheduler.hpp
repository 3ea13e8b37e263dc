// The worker's scheduler: moves tasks Waiting -> Ready -> Staging -> Running -> Done.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ids.hpp"
#include "core/reused_nodes.hpp"
#include "planner/task.hpp"
#include "planner/task_failure.hpp"
#include "worker/chunk_table.hpp"

namespace lightning::worker {

/// What the scheduler asks of the rest of the worker. Calls come from the scheduler's own
/// thread; each must answer later through the matching Scheduler::on_* call.
class SchedulerSink {
 public:
  virtual ~SchedulerSink() = default;
  /// Materialise the task's chunks (answer: on_staged, or on_failed).
  virtual void stage(const planner::Task& task) = 0;
  /// Stage a launch behind the launches `behind` (its unfinished dependencies, staged before
  /// it and run before it on the same in-order device), only if its chunks are where it runs
  /// already (answer: on_staged, on_not_in_place or on_failed).
  virtual void stage_behind(const planner::Task& task, const std::vector<TaskId>& behind) = 0;
  /// Run a staged task (or one that needs no staging) on its executor (answer: on_ran).
  virtual void run(const planner::Task& task) = 0;
  /// Release the task's staged chunks (no answer). `ended`: the task is done with them (it ran,
  /// or is skipped); else it waits to be staged again.
  virtual void unstage(const planner::Task& task, bool ended) = 0;
  /// The task finished: `failure` is empty on success, else says what failed (the task's
  /// identity filled in). Tasks that depended on a failed task are reported without running,
  /// as failures whose `caused_by` names the failed task at the root.
  virtual void completed(const planner::Task& task,
                         const std::optional<planner::TaskFailure>& failure) = 0;
};

/// One worker's task states, as a single-threaded state machine (its owner serialises calls).
///
/// A task is Waiting until its dependencies are done (a Recv also waits for its message),
/// then Ready. Ready tasks are staged oldest first (lowest id) while the bytes staged ahead on
/// their device stay within the staging limit, and within a quarter of the device's memory
/// where that is less (kStagedShareOfMemory: the rest keeps chunks that later tasks use, which
/// the memory manager evicts last, by planned use; a device filled with chunks locked for the
/// tasks ahead could keep none); a device with fewer than kAlwaysStaged tasks
/// staged always takes one more, however large, so that a task is issued while the one before
/// it runs (a GPU then never waits for the host between two large tasks). Staged tasks run; when
/// they are done their chunks are released and their successors wake. CreateChunk, DeleteChunk and
/// Barrier tasks need no staging. A task whose dependency failed is skipped and reported failed,
/// except DeleteChunk and Barrier tasks, which run anyway (memory is freed, fences return).
///
/// Issued behind: on a device that runs its launches in issue order (one in-order queue: a
/// GPU's compute stream, a host device's single compute thread), an Execute whose unfinished
/// dependencies are all Executes already issued on that device is staged and run behind them
/// at once, without waiting for their completions to come back, if its chunks are already
/// where it runs (SchedulerSink::stage_behind); otherwise it waits for them as any task. So is
/// a small HostRead of a chunk of that device (at most kSmallRead bytes: a reduction's value),
/// which the device runs in the same queue (Device::run_on_host_behind_launches). Its
/// completion still comes after theirs; when one of them failed it is reported skipped because
/// of it, whatever it did (the device does not run it if it can still tell: KernelRun).
///
/// Staged after creations: a task whose unfinished dependencies are all CreateChunk tasks
/// already given to the staging thread is staged at once (SchedulerSink::stage) instead of
/// after their completions come back: the staging thread creates and stages in the order it is
/// asked and answers in that order, so its creations are done before it is staged (a
/// reduction's launch and its new partial chunk: one round trip to the staging thread, not
/// two). When a creation failed it is reported skipped because of it.
class Scheduler {
 public:
  /// `ordered_devices`: the devices that run their launches in issue order.
  /// `device_memory`: the devices' memory (their pools), which bounds the staging limit per
  /// device (kStagedShareOfMemory); a device not listed has only `staging_limit`.
  Scheduler(SchedulerSink& sink, uint64_t staging_limit, std::vector<DeviceId> ordered_devices = {},
            const std::vector<std::pair<DeviceId, uint64_t>>& device_memory = {});
  /// At most 1/kStagedShareOfMemory of a device's memory is staged ahead (but see
  /// kAlwaysStaged).
  static constexpr uint64_t kStagedShareOfMemory = 4;

  /// Adds a fragment (tasks in a topological order; dependencies on tasks this scheduler
  /// never saw, or saw finish successfully, count as done; on tasks that failed, make the
  /// task fail too).
  void submit(std::vector<planner::Task> tasks);
  void on_staged(TaskId task);
  /// A launch staged behind others was not: its chunks were not in place. It waits for its
  /// dependencies like any task.
  void on_not_in_place(TaskId task);
  /// Staging failed for good (e.g. out of memory): the task fails. `failure` needs only the
  /// underlying error (`error`, `what`): the scheduler fills in what the task was.
  void on_failed(TaskId task, planner::TaskFailure failure);
  /// The task ran; `failure` (as for on_failed) when it failed.
  void on_ran(TaskId task, std::optional<planner::TaskFailure> failure = std::nullopt);
  /// The message with `tag` arrived: its Recv may become ready. A message whose Send failed
  /// (or was skipped) names the failed task, `failed`: its Recv is then skipped because of it,
  /// so nothing waits forever.
  void on_message(uint64_t tag, TaskId failed = TaskId());

  /// Tasks not yet done.
  size_t pending() const { return nodes_.size(); }
  /// Bytes staged ahead on `device` (tasks staged or running).
  uint64_t staged_bytes(DeviceId device) const;
  /// The chunks of the tasks submitted, from their CreateChunk to their DeleteChunk's end.
  const ChunkTable& chunks() const { return chunks_; }

 private:
  enum class State { kWaiting, kReady, kStaging, kRunning };
  struct Node {
    planner::Task task;
    State state = State::kWaiting;
    size_t waiting_for = 0;  // unfinished dependencies (+1 while a Recv's message is missing)
    std::vector<TaskId> successors;
    TaskId failed_dependency;  // the failed task at the root of a failed dependency: skip
    DeviceId device;           // whose staging budget it uses
    uint64_t bytes = 0;
    bool issued_behind = false;    // staged behind unfinished dependencies
    bool after_creations = false;  // staged while creations it depends on were under way
  };

  /// Tasks a device may have staged whatever their size.
  static constexpr int kAlwaysStaged = 2;
  /// The largest chunk a HostRead issued behind launches reads: more would hold the device's
  /// in-order queue (and the launches after it) for the copy.
  static constexpr uint64_t kSmallRead = uint64_t{64} << 10;
  struct Staged {  // what a device has staged or running
    uint64_t bytes = 0;
    int tasks = 0;
    uint64_t limit = 0;  // staging limit of this device
  };

  bool needs_staging(const planner::Task& t) const;
  /// Whether `n` is a task an in-order device runs behind its launches: an Execute, a small
  /// HostRead.
  bool follows_launches(const Node& n) const;
  /// Whether `n` can be issued behind its unfinished dependencies (which go to `behind`; left
  /// empty when it cannot).
  bool issuable_behind(const Node& n, std::vector<TaskId>* behind = nullptr) const;
  /// Whether `n` can be staged now because its unfinished dependencies are all creations the
  /// staging thread has been given.
  bool stageable_after_creations(const Node& n) const;
  /// Whether every unfinished dependency of `n` has been given to its device.
  bool all_dependencies_running(const Node& n) const;
  /// Readies the waiting successors of `n` that can now be issued behind it or staged after
  /// it (a creation).
  void ready_successors_early(const Node& n);
  /// Whether a waiting `n` may go ahead of its unfinished dependencies.
  bool ready_early(const Node& n) const {
    return issuable_behind(n) || stageable_after_creations(n);
  }
  void unbudget(const Node& n);
  void make_ready(Node& n);
  void pump();
  void finish(Node& n, std::optional<planner::TaskFailure> failure);

  SchedulerSink& sink_;
  uint64_t staging_limit_;
  std::vector<DeviceId> ordered_devices_;
  std::unordered_map<TaskId, Node> nodes_;
  ReusedNodes<std::unordered_map<TaskId, Node>> reused_nodes_;  // a node per task, reused
  std::vector<TaskId> held_, behind_;                           // pump()'s scratch
  std::vector<TaskId> finished_successors_;                     // finish()'s scratch
  struct OlderFirst {
    bool operator()(TaskId a, TaskId b) const { return b < a; }
  };
  // Ready tasks by age; a task id is its age (ids grow with planning order).
  std::priority_queue<TaskId, std::vector<TaskId>, OlderFirst> ready_;
  // Messages whose Recv is not here yet, with the failed task a failed Send names.
  std::unordered_map<uint64_t, TaskId> arrived_tags_;
  std::unordered_map<uint64_t, TaskId> recv_of_tag_;  // Recvs still missing their message
  ChunkTable chunks_;
  std::map<uint64_t, Staged> staged_;  // by device
  // Tasks that failed or were skipped, with the failed task at the root: a fragment submitted
  // later may still depend on them (failures are rare, so this stays small).
  std::unordered_map<TaskId, TaskId> failed_;
};

}  // namespace lightning::worker
