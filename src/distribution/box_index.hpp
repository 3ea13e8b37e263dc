// A spatial index over boxes: which boxes meet a query box, which contain a point.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "lightning_kokkos/internal/core/point.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"

namespace lightning {

/// Answers "which boxes meet this box / contain this point" without scanning every box.
///
/// A bucket grid: each axis is cut at the boxes' lower edges (thinned out when the cells
/// would outnumber the boxes), and every box is filed under each cell it overlaps. For the
/// regular layouts (block, tiles, stencil) each cell holds one to a few boxes, so a query
/// costs a binary search per axis plus the size of its answer. A box that spans many cells
/// (a whole-array replica beside small chunks) is kept in a short side list scanned by every
/// query instead, which bounds the build at O(n log n) for any input.
///
/// Queries never allocate and report each box once, in no particular order. Empty boxes are
/// never reported. Immutable after construction, so it may be shared between threads.
class BoxIndex {
 public:
  BoxIndex() = default;
  /// Indexes `boxes` (all of one rank, 0 to kMaxRank; ids are positions in the vector).
  explicit BoxIndex(std::vector<Rect> boxes);

  std::size_t size() const { return boxes_.size(); }
  const Rect& box(std::size_t id) const { return boxes_[id]; }

  /// Calls f(id) once for every box that shares a point with `q`.
  template <class F>
  void for_each_intersecting(const Rect& q, F&& f) const {
    if (boxes_.empty() || q.empty()) return;
    assert(q.rank() == rank_);
    std::array<std::size_t, kMaxRank> lo{}, hi{}, cell{};
    for (int a = 0; a < rank_; ++a) {
      lo[a] = cell_of(a, q.lo()[a]);
      hi[a] = cell_of(a, q.hi()[a] - 1);
      cell[a] = lo[a];
    }
    for (;;) {
      std::size_t linear = 0;
      for (int a = 0; a < rank_; ++a) linear += cell[a] * stride_[a];
      for (uint32_t e = cell_begin_[linear]; e < cell_begin_[linear + 1]; ++e) {
        const uint32_t id = entries_[e];
        const Rect& b = boxes_[id];
        // A box meeting q is filed under every cell it overlaps; report it only from the cell
        // holding the low corner of b ∩ q, so it is reported once and with no scratch memory.
        bool first = true;
        for (int a = 0; a < rank_ && first; ++a)
          first = cell[a] == 0 || std::max(b.lo()[a], q.lo()[a]) >= cuts_[a][cell[a]];
        if (first && meets(b, q)) f(static_cast<std::size_t>(id));
      }
      int a = rank_ - 1;
      while (a >= 0 && cell[a] == hi[a]) {
        cell[a] = lo[a];
        --a;
      }
      if (a < 0) break;
      ++cell[a];
    }
    for (uint32_t id : spanning_)
      if (meets(boxes_[id], q)) f(static_cast<std::size_t>(id));
  }

  /// Calls f(id) once for every box that contains `p`.
  template <class F>
  void for_each_containing(const Point& p, F&& f) const {
    if (boxes_.empty()) return;
    assert(p.rank() == rank_);
    std::size_t linear = 0;
    for (int a = 0; a < rank_; ++a) linear += cell_of(a, p[a]) * stride_[a];
    for (uint32_t e = cell_begin_[linear]; e < cell_begin_[linear + 1]; ++e)
      if (boxes_[entries_[e]].contains(p)) f(static_cast<std::size_t>(entries_[e]));
    for (uint32_t id : spanning_)
      if (boxes_[id].contains(p)) f(static_cast<std::size_t>(id));
  }

 private:
  // Cell j of axis a covers [cuts_[a][j], cuts_[a][j+1]); the first cell reaches down to
  // -inf and the last up to +inf, so every coordinate has a cell.
  std::size_t cell_of(int axis, int64_t x) const {
    const std::vector<int64_t>& c = cuts_[axis];
    std::size_t lo = 0, hi = c.size();  // last j with c[j] <= x, or 0
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      if (c[mid] <= x)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }
  static bool meets(const Rect& b, const Rect& q) {
    for (int a = 0; a < b.rank(); ++a)
      if (b.lo()[a] >= q.hi()[a] || q.lo()[a] >= b.hi()[a]) return false;
    return !b.empty();
  }

  int rank_ = 0;
  std::vector<Rect> boxes_;
  std::array<std::vector<int64_t>, kMaxRank> cuts_;
  std::array<std::size_t, kMaxRank> stride_{};
  std::vector<uint32_t> cell_begin_;  // per cell, into entries_ (one extra at the end)
  std::vector<uint32_t> entries_;
  std::vector<uint32_t> spanning_;  // boxes overlapping too many cells to file
};

}  // namespace lightning
