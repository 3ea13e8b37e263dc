// An Execute task's kernel run: its launch's functor bound to the chunks staged for it.
#pragma once

#include <vector>

#include "planner/task.hpp"
#include "worker/chunk_table.hpp"
#include "worker/device.hpp"
#include "worker/fragment_context.hpp"

namespace lightning::worker {

/// The run of `execute` (of `task`) for `launch`: a copy of the launch's functor whose array
/// handles point at the task's staged chunks (`pointers`, one per access in Task::accesses
/// order, laid out as `chunks` says), unbound handles cleared, and the reduction's partial
/// (the access to `execute.scalar_partial`) set. With `checked` (checked mode, on a device
/// that checks the kernel: Device::checks_accesses), the bound handles are checked ones
/// (KernelRun::check), each allowed its binding's region and mode. Pure: it touches no
/// chunk's bytes.
KernelRun bound_kernel_run(const planner::Task& task, const planner::ExecuteTask& execute,
                           const LaunchData& launch, const std::vector<void*>& pointers,
                           const ChunkTable& chunks, bool checked = false);

}  // namespace lightning::worker
