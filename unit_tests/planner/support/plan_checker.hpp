// Structural checks of plans, with state across plans: what must hold whatever the data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/ids.hpp"
#include "core/rect.hpp"
#include "distribution/device_set.hpp"
#include "planner/plan.hpp"
#include "planner/task.hpp"

namespace lightning::planner::testing {

/// Checks every plan of one planner, in order, and remembers what it needs to check the next
/// ones (tasks, chunks, reachability), so dependencies and conflicts across plans are checked
/// too. Each violation is an ADD_FAILURE naming the task(s):
/// - fragments: one per worker, each task on its fragment's worker, ids unique;
/// - `deps` name earlier tasks (an earlier plan, or earlier in the fragment) of the same
///   worker; `accesses` equal accesses_of(kind);
/// - every access names a chunk that exists at that point (created before, not deleted) on
///   the task's worker, with a region inside the chunk's box as created; Execute bindings too,
///   each naming the array its chunk holds part of;
///   CreateChunk of a chunk that exists, DeleteChunk of a box other than the created one;
/// - devices named by CreateChunk and Execute belong to the task's worker;
/// - every temporary created by a plan is deleted by the same plan;
/// - every Send has exactly one Recv with its tag (tags never reused) in the same plan, with
///   the same region, on the worker it names, naming the sender as `from`; host buffers are
///   touched only on worker 0 (the driver); a plan's Send/Recv pairs form no cycle;
/// - `completion` names tasks of the plan, waits for every task that writes a host buffer
///   (HostRead, Recv into a host buffer), and holds the Barriers, each after every task of its
///   worker so far;
/// - no two tasks that may run concurrently (neither reaches the other through deps and
///   Send->Recv edges, over all plans so far) touch intersecting regions of one chunk where
///   one of them writes.
class PlanChecker {
 public:
  /// `elem_size(array)` gives the element size of an array, to check CreateChunk::bytes
  /// (nullptr: not checked).
  explicit PlanChecker(DeviceSet devices, std::function<size_t(ArrayId)> elem_size = nullptr);

  /// Checks `plan`; returns the number of violations found in it.
  size_t check(const Plan& plan);
  /// Text put before every failure message (e.g. the case being replayed).
  void set_context(std::string context) { context_ = std::move(context); }

  /// Mirrors Planner::retire_before: tasks below `first_live` are known to be done, so they
  /// count as ordered before every later task (no dependency on them is needed any more).
  void retire_before(TaskId first_live) { retired_below_ = first_live.value(); }

  /// Chunks that exist after the plans checked so far.
  size_t live_chunks() const { return chunks_.size(); }
  size_t checked_tasks() const { return tasks_.size(); }
  /// Whether `a` happens before `b` (both checked; through deps and Send->Recv edges).
  bool reaches(TaskId a, TaskId b) const;

 private:
  struct TaskInfo {
    size_t order = 0;  // position in a topological order over all checked tasks
    WorkerId worker;
    std::string description;
    std::vector<ChunkAccess> accesses;
    std::vector<uint64_t> ancestors;  // bitset over `order`
  };
  struct ChunkInfo {
    WorkerId worker;
    Rect box;
    bool temporary = false;
    uint64_t plan = 0;
    ArrayId array;  ///< the array it holds part of (invalid for scalar partials)
  };
  struct AccessRecord {
    TaskId task;
    Rect region;
    bool writes = false;
  };

  void fail(const std::string& message);
  bool ancestor(const TaskInfo& of, size_t order) const;

  DeviceSet devices_;
  std::function<size_t(ArrayId)> elem_size_;
  std::unordered_map<TaskId, TaskInfo> tasks_;
  std::unordered_map<ChunkId, ChunkInfo> chunks_;
  std::unordered_set<ChunkId> ever_created_;
  std::unordered_map<ChunkId, std::vector<AccessRecord>> chunk_accesses_;
  std::unordered_set<uint64_t> tags_;
  uint64_t plans_ = 0;
  uint64_t retired_below_ = 0;
  size_t next_order_ = 0;
  size_t violations_ = 0;
  size_t printed_ = 0;
  std::string context_;
};

}  // namespace lightning::planner::testing
