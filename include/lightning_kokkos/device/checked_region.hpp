// Checked mode's view of one array handle: what a checked handle's offset field points at
// (its data pointer is null). Host code only; plain C++, no library.
#pragma once

#include <cstdint>

namespace lightning {

/// The region a kernel may touch through one checked handle, and where the chunk holding it
/// lies (row-major over its box, global coordinates, the array's stored axis order). The
/// runtime owns it for the length of one kernel run (worker::AccessCheck).
struct CheckedRegion {
  unsigned char* data = nullptr;  ///< the chunk's first element
  uint64_t element_size = 0;
  int rank = 0;
  int64_t lo[3] = {};  ///< the declared region: lo[a] <= i[a] < hi[a]
  int64_t hi[3] = {};
  int64_t chunk_lo[3] = {};  ///< the chunk box's first point
  int64_t stride[3] = {};    ///< the chunk's strides, in elements
  void* record = nullptr;    ///< the runtime's record of the handle (accesses outside)

  /// The address of element (i, j, k) (axes beyond the rank 0), or null when it is outside
  /// the declared region.
  void* element(int64_t i, int64_t j, int64_t k) const {
    const int64_t p[3] = {i, j, k};
    int64_t index = 0;
    for (int a = 0; a < rank; ++a) {
      if (p[a] < lo[a] || p[a] >= hi[a]) return nullptr;
      index += (p[a] - chunk_lo[a]) * stride[a];
    }
    return data + static_cast<uint64_t>(index) * element_size;
  }
};

}  // namespace lightning
