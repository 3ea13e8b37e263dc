// Folding values into one hash, for keys hashed field by field.
#pragma once

#include <cstddef>

namespace lightning {

/// `h` with `v` folded in (boost's hash_combine with a 64-bit constant): order-sensitive,
/// so equal sequences of values give equal hashes.
inline size_t hash_mix(size_t h, size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

}  // namespace lightning
