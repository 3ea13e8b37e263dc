// From the application's Launch to what the planner and the workers take: a pure function of
// the launch, its kernel, its bound annotation and the arrays the planner knows.
#pragma once

#include <memory>

#include "annotation/bound_annotation.hpp"
#include "driver/launch.hpp"
#include "kernel/kernel_registry.hpp"
#include "planner/planner.hpp"
#include "planner/request.hpp"
#include "worker/fragment_context.hpp"

namespace lightning::driver {

/// A launch decoded: the planner's request and the arguments every worker that runs one of its
/// superblocks gets.
struct DecodedLaunch {
  planner::LaunchRequest request;
  std::shared_ptr<worker::LaunchData> data;
};

/// Decodes `launch` of `kernel` (described by `described`, bound to the launch's rank as
/// `bound`; both outlive the request): the integer scalars read from the functor's bytes, the
/// default block size (256 threads along the last axis), the default work distribution (the
/// chunks of the first array the kernel writes, or else reads; a column-major array's seen in
/// the kernel's index order), the arrays' extents, and, for a reduction kernel, the launch's
/// reduction resolved against the kernel's into the host buffer `result`. Reads the arrays'
/// layouts from `planner` and changes nothing. Throws Error(kInvalidArgument) naming the
/// kernel for a reduction without a result, a reduction that does not fit the kernel's value,
/// or a kernel that touches no array and has no work distribution.
DecodedLaunch decode_launch(const Launch& launch, const kernel::KernelInfo& kernel,
                            const kernel::KernelDescription& described,
                            const annotation::BoundAnnotation& bound,
                            const planner::Planner& planner, planner::HostBufferId result);
/// The same, into `request` and `data`, every field assigned: objects kept from one launch to
/// the next keep their storage (a repeated launch allocates nothing for them).
void decode_launch(const Launch& launch, const kernel::KernelInfo& kernel,
                   const kernel::KernelDescription& described,
                   const annotation::BoundAnnotation& bound, const planner::Planner& planner,
                   planner::HostBufferId result, planner::LaunchRequest& request,
                   worker::LaunchData& data);

}  // namespace lightning::driver
