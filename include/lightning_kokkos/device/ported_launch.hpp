// How a ported CUDA kernel is launched: the <<<grid, block, shared bytes>>> of the CUDA
// launch it replaces. Stored at the end of the kernel's parameter bytes, so it travels with
// every launch to every rank and device. Compiled by the host compiler and, as text, by
// NVRTC: plain C++, no library.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/// Dynamic shared memory, spelt so that the CUDA shim can provide it on host devices too
/// (lightning_kokkos/cuda_shim.hpp): `LIGHTNING_DYNAMIC_SHARED(float, tile);` is CUDA's
/// `extern __shared__ float tile[];`.
#define LIGHTNING_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

namespace lightning::jit {

/// A ported kernel's launch shape. Axis 0 of the launch domain is x, 1 is y, 2 is z: thread
/// (x, y, z) of the grid is domain point (x, y, z)[0:rank], blocks are `block` threads per
/// axis; axes at and beyond `rank` have one block of one thread. The layout is fixed (32
/// bytes): host and device must agree on it.
struct PortedLaunch {
  uint32_t grid[3];       ///< blocks of the whole launch per axis: gridDim as the kernel sees it
  uint32_t block[3];      ///< threads per block per axis: blockDim
  uint32_t shared_bytes;  ///< dynamic shared memory per block (extern __shared__)
  uint32_t rank;          ///< axes of the launch domain, 1 to 3
};

static_assert(sizeof(PortedLaunch) == 32, "PortedLaunch is part of a kernel's raw bytes");

}  // namespace lightning::jit
