// The regular grid that block, tiles and stencil distributions (of data and of work) cut a
// box into.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/point.hpp"
#include "core/rect.hpp"

namespace lightning {

/// The grid of cells of extent `shape` anchored at index 0 (cell k of axis a covers
/// [k*shape[a], (k+1)*shape[a])), seen through `domain`: the cells that meet the domain, each
/// clipped to it. Anchoring at 0 rather than at the domain's start is what lets a launch over
/// [1, n-1) line up with an array of n cut by the same shape. Cells are numbered row-major
/// over the grid covering [0, domain.hi), so that numbering (and so device placement) does
/// not depend on where the domain starts.
class Tiling {
 public:
  /// Requires domain.lo >= 0, shape > 0 on every axis, equal ranks (1-3); throws
  /// Error(kInvalidArgument) otherwise, or when the numbering would not fit 64 bits.
  Tiling(const Rect& domain, const Point& shape);

  /// Number of cells meeting the domain (0 for an empty domain).
  uint64_t count() const { return count_; }
  /// Number of cells of the grid over [0, domain.hi): the range of cell numbers.
  uint64_t grid_count() const { return grid_count_; }

  /// Calls f(const Rect& cell, uint64_t number) for every cell meeting the domain, clipped to
  /// it, in increasing number order.
  template <class F>
  void for_each(F&& f) const {
    if (count_ == 0) return;
    const int rank = domain_.rank();
    Point k = first_;  // cell coordinates, odometer over [first_, last_]
    for (;;) {
      Point lo = k, hi = k;
      uint64_t number = 0;
      for (int a = 0; a < rank; ++a) {
        lo[a] = std::max(k[a] * shape_[a], domain_.lo()[a]);
        hi[a] = std::min((k[a] + 1) * shape_[a], domain_.hi()[a]);
        number = number * static_cast<uint64_t>(grid_dims_[a]) + static_cast<uint64_t>(k[a]);
      }
      f(Rect(lo, hi), number);
      int a = rank - 1;
      while (a >= 0 && k[a] == last_[a]) {
        k[a] = first_[a];
        --a;
      }
      if (a < 0) return;
      ++k[a];
    }
  }

 private:
  Rect domain_;
  Point shape_;
  Point first_, last_;  // inclusive range of cell coordinates meeting the domain
  Point grid_dims_;     // cells per axis of the grid over [0, domain.hi)
  uint64_t count_ = 0;
  uint64_t grid_count_ = 0;
};

}  // namespace lightning
