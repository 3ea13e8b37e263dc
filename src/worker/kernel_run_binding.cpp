#include "worker/kernel_run_binding.hpp"

#include "kernel/array_binding.hpp"
#include "kernel/kernel_registry.hpp"

namespace lightning::worker {

KernelRun bound_kernel_run(const planner::Task& task, const planner::ExecuteTask& execute,
                           const LaunchData& launch, const std::vector<void*>& pointers,
                           const ChunkTable& chunks) {
  KernelRun run{&kernel::KernelRegistry::get(execute.kernel),
                launch.name,
                launch.functor,
                execute.superblock,
                nullptr,
                launch.reduction};
  kernel::clear_arrays(run.functor.data(), launch.arrays);  // unbound: nothing to touch
  for (size_t i = 0; i < task.accesses.size(); ++i) {
    const ChunkId c = task.accesses[i].chunk;
    if (c == execute.scalar_partial) {
      run.partial = pointers.at(i);
      continue;
    }
    const auto& binding = execute.bindings.at(i);
    for (const kernel::ArraySlot& slot : launch.arrays)
      if (slot.param == binding.param)
        kernel::bind_array(run.functor.data(), slot, pointers.at(i), chunks.at(c).box,
                           launch.extents.at(slot.param));
  }
  return run;
}

}  // namespace lightning::worker
