// The grids and blocks of the runtime's own (non-team, non-ported) GPU launches: one rule,
// used by the device and by the benchmarks that compare against it. Needs no cuda.h.
#pragma once

#include <cstdint>

namespace lightning::cuda {

/// Threads per block of every launch (1-D blocks; the generated entry point derives each
/// thread's point from its linear index).
inline constexpr int kBlockThreads = 256;

/// Indices each thread of a large launch runs (see grid_blocks).
inline constexpr int64_t kIndicesPerThread = 4;

/// Number of blocks for a launch of `volume` threads. Kernels without reduction: a grid of a
/// kIndicesPerThread-th of the indices (each thread runs that many, grid-stride), but never
/// fewer blocks than four waves (32 per SM) or than one thread per index, whichever is
/// smaller, and at most 2^24; so small launches keep one index per thread (and the
/// one-index-per-thread entry point), large ones start and retire 4 times fewer blocks
/// (measured 7-14% faster than one index per thread on an H200, docs/results.md).
/// Reductions are capped at 8 blocks per SM: each block writes one partial, which the host
/// joins. Blocks have `block_threads` threads (kBlockThreads but for array reductions).
int64_t grid_blocks(int64_t volume, bool reduction, int multiprocessors,
                    int64_t block_threads = kBlockThreads);

/// Threads per block of an array reduction whose values are `value_bytes` each: every thread
/// keeps its value in the block's shared memory, of which `shared_bytes` are free; as many
/// threads as fit, up to kBlockThreads, in whole warps where a warp fits (Kokkos' CUDA
/// back-end also sizes such blocks by their shared memory). 0: not one value fits.
int64_t array_reduction_threads(uint64_t value_bytes, int64_t shared_bytes);

}  // namespace lightning::cuda
