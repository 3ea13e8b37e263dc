// A fluent query over the tasks of plans, for hand-written graph tests (after Celerity's
// instruction_graph_test_utils): a test reads like the property it checks.
//
//   PlanQuery q(plan);                       // or PlanQuery q({&plan1, &plan2})
//   auto halo = q.select_all(kind<RecvTask>(), on_worker(WorkerId(1)));
//   auto kernels = q.select_all(kind<ExecuteTask>(), of_launch(plan.request));
//   EXPECT_EQ(kernels.count(), 2u);
//   EXPECT_TRUE(kernels.all_concurrent());
//   EXPECT_TRUE(halo.precedes(kernels.select(on_worker(WorkerId(1)))));
//   const Task& copy = q.select_unique(kind<CopyTask>(), writes_to(chunk));
//
// Edges are a task's `deps` and, across workers, each Send -> the Recv with its tag: the
// happens-before order of the runtime. Tasks of plans not given to the query are unknown
// (dependencies on them are ignored).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ids.hpp"
#include "core/rect.hpp"
#include "planner/plan.hpp"
#include "planner/task.hpp"

namespace lightning::planner::testing {

/// A predicate over tasks; the filters below build the common ones.
using TaskFilter = std::function<bool(const Task&)>;

/// Tasks of kind K (ExecuteTask, CopyTask, ...).
template <class K>
TaskFilter kind() {
  return [](const Task& t) { return std::holds_alternative<K>(t.kind); };
}
TaskFilter on_worker(WorkerId w);
/// Execute and CreateChunk tasks on `d`.
TaskFilter on_device(DeviceId d);
TaskFilter with_id(TaskId id);
/// Tasks with an access to `chunk` (any mode); reading / writing it.
TaskFilter touches(ChunkId chunk);
TaskFilter reads_from(ChunkId chunk);
TaskFilter writes_to(ChunkId chunk);
/// Tasks with an access to `chunk` whose region meets `region`.
TaskFilter touches_region(ChunkId chunk, const Rect& region);
/// Execute tasks of `kernel` / of launch `launch`.
TaskFilter of_kernel(KernelId kernel);
TaskFilter of_launch(LaunchId launch);
/// Execute tasks whose superblock is `threads`.
TaskFilter with_superblock(const Rect& threads);
/// CreateChunk tasks of temporaries; of chunks of `array`.
TaskFilter creates_temporary();
TaskFilter creates_chunk_of(ArrayId array);
/// Send to / Recv from another worker.
TaskFilter sends_to(WorkerId w);
TaskFilter receives_from(WorkerId w);

namespace detail {
struct TaskGraph {
  std::vector<Task> tasks;
  std::unordered_map<TaskId, size_t> index;
  std::vector<std::vector<size_t>> pred, succ;
};
}  // namespace detail

/// A set of tasks of one query (ordered by position in the plans).
class TaskSet {
 public:
  TaskSet(std::shared_ptr<const detail::TaskGraph> graph, std::vector<size_t> members);

  size_t count() const { return members_.size(); }
  bool empty() const { return members_.empty(); }
  /// The tasks passing every filter.
  template <class... F>
  TaskSet select(F&&... filters) const {
    return filter([&](const Task& t) { return (... && filters(t)); });
  }
  template <class... F>
  size_t count(F&&... filters) const {
    return select(std::forward<F>(filters)...).count();
  }
  TaskSet filter(const TaskFilter& f) const;
  /// The one task of the set (throws std::logic_error, naming the tasks, unless exactly one).
  const Task& unique() const;
  template <class... F>
  const Task& select_unique(F&&... filters) const {
    return select(std::forward<F>(filters)...).unique();
  }
  std::vector<const Task*> tasks() const;
  std::vector<TaskId> ids() const;
  bool contains(TaskId id) const;

  /// Direct predecessors / successors of the set's tasks (deps and Send->Recv), minus nothing.
  TaskSet predecessors() const;
  TaskSet successors() const;
  /// Everything that reaches / is reached from a task of the set (the set itself excluded
  /// unless a path leads back into it, which a DAG does not have).
  TaskSet transitive_predecessors() const;
  TaskSet transitive_successors() const;

  /// True when no task of this set reaches a task of `other` or the reverse.
  bool is_concurrent_with(const TaskSet& other) const;
  /// True when no two tasks of the set are ordered.
  bool all_concurrent() const;
  /// True when every task of `other` is reached from every task of this set.
  bool precedes(const TaskSet& other) const;
  /// True when some task of this set reaches some task of `other`.
  bool any_precedes(const TaskSet& other) const;

  TaskSet operator|(const TaskSet& other) const;
  TaskSet operator&(const TaskSet& other) const;
  TaskSet operator-(const TaskSet& other) const;

  /// One describe() line per task: for failure messages.
  std::string to_string() const;

 private:
  std::vector<size_t> reachable(size_t from, bool forward) const;
  TaskSet make(std::vector<size_t> members) const;

  std::shared_ptr<const detail::TaskGraph> graph_;
  std::vector<size_t> members_;  // sorted
};

/// All tasks of one or more plans (of one planner, in order).
class PlanQuery {
 public:
  explicit PlanQuery(const Plan& plan) : PlanQuery(std::vector<const Plan*>{&plan}) {}
  explicit PlanQuery(const std::vector<const Plan*>& plans);

  TaskSet all() const;
  template <class... F>
  TaskSet select_all(F&&... filters) const {
    return all().select(std::forward<F>(filters)...);
  }
  template <class... F>
  const Task& select_unique(F&&... filters) const {
    return all().select_unique(std::forward<F>(filters)...);
  }
  template <class... F>
  size_t count(F&&... filters) const {
    return all().count(std::forward<F>(filters)...);
  }
  /// The task with id `id` (throws std::logic_error when unknown).
  const Task& task(TaskId id) const;

 private:
  std::shared_ptr<detail::TaskGraph> graph_;
};

}  // namespace lightning::planner::testing
