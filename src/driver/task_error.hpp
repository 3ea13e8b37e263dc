// How the driver reports failed tasks to the application: one Error, formatted once, from
// the failures' values (the only place that turns a planner::TaskFailure into text).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "planner/task_failure.hpp"

namespace lightning::driver {

/// What the driver keeps of a launch in checked mode, to describe an access violation in the
/// program's terms.
struct LaunchNames {
  std::string annotation;  ///< the annotation's text
  /// Per kernel parameter (signature order): its name, the label of the View bound to it
  /// (empty for a scalar), whether the View indexes its stored axes reversed (LayoutLeft),
  /// and the byte offset of the annotation rule that declares it (npos: none).
  struct Param {
    std::string name;
    std::string view;
    bool axes_reversed = false;
    size_t rule = std::string::npos;
  };
  std::vector<Param> params;
};

/// The names of a launch, or null when unknown.
using LaunchNamesOf = std::function<const LaunchNames*(LaunchId)>;

/// A launch for people: "launch 'label' (kernel 'name')", the program's label first, or
/// "kernel 'name'" when the launch has no label of its own.
std::string launch_title(const std::string& label, const std::string& kernel);
/// launch_title of a failed kernel run's launch.
std::string kernel_title(const planner::TaskFailure::Kernel& k);

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
///
/// An access violation (checked mode) of a launch `names` knows is told with the View, the
/// parameter and the annotation rule, shown with a caret:
///
///   kernel 'Stencil' failed on superblock [0, 50) on D0 (T9): View 'in' (parameter 'in'):
///   element (50) is outside the region [0, 50) that the annotation declares to read
///   annotation:1:13: the rule for 'in'
///   global i => read in[i], write out[i]
///               ^
Error task_error(const std::vector<planner::TaskFailure>& failures,
                 const LaunchNamesOf& names = nullptr);

}  // namespace lightning::driver
