#include "annotation/value_range.hpp"

#include <algorithm>

#include "annotation/checked_int.hpp"

namespace lightning::annotation {
namespace {

// a - b, saturated at the top: gaps are upper bounds, so rounding up is sound.
int64_t gap_sub(int64_t gap, int64_t span) {
  return gap == kUnknownGap ? gap : gap - span;
}

int64_t gap_mul(int64_t gap, int64_t c) {
  int64_t r;
  if (gap == kUnknownGap || __builtin_mul_overflow(gap, c, &r)) return kUnknownGap;
  return r;
}

}  // namespace

ValueRange ValueRange::progression(int64_t start, int64_t step, int64_t count) {
  if (count <= 1 || step == 0) return point(start);
  const int64_t last = checked_add(start, checked_mul(step, count - 1));
  const int64_t abs_step = step < 0 ? checked_neg(step) : step;
  return {std::min(start, last), std::max(start, last), abs_step, 0};
}

ValueRange add_independent(const ValueRange& a, const ValueRange& b) {
  ValueRange r;
  r.min = checked_add(a.min, b.min);
  r.max = checked_add(a.max, b.max);
  r.axes = a.axes | b.axes;
  if (a.single()) {
    r.gap = b.gap;
  } else if (b.single()) {
    r.gap = a.gap;
  } else if (a.gap == kUnknownGap || b.gap == kUnknownGap) {
    r.gap = kUnknownGap;
  } else {
    // A + B is the union of copies of B shifted by the elements of A: inside one copy the
    // gap is B's; between copies the hole is at most gap(A) - span(B). And symmetrically.
    const int64_t span_a = checked_sub(a.max, a.min);
    const int64_t span_b = checked_sub(b.max, b.min);
    r.gap =
        std::min(std::max(a.gap, gap_sub(b.gap, span_a)), std::max(b.gap, gap_sub(a.gap, span_b)));
  }
  return r;
}

ValueRange add(const ValueRange& a, const ValueRange& b) {
  if ((a.axes & b.axes) == 0 || a.single() || b.single()) return add_independent(a, b);
  ValueRange r;
  r.min = checked_add(a.min, b.min);
  r.max = checked_add(a.max, b.max);
  r.gap = kUnknownGap;
  r.axes = a.axes | b.axes;
  return r;
}

ValueRange unite(const ValueRange& a, const ValueRange& b) {
  const ValueRange& lo = a.min <= b.min ? a : b;
  const ValueRange& hi = a.min <= b.min ? b : a;
  ValueRange r;
  r.min = lo.min;
  r.max = std::max(lo.max, hi.max);
  r.axes = a.axes | b.axes;
  int64_t hole = 0;
  if (__builtin_sub_overflow(hi.min, lo.max, &hole)) hole = kUnknownGap;
  r.gap = std::max({lo.gap, hi.gap, hole > 0 ? hole : int64_t{0}});
  if (r.single()) r.gap = 0;
  return r;
}

ValueRange scale(const ValueRange& r, int64_t c) {
  if (c == 0) return ValueRange::point(0);
  ValueRange s;
  const int64_t x = checked_mul(r.min, c);
  const int64_t y = checked_mul(r.max, c);
  s.min = std::min(x, y);
  s.max = std::max(x, y);
  s.gap = gap_mul(r.gap, c < 0 ? checked_neg(c) : c);
  s.axes = r.axes;
  return s;
}

ValueRange divide(const ValueRange& r, int64_t d) {
  ValueRange s;
  s.min = floor_div(r.min, d);
  s.max = floor_div(r.max, d);
  s.axes = r.axes;
  // floor((x + g) / d) - floor(x / d) <= ceil(g / d).
  if (s.single()) {
    s.gap = 0;
  } else if (r.gap == kUnknownGap) {
    s.gap = kUnknownGap;
  } else {
    s.gap = r.gap / d + (r.gap % d != 0 ? 1 : 0);
  }
  return s;
}

}  // namespace lightning::annotation
