// Emits the tasks of one plan: ids, dependencies, temporaries.
#pragma once

#include <utility>
#include <vector>

#include "core/ids.hpp"
#include "core/rect.hpp"
#include "planner/dependency_tracker.hpp"
#include "planner/plan.hpp"
#include "planner/task.hpp"
#include "planner/task_frontier.hpp"

namespace lightning::planner {

/// Where a chunk lives and what it holds: enough to move data into or out of it.
struct ChunkRef {
  ChunkId id;
  WorkerId worker;
  Rect box;
};

/// Appends tasks to a Plan. Each task's dependencies come from the planner's
/// DependencyTracker (so they reach into earlier plans) plus any explicit ones; the worker's
/// frontier (tasks nothing depends on yet, which a fence waits for) is kept up to date.
/// Temporaries made through it are deleted by finish().
class PlanBuilder {
 public:
  PlanBuilder(Plan& plan, DependencyTracker& tracker, std::vector<TaskFrontier>& frontier,
              uint64_t& next_task, uint64_t& next_chunk, uint64_t& next_tag);

  /// Adds a task on `worker`; returns its id.
  TaskId add(WorkerId worker, TaskKind kind, const std::vector<TaskId>& extra_deps = {});

  /// Creates a temporary chunk (CreateChunk task), deleted by finish().
  ChunkRef create_temporary(ArrayId array, const Rect& box, DeviceId device, WorkerId worker,
                            DataType type, uint32_t element_size);
  /// A fresh Send/Recv tag.
  uint64_t next_tag() { return next_tag_++; }
  /// A fresh chunk id (for an array's chunks).
  ChunkId next_chunk() { return ChunkId(next_chunk_++); }
  /// Reserves `n` consecutive chunk ids (or tags); returns the first.
  uint64_t reserve_chunks(uint64_t n) { return (next_chunk_ += n) - n; }
  uint64_t reserve_tags(uint64_t n) { return (next_tag_ += n) - n; }
  /// Forgets a deleted chunk in the dependency tracker.
  void forget(ChunkId chunk) { tracker_.forget(chunk); }

  /// The explicit dependencies given to add(), by task (for recording plan templates).
  const std::vector<std::pair<TaskId, std::vector<TaskId>>>& explicit_deps() const {
    return explicit_log_;
  }

  /// Moves `region` from `src` into `dst`: a Copy on one worker, a Send/Recv pair between two.
  void transfer(const ChunkRef& src, const ChunkRef& dst, const Rect& region);

  /// Deletes the temporaries (after every use recorded so far), listing the deletions in the
  /// plan's temporary_deletions.
  void finish();

  Plan& plan() { return plan_; }

 private:
  Plan& plan_;
  DependencyTracker& tracker_;
  std::vector<TaskFrontier>& frontier_;
  uint64_t& next_task_;
  uint64_t& next_chunk_;
  uint64_t& next_tag_;
  std::vector<ChunkRef> temporaries_;
  std::vector<std::pair<TaskId, std::vector<TaskId>>> explicit_log_;
  std::vector<TaskId> deps_;  // scratch, reused across add() calls
};

}  // namespace lightning::planner
