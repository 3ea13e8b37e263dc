// Whether a list of boxes partitions a domain: the check behind both "owned chunks cover the
// array exactly once" and "superblocks cover the launch exactly once".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/point.hpp"
#include "core/rect.hpp"

namespace lightning {

/// The first way in which boxes fail to partition a domain. Callers turn it into a message
/// in their own words (chunks, superblocks).
struct PartitionFault {
  enum class Kind {
    kNone,     ///< the boxes partition the domain
    kOutside,  ///< box `first` reaches outside the domain
    kOverlap,  ///< boxes `first` < `second` share the points `overlap`
    kGap,      ///< some point of the domain is in no box (`gap`, when one was found)
  };
  Kind kind = Kind::kNone;
  std::size_t first = 0;
  std::size_t second = 0;
  Rect overlap;
  /// A point in no box. The search for one is bounded; when it gives up, only `covered` says
  /// how much is missing.
  std::optional<Point> gap;
  /// Points covered (meaningful for kGap).
  int64_t covered = 0;
};

/// Checks that the non-empty boxes of `boxes` (of the domain's rank) are pairwise disjoint,
/// inside `domain`, and together cover it; empty boxes are ignored. O(n log n) for layouts
/// whose boxes each meet a few others. Reports the lowest-numbered outside box, else the
/// overlapping pair with the lowest first index, else a gap (the lexicographically smallest
/// uncovered point, when found).
PartitionFault find_partition_fault(const Rect& domain, const std::vector<Rect>& boxes);

}  // namespace lightning
