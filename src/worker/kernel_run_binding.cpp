#include "worker/kernel_run_binding.hpp"

#include "kernel/array_binding.hpp"
#include "kernel/kernel_registry.hpp"

namespace lightning::worker {

KernelRun bound_kernel_run(const planner::Task& task, const planner::ExecuteTask& execute,
                           const LaunchData& launch, const std::vector<void*>& pointers,
                           const ChunkTable& chunks, bool checked) {
  KernelRun run;
  run.info = &kernel::KernelRegistry::get(execute.kernel);
  run.name = launch.name;
  run.functor = launch.functor;
  run.superblock = execute.superblock;
  run.reduction = launch.reduction;
  run.scan = execute.scan;
  kernel::clear_arrays(run.functor.data(), launch.arrays);  // unbound: nothing to touch
  if (checked) run.check = std::make_shared<AccessCheck>();
  for (size_t i = 0; i < task.accesses.size(); ++i) {
    const ChunkId c = task.accesses[i].chunk;
    if (c == execute.scalar_partial) {
      run.partial = pointers.at(i);
      continue;
    }
    if (c == execute.scan_prefix) {
      run.scan_prefix = pointers.at(i);
      continue;
    }
    const auto& binding = execute.bindings.at(i);
    for (const kernel::ArraySlot& slot : launch.arrays)
      if (slot.param == binding.param) {
        const ChunkLayout& chunk = chunks.at(c);
        kernel::bind_array(run.functor.data(), slot, pointers.at(i), chunk.box,
                           launch.extents.at(slot.param));
        if (checked)
          run.check->add(run.functor.data(), slot, {pointers.at(i), chunk.box, chunk.element_size},
                         binding.region, binding.mode);
      }
  }
  return run;
}

}  // namespace lightning::worker
