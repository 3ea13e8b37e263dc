// What a kernel sees of one distributed array: the chunk it was given, addressed with global
// indices. Compiled by the host compiler and, as text, by NVRTC: plain C++, no library.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define LIGHTNING_INLINE __host__ __device__ inline
#else
#define LIGHTNING_INLINE inline
#endif

namespace lightning {

/// A rank-`Rank` view of the chunk a superblock was given. Element (i, j, k) in *global*
/// coordinates is `data[i * stride[0] + j * stride[1] + k - offset]`: the runtime sets `data`
/// to the chunk's storage (row-major over its box) and `offset` to the linear index of the
/// box's first element, so kernels index exactly as over the whole array. A chunk is dense
/// and row-major, so the last axis's stride is always 1: the accessors leave it out, which
/// lets the compiler see unit-stride loops (one multiply less per access, and vector code).
/// `extent` is the whole array's. The runtime writes these fields into the kernel's bytes
/// before each run (see RawArrayHandle), so the layout is fixed: data, offset, stride[Rank],
/// extent[Rank].
template <class T, int Rank>
struct ArrayHandle {
  static_assert(Rank >= 1 && Rank <= 3, "arrays have 1 to 3 axes");
  using value_type = T;
  static constexpr int rank = Rank;

  T* data = nullptr;
  int64_t offset = 0;
  int64_t stride[Rank] = {};
  int64_t extent[Rank] = {};

  LIGHTNING_INLINE T& operator()(int64_t i) const { return data[i - offset]; }
  LIGHTNING_INLINE T& operator()(int64_t i, int64_t j) const {
    return data[i * stride[0] + j - offset];
  }
  LIGHTNING_INLINE T& operator()(int64_t i, int64_t j, int64_t k) const {
    return data[i * stride[0] + j * stride[1] + k - offset];
  }
};

/// The byte layout the runtime patches, for any element type: an ArrayHandle<T, Rank> has
/// these fields at these offsets, and is array_handle_size(Rank) bytes long (only that much
/// of this struct may be touched).
struct RawArrayHandle {
  void* data;
  int64_t offset;
  int64_t stride_and_extent[6];  // stride[0..rank), then extent[0..rank)
};

/// Bytes of an ArrayHandle of `rank` axes: data, offset, stride[rank], extent[rank]. The one
/// statement of the handle's size, for every layer that lays out or patches kernel bytes.
LIGHTNING_INLINE constexpr unsigned long long array_handle_size(int rank) {
  return 16 + 16 * static_cast<unsigned long long>(rank);
}

/// The handle's data pointer with its chunk offset folded in: `data - offset` elements of
/// `element_bytes`, computed on integers (modulo 2^64: it may point outside the chunk), so
/// that `folded[i]` is global element i. What GPU code indexes (cuda::fold_chunk_offsets).
LIGHTNING_INLINE constexpr uint64_t folded_data(uint64_t data, int64_t offset,
                                                uint64_t element_bytes) {
  return data - static_cast<uint64_t>(offset) * element_bytes;
}

static_assert(sizeof(ArrayHandle<float, 1>) == array_handle_size(1) &&
                  sizeof(ArrayHandle<double, 2>) == array_handle_size(2) &&
                  sizeof(ArrayHandle<int, 3>) == array_handle_size(3),
              "ArrayHandle must match RawArrayHandle's layout");

}  // namespace lightning
