// What evaluation produces: the box of an array that a superblock's threads may touch.
#pragma once

#include "annotation/access_mode.hpp"
#include "core/rect.hpp"

namespace lightning::annotation {

/// The elements of one array parameter that the threads of one superblock access.
struct AccessRegion {
  int param = -1;  ///< position of the array in the KernelSignature
  AccessMode mode = AccessMode::kRead;
  ReduceOp op = ReduceOp::kSum;  ///< meaningful for kReduce only
  /// Half-open box of elements, clamped to [0, extent); Rect::empty_of_rank(rank) when the
  /// threads touch nothing inside the array. Rank 0 arrays get the one-point rank-0 box.
  Rect region;
  /// True when every element of `region` is touched by at least one thread (the pattern is
  /// dense there). Computed soundly but conservatively: false may also mean "not proven". A
  /// write that is exact still need not write them all (a kernel may skip elements its rule
  /// names, as a conditional write does), so the planner fetches a write's old contents
  /// regardless.
  bool exact = false;
};

}  // namespace lightning::annotation
