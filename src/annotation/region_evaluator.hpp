// Per-superblock evaluation of a bound annotation: the box of each array its threads touch.
// This runs for every superblock of every launch, so it allocates nothing: results go to
// caller-provided storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "annotation/access_region.hpp"
#include "annotation/bound_annotation.hpp"
#include "core/point.hpp"
#include "core/rect.hpp"

namespace lightning::annotation {

/// The threads of a superblock, as annotations see them (the planner's lightning::Superblock adds
/// the device): a non-empty half-open box of global thread indices (>= 0) and the
/// block size that splits them into blocks (block index = floor(global / block_size), local
/// = global - block * block_size, per axis, from origin 0). The box need not be aligned to
/// the block size (a domain's last superblock, or a range policy that starts at 1).
struct ThreadBox {
  Rect threads;
  Point block_size;

  /// The threads of the blocks `blocks` (a box of block indices), cut to `domain` (the
  /// launch's box of global thread indices).
  static ThreadBox from_blocks(const Rect& blocks, const Point& block_size, const Rect& domain);
};

/// Values of a launch's arguments, indexed like the KernelSignature's params (entries of
/// the other kind are ignored): integer scalar values, and array extents.
struct LaunchArguments {
  std::vector<int64_t> scalars;
  std::vector<Point> extents;
};

/// Writes one AccessRegion per array of `bound.arrays()` (same order) to `out`, which must
/// have room for that many. Reads of one array are unioned; see BoundArray for the merged
/// mode. Throws Error(kInvalidArgument) when the superblock, block size or arguments do not
/// fit the annotation, and Error(kAnnotation) with a caret when a divisor parameter is not
/// positive or index arithmetic overflows 64 bits.
void evaluate_regions(const BoundAnnotation& bound, const ThreadBox& superblock,
                      const LaunchArguments& args, AccessRegion* out);

/// Like evaluate_regions() but one AccessRegion per rule of `bound.rules()`, with the rule's
/// own mode and exactness.
void evaluate_rule_regions(const BoundAnnotation& bound, const ThreadBox& superblock,
                           const LaunchArguments& args, AccessRegion* out);

/// Allocating conveniences for tests and cold paths.
std::vector<AccessRegion> evaluate_regions(const BoundAnnotation& bound,
                                           const ThreadBox& superblock,
                                           const LaunchArguments& args);
std::vector<AccessRegion> evaluate_rule_regions(const BoundAnnotation& bound,
                                                const ThreadBox& superblock,
                                                const LaunchArguments& args);

}  // namespace lightning::annotation
