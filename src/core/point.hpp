// A point of an index space of rank 0-3 (int64 coordinates).
#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace lightning {

/// Highest number of axes an array, a launch or a box may have.
inline constexpr int kMaxRank = 3;

/// A point with 0 to kMaxRank int64 coordinates. Coordinates beyond the rank are zero, so
/// points of equal rank compare by value.
class Point {
 public:
  constexpr Point() = default;
  Point(std::initializer_list<int64_t> coords) : rank_(static_cast<int8_t>(coords.size())) {
    assert(coords.size() <= kMaxRank);
    int axis = 0;
    for (int64_t c : coords) c_[axis++] = c;
  }
  /// A point of `rank` coordinates, all equal to `value`.
  static constexpr Point filled(int rank, int64_t value) {
    Point p;
    p.rank_ = static_cast<int8_t>(rank);
    for (int a = 0; a < rank; ++a) p.c_[a] = value;
    return p;
  }

  constexpr int rank() const { return rank_; }
  constexpr int64_t operator[](int axis) const { return c_[axis]; }
  constexpr int64_t& operator[](int axis) { return c_[axis]; }

  /// Product of the coordinates (1 for rank 0): the volume of a box with this extent.
  constexpr int64_t product() const {
    int64_t v = 1;
    for (int a = 0; a < rank_; ++a) v *= c_[a];
    return v;
  }

  /// The coordinates in reverse order (axis a becomes axis rank - 1 - a): how a column-major
  /// array's indices map to its row-major storage.
  constexpr Point reversed() const {
    Point r = *this;
    for (int a = 0; a < rank_; ++a) r.c_[a] = c_[rank_ - 1 - a];
    return r;
  }

  friend constexpr bool operator==(const Point& a, const Point& b) {
    return a.rank_ == b.rank_ && a.c_ == b.c_;
  }
  friend constexpr bool operator!=(const Point& a, const Point& b) { return !(a == b); }
  /// Lexicographic order (rank first), so points can key ordered containers.
  friend constexpr bool operator<(const Point& a, const Point& b) {
    if (a.rank_ != b.rank_) return a.rank_ < b.rank_;
    return a.c_ < b.c_;
  }
  friend Point operator+(Point a, const Point& b) {
    assert(a.rank_ == b.rank_);
    for (int i = 0; i < a.rank_; ++i) a.c_[i] += b.c_[i];
    return a;
  }
  friend Point operator-(Point a, const Point& b) {
    assert(a.rank_ == b.rank_);
    for (int i = 0; i < a.rank_; ++i) a.c_[i] -= b.c_[i];
    return a;
  }

  /// "(1, 2, 3)".
  std::string to_string() const;

 private:
  std::array<int64_t, kMaxRank> c_{};
  int8_t rank_ = 0;
};

}  // namespace lightning
