// The fold trees of reductions: partials per superblock, folded per device, per worker,
// across workers.
#pragma once

#include <vector>

#include "core/ids.hpp"
#include "core/rect.hpp"
#include "planner/array_state.hpp"
#include "planner/plan_builder.hpp"
#include "planner/region_mover.hpp"
#include "planner/request.hpp"

namespace lightning::planner {

/// One superblock's partial result: a temporary chunk.
struct Partial {
  ChunkRef chunk;
  DeviceId device;
};

/// Folds the partials of a `reduce(op)` array access (given in superblock order) into the
/// array: per device, per worker, then into each chunk that owns part of the region (workers
/// in order, so the result depends only on the layout and the work distribution), whose new
/// contents are then copied to the other chunks holding them. Partials start at the identity,
/// so their boxes need not match.
void plan_array_reduction(PlanBuilder& builder, RegionMover& mover, const ArrayState& array,
                          ReduceOp op, const std::vector<Partial>& partials);

/// Folds scalar partials (superblock order) per worker, then on the driver (worker 0) into
/// the host buffer of `reduction`, workers in order. Returns the tasks that complete it.
std::vector<TaskId> plan_scalar_reduction(PlanBuilder& builder, LaunchId launch,
                                          const ScalarReduction& reduction,
                                          const std::vector<Partial>& partials, size_t num_workers,
                                          DeviceId driver_device);

}  // namespace lightning::planner
