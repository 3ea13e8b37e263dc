// Overflow-checked int64 arithmetic for index evaluation. Annotations come from users (and a
// fuzzer): an index such as `i * 4611686018427387904` must fail cleanly, not wrap around
// into a wrong (too small) region.
#pragma once

#include <cstdint>

namespace lightning::annotation {

/// Thrown by the checked operations; the evaluator turns it into an Error that points at the
/// rule being evaluated. Never escapes the module.
struct IndexOverflow {};

inline int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw IndexOverflow{};
  return r;
}
inline int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw IndexOverflow{};
  return r;
}
inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw IndexOverflow{};
  return r;
}
inline int64_t checked_neg(int64_t a) {
  return checked_sub(0, a);
}

/// floor(a / d) for d > 0 (C++ division truncates toward zero; the language floors).
inline int64_t floor_div(int64_t a, int64_t d) {
  int64_t q = a / d;
  if (a % d != 0 && a < 0) --q;
  return q;
}

}  // namespace lightning::annotation
