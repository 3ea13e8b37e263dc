// The tasks of one worker that nothing depends on yet: what a planned fence waits for.
#pragma once

#include <algorithm>
#include <vector>

#include "core/ids.hpp"

namespace lightning::planner {

/// The tasks of one worker that no later task depends on. Task ids are added in increasing
/// order, so a sorted vector holds them: adding appends, a task's dependencies (usually recent
/// tasks, near the end) are found by binary search. Nothing is allocated once the capacity
/// is reached: this is updated for every planned task.
class TaskFrontier {
 public:
  /// `task` is planned with `deps` (sorted, ids below `task`): they leave, it enters.
  void add(TaskId task, const std::vector<TaskId>& deps) {
    for (TaskId d : deps) {
      auto it = std::lower_bound(tasks_.begin(), tasks_.end(), d);
      if (it != tasks_.end() && *it == d) tasks_.erase(it);
    }
    tasks_.push_back(task);
  }
  /// Forgets tasks below `first_live` (known to be done).
  void retire_before(TaskId first_live) {
    tasks_.erase(tasks_.begin(), std::lower_bound(tasks_.begin(), tasks_.end(), first_live));
  }
  /// The tasks, in increasing order.
  const std::vector<TaskId>& tasks() const { return tasks_; }

 private:
  std::vector<TaskId> tasks_;
};

}  // namespace lightning::planner
