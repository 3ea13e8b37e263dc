// A summary of the set of values an index expression takes over a superblock: its bounds,
// and an upper bound on the largest step between neighbouring values (the "gap"), which
// decides whether the set is dense (gap <= 1) and so whether a region is exact.
#pragma once

#include <cstdint>
#include <limits>

namespace lightning::annotation {

/// Gap of a set about which nothing is known beyond its bounds.
inline constexpr int64_t kUnknownGap = std::numeric_limits<int64_t>::max();

/// The set of values {x} of an expression: min <= x <= max, with neighbouring values at
/// most `gap` apart (0 for a single value). `axes` has bit a set when the values depend on
/// launch axis a; two sets are independent (their sum ranges over all pairs) only when
/// their axes are disjoint, because the superblock is a box: a product over axes.
struct ValueRange {
  int64_t min = 0;
  int64_t max = 0;
  int64_t gap = 0;
  uint8_t axes = 0;

  static ValueRange point(int64_t v) { return {v, v, 0, 0}; }
  /// {start, start + step, ..., start + step * (count - 1)} for count >= 1.
  static ValueRange progression(int64_t start, int64_t step, int64_t count);
  bool single() const { return min == max; }
  bool dense() const { return gap <= 1; }
};

/// {a + b}: the Minkowski sum when a and b are independent (disjoint axes); otherwise the
/// same bounds with an unknown gap (the set is a subset of the Minkowski sum).
ValueRange add(const ValueRange& a, const ValueRange& b);
/// {a + b} for a and b known to vary independently (e.g. block and local index of one
/// piece of one axis), whatever their axes.
ValueRange add_independent(const ValueRange& a, const ValueRange& b);
/// The union of two sets (e.g. of the pieces of one superblock axis).
ValueRange unite(const ValueRange& a, const ValueRange& b);
/// {c * x}.
ValueRange scale(const ValueRange& r, int64_t c);
/// {floor(x / d)} for d > 0. Floor is monotone, so the bounds stay exact.
ValueRange divide(const ValueRange& r, int64_t d);

}  // namespace lightning::annotation
