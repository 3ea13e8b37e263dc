// The ported CUDA kernels of the PortedBlocks tests (kokkos_ported_blocks_test.cpp, each
// against a sequential reference there): blocks of 1-3 axes and many shapes, static and
// dynamic shared memory, shared and global atomics, warp intrinsics, and kernels that break
// CUDA's rules or whose annotations do not fit their launches. Registered once per binary by
// kokkos_ported_kernels.cpp (linked into the adapter's tests and registered_kernels_cubin_test,
// which compiles each to an sm_90 cubin); on host devices through the CUDA shim.
#pragma once

#include "lightning_kokkos/cuda_kernel.hpp"

namespace lk_ported {

/// reverse_tiles(out, in): 8 x 4 blocks over a 2-D grid, each reversing its tile through
/// static shared memory (`block [bx, by]`).
extern const lightning::CudaKernel kReverse;
/// block_sums(sums, in): blocks of 64 threads, a tree sum in dynamic shared memory (64
/// long longs), shared atomics, gridDim.
extern const lightning::CudaKernel kBlockSums;
/// where(out): 3-D blocks over a 3-D grid, every thread writing where it is (`global`).
extern const lightning::CudaKernel kWhere;
/// where(out) again, annotated with three block and three local axes of 4 x 2 x 2 blocks.
extern const lightning::CudaKernel kWhereByBlocks;
/// from_helper(out): a __device__ helper reading blockIdx itself.
extern const lightning::CudaKernel kFromHelper;
/// warp_ops(out, in): shuffles, ballots and votes per warp.
extern const lightning::CudaKernel kWarpOps;
/// warp_leaver(out): lane 0 leaves while the others wait at a __syncwarp.
extern const lightning::CudaKernel kWarpLeaver;
/// divergent(out): diverged lanes at different warp intrinsics.
extern const lightning::CudaKernel kDivergent;
/// leaver(out): thread 0 leaves while the others wait at a __syncthreads.
extern const lightning::CudaKernel kLeaver;
/// reads_ahead(out, in, n): reads in[i + 1] under `read in[i]`.
extern const lightning::CudaKernel kReadsAhead;
/// transpose_tiles(out, in, rows, cols): CUDA's 32 x 32 shared-memory tile transpose in
/// blocks of 32 x 8 threads (each thread moves four rows), `block [bx, by], local [tx, ty]`.
extern const lightning::CudaKernel kTransposeTiles;
/// block_sum_1024(sums, in, n): blocks of 1024 threads (its __launch_bounds__), a tree sum
/// in static shared memory.
extern const lightning::CudaKernel kBlockSum1024;
/// histogram(hist, in, n, bins): per block a histogram in dynamic shared memory (bins ints),
/// added to `hist` with global atomics; `hist` annotated `reduce(+) hist[:]`.
extern const lightning::CudaKernel kHistogramReduce;
/// The same kernel with `hist` annotated `readwrite hist[:]`.
extern const lightning::CudaKernel kHistogramReadwrite;
/// sum_all(total, in, n): per block a sum in shared memory, added to total[0] with a global
/// atomic; annotated `reduce(+) total[0]`.
extern const lightning::CudaKernel kSumAll;
/// fill_ones(out): out[i] = 1, annotated with two local axes (`block b, local [t, u]`): for
/// 2-D launches only.
extern const lightning::CudaKernel kTwoLocalAxes;

}  // namespace lk_ported
