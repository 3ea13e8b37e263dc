// A region of row-major box buffers (see worker::BoxBuffer) as the driver's copies see it:
// one contiguous run of bytes, or a 3-D strided copy (CUDA_MEMCPY3D).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "core/rect.hpp"

namespace lightning::cuda {

/// How to copy `region` from a buffer over `src_box` to one over `dst_box` (elements of
/// `elem_size` bytes, row-major, last axis fastest). Boxes of rank below 3 are taken as
/// having leading axes of extent 1. Pure arithmetic: tested without a GPU.
struct RegionCopy {
  /// True when the region is one run of consecutive bytes in both buffers: then a plain
  /// copy of `bytes` from `src_offset` to `dst_offset` does it.
  bool contiguous = false;
  uint64_t bytes = 0;
  uint64_t src_offset = 0;
  uint64_t dst_offset = 0;
  /// The strided form (always valid): width in bytes along the last axis, rows (middle
  /// axis) and slices (first axis); per buffer the region's start in bytes / rows / slices
  /// and its pitch (bytes per row) and height (rows per slice).
  uint64_t width_bytes = 0, height = 0, depth = 0;
  uint64_t src_x_bytes = 0, src_y = 0, src_z = 0, src_pitch = 0, src_height = 0;
  uint64_t dst_x_bytes = 0, dst_y = 0, dst_z = 0, dst_pitch = 0, dst_height = 0;

  /// Throws Error(kInternal) naming the boxes when the region is not inside both, ranks
  /// differ or `elem_size` is 0. An empty region gives bytes == 0.
  static RegionCopy plan(const Rect& dst_box, const Rect& src_box, const Rect& region,
                         size_t elem_size);

  /// The strided form as the driver's descriptor; `*_type` is CU_MEMORYTYPE_HOST (the
  /// pointer goes to srcHost/dstHost) or CU_MEMORYTYPE_DEVICE/UNIFIED (srcDevice/dstDevice).
  CUDA_MEMCPY3D descriptor(void* dst, CUmemorytype dst_type, const void* src,
                           CUmemorytype src_type) const;
};

}  // namespace lightning::cuda
