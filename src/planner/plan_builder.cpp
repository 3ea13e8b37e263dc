#include "planner/plan_builder.hpp"

#include <algorithm>

#include "core/byte_size.hpp"

namespace lightning::planner {

PlanBuilder::PlanBuilder(Plan& plan, DependencyTracker& tracker,
                         std::vector<TaskFrontier>& frontier, uint64_t& next_task,
                         uint64_t& next_chunk, uint64_t& next_tag)
    : plan_(plan),
      tracker_(tracker),
      frontier_(frontier),
      next_task_(next_task),
      next_chunk_(next_chunk),
      next_tag_(next_tag) {
  if (plan_.fragments.size() < frontier_.size()) plan_.fragments.resize(frontier_.size());
}

TaskId PlanBuilder::add(WorkerId worker, TaskKind kind, const std::vector<TaskId>& extra_deps) {
  const TaskId id(next_task_++);
  Task task{id, worker, std::move(kind), {}, {}};
  task.accesses = accesses_of(task.kind);
  deps_.assign(extra_deps.begin(), extra_deps.end());
  if (!extra_deps.empty()) explicit_log_.emplace_back(id, extra_deps);
  for (const ChunkAccess& a : task.accesses) tracker_.record(id, a, deps_);
  std::sort(deps_.begin(), deps_.end());
  deps_.erase(std::unique(deps_.begin(), deps_.end()), deps_.end());
  // Two accesses of one task to one chunk would make it depend on itself.
  deps_.erase(std::remove(deps_.begin(), deps_.end(), id), deps_.end());
  task.deps = deps_;
  // Readers it now follows are ordered before it: later writers meet them through it.
  tracker_.prune_readers(id, task.accesses, deps_);
  frontier_[worker.value()].add(id, deps_);
  plan_.fragments[worker.value()].push_back(std::move(task));
  return id;
}

ChunkRef PlanBuilder::create_temporary(ArrayId array, const Rect& box, DeviceId device,
                                       WorkerId worker, DataType type, uint32_t element_size) {
  const ChunkRef ref{ChunkId(next_chunk_++), worker, box};
  const uint64_t bytes = byte_size(box.volume(), element_size, "a temporary chunk");
  add(worker, CreateChunkTask{ref.id, array, box, device, true, bytes, type, element_size});
  temporaries_.push_back(ref);
  return ref;
}

void PlanBuilder::transfer(const ChunkRef& src, const ChunkRef& dst, const Rect& region) {
  if (src.worker == dst.worker) {
    add(src.worker, CopyTask{src.id, dst.id, region});
    return;
  }
  const uint64_t tag = next_tag();
  add(src.worker, SendTask{src.id, {}, {}, region, dst.worker, tag});
  add(dst.worker, RecvTask{dst.id, {}, {}, region, src.worker, tag});
}

void PlanBuilder::finish() {
  for (const ChunkRef& t : temporaries_) {
    plan_.temporary_deletions.push_back(add(t.worker, DeleteChunkTask{t.id, t.box}));
    tracker_.forget(t.id);
  }
  temporaries_.clear();
}

}  // namespace lightning::planner
