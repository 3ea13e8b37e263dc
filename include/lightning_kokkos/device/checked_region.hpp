// Checked mode's view of one array handle: what a checked handle's offset field points at
// (its data pointer is null). Compiled by the host compiler and, as text, by NVRTC (the
// record then lives in the GPU's memory): plain C++, no library.
#pragma once

#include <cstdint>

#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning {

/// The region a kernel may touch through one checked handle, where the chunk holding it lies
/// (row-major over its box, global coordinates, the array's stored axis order), and the
/// accesses outside it. The runtime owns it for the length of one kernel run
/// (worker::AccessCheck; on a GPU, a copy in device memory read back after the run).
struct CheckedRegion {
  unsigned char* data = nullptr;  ///< the chunk's first element
  uint64_t element_size = 0;
  int64_t rank = 0;
  int64_t lo[3] = {};  ///< the declared region: lo[a] <= i[a] < hi[a]
  int64_t hi[3] = {};
  int64_t chunk_lo[3] = {};  ///< the chunk box's first point
  int64_t stride[3] = {};    ///< the chunk's strides, in elements
  /// Accesses outside the region so far, and the index of the first one counted.
  unsigned long long outside_count = 0;
  int64_t first_outside[3] = {};
  /// What an access outside gets, so that the run goes on to its end.
  alignas(16) unsigned char scratch[64] = {};

  /// The address of element (i, j, k) (axes beyond the rank 0), or null when it is outside
  /// the declared region.
  LIGHTNING_INLINE void* element(int64_t i, int64_t j, int64_t k) const {
    const int64_t p[3] = {i, j, k};
    int64_t index = 0;
    for (int a = 0; a < rank; ++a) {
      if (p[a] < lo[a] || p[a] >= hi[a]) return nullptr;
      index += (p[a] - chunk_lo[a]) * stride[a];
    }
    return data + static_cast<uint64_t>(index) * element_size;
  }

  /// Counts an access to (i, j, k) outside the region and returns the scratch element. Many
  /// threads may count at once (a GPU's, a team's on a host device); the first to count
  /// keeps its index.
  LIGHTNING_INLINE void* outside(int64_t i, int64_t j, int64_t k) {
#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
    const bool first = atomicAdd(&outside_count, 1ull) == 0ull;
#else
    const bool first = __atomic_fetch_add(&outside_count, 1ull, __ATOMIC_RELAXED) == 0ull;
#endif
    if (first) {
      first_outside[0] = i;
      first_outside[1] = j;
      first_outside[2] = k;
    }
    return scratch;
  }

  /// element(i, j, k), or the counted scratch element outside the region.
  LIGHTNING_INLINE void* checked(int64_t i, int64_t j, int64_t k) {
    if (void* e = element(i, j, k)) return e;
    return outside(i, j, k);
  }
};

/// The CheckedRegion a checked handle's offset field holds.
LIGHTNING_INLINE CheckedRegion* checked_region_of(int64_t offset) {
  return reinterpret_cast<CheckedRegion*>(static_cast<unsigned long long>(offset));
}

}  // namespace lightning
