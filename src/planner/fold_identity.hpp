// The identity element of a reduction operator, as element bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "annotation/access_mode.hpp"
#include "core/data_type.hpp"
#include "planner/task.hpp"

namespace lightning::planner {

/// The FoldOp of an annotation's reduce(op).
FoldOp fold_op_of(annotation::ReduceOp op);

/// The bytes of the identity of `op` for elements of `type`: 0 for +, 1 for *, the largest
/// value (+infinity for floating point) for min, the lowest (-infinity) for max.
std::vector<uint8_t> fold_identity(FoldOp op, DataType type);

}  // namespace lightning::planner
