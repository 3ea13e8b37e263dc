// Boxes of an index space. Every box in the project is half-open: lo is inside, hi is not.
// (The annotation language writes inclusive slices; it converts at its boundary.)
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>

#include "lightning_kokkos/internal/core/point.hpp"

namespace lightning {

/// The half-open box [lo, hi) of rank 0-3. A box is empty when hi <= lo on some axis; all
/// empty boxes of one rank compare equal. A rank-0 box holds one point (a scalar).
class Rect {
 public:
  constexpr Rect() = default;
  Rect(const Point& lo, const Point& hi) : lo_(lo), hi_(hi) {
    assert(lo.rank() == hi.rank());
    normalize();
  }
  /// The box [0, extent).
  static Rect from_extent(const Point& extent) { return {Point::filled(extent.rank(), 0), extent}; }
  /// The canonical empty box of a rank.
  static Rect empty_of_rank(int rank) { return {Point::filled(rank, 0), Point::filled(rank, 0)}; }

  int rank() const { return lo_.rank(); }
  const Point& lo() const { return lo_; }
  const Point& hi() const { return hi_; }
  /// hi - lo on every axis (zero for an empty box).
  Point extent() const { return hi_ - lo_; }
  bool empty() const {
    for (int a = 0; a < rank(); ++a)
      if (hi_[a] <= lo_[a]) return true;
    return false;
  }
  /// Number of points inside.
  int64_t volume() const { return empty() ? 0 : extent().product(); }

  bool contains(const Point& p) const {
    assert(p.rank() == rank());
    for (int a = 0; a < rank(); ++a)
      if (p[a] < lo_[a] || p[a] >= hi_[a]) return false;
    return true;
  }
  /// True when every point of `r` is inside this box (always for an empty `r`).
  bool contains(const Rect& r) const {
    assert(r.rank() == rank());
    if (r.empty()) return true;
    for (int a = 0; a < rank(); ++a)
      if (r.lo_[a] < lo_[a] || r.hi_[a] > hi_[a]) return false;
    return true;
  }
  bool intersects(const Rect& r) const { return !intersection(r).empty(); }
  Rect intersection(const Rect& r) const {
    assert(r.rank() == rank());
    Point lo = lo_, hi = hi_;
    for (int a = 0; a < rank(); ++a) {
      lo[a] = std::max(lo[a], r.lo_[a]);
      hi[a] = std::min(hi[a], r.hi_[a]);
    }
    return {lo, hi};
  }
  /// The smallest box holding both (the other one if either is empty).
  Rect bounding_union(const Rect& r) const {
    assert(r.rank() == rank());
    if (empty()) return r;
    if (r.empty()) return *this;
    Point lo = lo_, hi = hi_;
    for (int a = 0; a < rank(); ++a) {
      lo[a] = std::min(lo[a], r.lo_[a]);
      hi[a] = std::max(hi[a], r.hi_[a]);
    }
    return {lo, hi};
  }
  /// The box with its axes in reverse order (see Point::reversed).
  Rect reversed() const {
    if (empty()) return empty_of_rank(rank());
    return {lo_.reversed(), hi_.reversed()};
  }
  /// The box moved by `offset`.
  Rect shifted(const Point& offset) const {
    if (empty()) return *this;
    return {lo_ + offset, hi_ + offset};
  }

  /// Calls f(Point) for every point, last axis fastest (row-major order).
  template <class F>
  void for_each_point(F&& f) const {
    if (empty()) return;
    Point p = lo_;
    if (rank() == 0) {
      f(p);
      return;
    }
    for (;;) {
      f(static_cast<const Point&>(p));
      int a = rank() - 1;
      while (a >= 0 && ++p[a] == hi_[a]) {
        p[a] = lo_[a];
        --a;
      }
      if (a < 0) return;
    }
  }

  friend bool operator==(const Rect& a, const Rect& b) { return a.lo_ == b.lo_ && a.hi_ == b.hi_; }
  friend bool operator!=(const Rect& a, const Rect& b) { return !(a == b); }
  friend bool operator<(const Rect& a, const Rect& b) {
    return a.lo_ < b.lo_ || (a.lo_ == b.lo_ && a.hi_ < b.hi_);
  }

  /// "[0, 10) x [4, 8)"; "empty(2)" for an empty box of rank 2; "[]" for rank 0.
  std::string to_string() const;

 private:
  // Keeps every empty box of one rank identical, so == and hashing need no special case.
  void normalize() {
    if (empty()) lo_ = hi_ = Point::filled(rank(), 0);
  }

  Point lo_;
  Point hi_;
};

}  // namespace lightning
