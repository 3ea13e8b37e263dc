// What the planner returns for one request: one DAG fragment per worker.
#pragma once

#include <vector>

#include "core/ids.hpp"
#include "planner/task.hpp"

namespace lightning::planner {

/// The tasks of one request, per worker, each fragment in creation order (a topological
/// order: a task's dependencies come before it, or were in earlier plans).
struct Plan {
  LaunchId request;
  std::vector<std::vector<Task>> fragments;  ///< indexed by worker
  /// The tasks the driver must see complete before the request's effects are visible to the
  /// application: host reads, the scalar result, the barriers of a fence. Empty for requests
  /// that need no waiting.
  std::vector<TaskId> completion;
  /// The deletions of the request's temporaries (a reduction's partial, a staging copy):
  /// they free memory that no later task and nothing the application holds refers to, so a
  /// fence need not wait for them.
  std::vector<TaskId> temporary_deletions;

  const std::vector<Task>& fragment(WorkerId w) const { return fragments[w.value()]; }
  /// Number of tasks over all workers.
  size_t task_count() const {
    size_t n = 0;
    for (const auto& f : fragments) n += f.size();
    return n;
  }
};

}  // namespace lightning::planner
