// How the driver reports failed tasks to the application: one Error, formatted once, from
// the failures' values (the only place that turns a planner::TaskFailure into text).
#pragma once

#include <vector>

#include "core/error.hpp"
#include "planner/task_failure.hpp"

namespace lightning::driver {

/// The error a fence, read or reduction throws for `failures` (not empty; in the order they
/// were reported). Causes come first: the message is the first failure that was not skipped
/// (a skipped one only when no cause is among them: its cause was not heard of yet), then
/// "(and N more failed or skipped tasks: F failed, S skipped)" (a part that is 0 left out).
/// Its kind is that failure's underlying kind (kTask for a kernel's own exception,
/// kOutOfMemory, kCuda, ...):
///
///   kernel 'saxpy' failed on superblock [200, 300) on D0 (rank 1, T12): element 250 is cursed
///   T33 Copy C6 -> C16 [0, 300) failed on W0: task needs 6.2 KiB ...
///   T40 Recv C3 [0, 10) from W1 tag 7 on W0 was skipped: it depends on T12, which failed
Error task_error(const std::vector<planner::TaskFailure>& failures);

}  // namespace lightning::driver
