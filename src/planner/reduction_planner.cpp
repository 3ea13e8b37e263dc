#include "planner/reduction_planner.hpp"

#include <map>

#include "core/reduction.hpp"

namespace lightning::planner {

namespace {

// Folds `inputs` (in order) into one chunk on `device`: the input itself when there is one,
// otherwise a new temporary holding the union of their boxes, initialised to the identity.
Partial fold_group(PlanBuilder& builder, const ArrayState& array, const Reduction& reduction,
                   const std::vector<Partial>& inputs, DeviceId device, WorkerId worker) {
  if (inputs.size() == 1) return inputs.front();
  Rect box = Rect::empty_of_rank(array.layout->rank());
  for (const Partial& p : inputs) box = box.bounding_union(p.chunk.box);
  const ChunkRef acc =
      builder.create_temporary(array.id, box, device, worker, array.type, array.element_size());
  builder.add(worker, FillTask{acc.id, box, reduction.identity()});
  for (const Partial& p : inputs)
    builder.add(worker, FoldTask{p.chunk.id, acc.id, p.chunk.box, reduction, {}, false});
  return {acc, device};
}

}  // namespace

void plan_array_reduction(PlanBuilder& builder, RegionMover& mover, const ArrayState& array,
                          ReduceOp op, const std::vector<Partial>& partials) {
  if (partials.empty()) return;
  const Reduction reduction = Reduction::builtin(op, array.type);
  // Level 1: per device; level 2: per worker. std::map keeps device and worker order.
  std::map<uint64_t, std::vector<Partial>> by_device;
  for (const Partial& p : partials) by_device[p.device.value()].push_back(p);
  std::map<uint64_t, std::vector<Partial>> by_worker;
  for (auto& [device, group] : by_device) {
    const WorkerId worker = group.front().chunk.worker;
    by_worker[worker.value()].push_back(
        fold_group(builder, array, reduction, group, DeviceId(device), worker));
  }
  std::vector<Partial> per_worker;
  Rect all = Rect::empty_of_rank(array.layout->rank());
  for (auto& [worker, group] : by_worker) {
    per_worker.push_back(
        fold_group(builder, array, reduction, group, group.front().device, WorkerId(worker)));
    all = all.bounding_union(per_worker.back().chunk.box);
  }

  // Level 3: into the homes of the region, workers in order; then update the other copies.
  const DataLayout& layout = *array.layout;
  std::vector<size_t> homes;
  layout.homes_of(all, homes);
  for (size_t home : homes) {
    const ChunkRef dst = chunk_ref(array, home);
    const Rect owned = layout[home].owned;
    Rect touched = Rect::empty_of_rank(owned.rank());
    for (const Partial& acc : per_worker) {
      const Rect piece = acc.chunk.box.intersection(owned);
      if (piece.empty()) continue;
      touched = touched.bounding_union(piece);
      ChunkRef src = acc.chunk;
      if (src.worker != dst.worker) {
        const ChunkRef landing = builder.create_temporary(
            array.id, piece, layout[home].device, dst.worker, array.type, array.element_size());
        builder.transfer(src, landing, piece);
        src = landing;
      }
      builder.add(dst.worker, FoldTask{src.id, dst.id, piece, reduction, {}, false});
    }
    if (!touched.empty()) mover.propagate(array, touched, dst, home);
  }
}

std::vector<TaskId> plan_scalar_reduction(PlanBuilder& builder, LaunchId launch,
                                          const ScalarReduction& reduction,
                                          const std::vector<Partial>& partials, size_t num_workers,
                                          DeviceId driver_device) {
  // Per worker: fold into the worker's first partial, in superblock order.
  std::vector<std::vector<const Partial*>> by_worker(num_workers);
  for (const Partial& p : partials) by_worker[p.chunk.worker.value()].push_back(&p);

  std::vector<TaskId> chain;  // folds into the host buffer, ordered: the result is deterministic
  const WorkerId driver(0);
  for (size_t w = 0; w < num_workers; ++w) {
    const auto& group = by_worker[w];
    if (group.empty()) continue;
    const ChunkRef acc = group.front()->chunk;
    for (size_t i = 1; i < group.size(); ++i)
      builder.add(acc.worker,
                  FoldTask{group[i]->chunk.id, acc.id, Rect(), reduction.reduction, launch, false});
    ChunkRef on_driver = acc;
    if (acc.worker != driver) {
      on_driver =
          builder.create_temporary(ArrayId(), Rect(), driver_device, driver,
                                   reduction.reduction.type, reduction.reduction.value_size);
      builder.transfer(acc, on_driver, Rect());
    }
    HostReadTask read{on_driver.id, reduction.result,    Rect(), Rect(),
                      true,         reduction.reduction, launch};
    std::vector<TaskId> after;
    if (!chain.empty()) after.push_back(chain.back());
    chain.push_back(builder.add(driver, std::move(read), after));
  }
  return chain;
}

}  // namespace lightning::planner
