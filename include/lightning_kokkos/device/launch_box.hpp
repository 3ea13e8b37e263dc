// The thread indices one kernel launch on a GPU covers: the superblock, as the generated
// entry point receives it. Compiled by the host compiler and, as text, by NVRTC: plain C++,
// no library.
#pragma once

#include <cstdint>

namespace lightning::jit {

/// A superblock of thread indices, half-open per axis: `lo[a] <= i[a] < hi[a]` for
/// `a < rank`; axes at and beyond `rank` are `lo = 0, hi = 1`, so the volume is the product
/// of all three extents. Passed by value as the second parameter of every generated entry
/// point: `extern "C" __global__ void entry(Functor f, LaunchBox box, void* partials)`.
/// The layout is fixed (56 bytes: six int64 and one int32, padded): host and device must
/// agree on it.
struct LaunchBox {
  int64_t lo[3];
  int64_t hi[3];
  int32_t rank;
};

static_assert(sizeof(LaunchBox) == 56, "LaunchBox is passed as raw kernel parameter bytes");

}  // namespace lightning::jit
