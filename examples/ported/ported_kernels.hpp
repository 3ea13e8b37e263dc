// The ported CUDA kernels of the examples (stencil.cu, kmeans_assign.cu, hotspot.cu), registered
// once per process. Shared by the example programs and the test that compiles every registered
// kernel to a cubin.
#pragma once

#include "lightning_kokkos/cuda_kernel.hpp"

namespace ported {

/// stencil(n, output, input): the paper's 1-D three-point stencil.
const lightning::CudaKernel& stencil_kernel();
/// kmeans_assign(n, k, d, points, centroids, labels): nearest centroid of each point.
const lightning::CudaKernel& kmeans_assign_kernel();
/// hotspot(steps, rows, cols, power, src, dst, cap, rx, ry, rz, step, ambient): `steps`
/// thermal steps of a rows x cols grid, in 16x16 blocks with a shared-memory pyramid.
const lightning::CudaKernel& hotspot_kernel();
/// nbody_accelerations(n, softening2, bodies, accelerations): all-pairs gravity through
/// shared-memory tiles of the block's size (dynamic shared memory: block × 16 bytes).
const lightning::CudaKernel& nbody_kernel();
/// gemm_tiled(m, n, k, A, B, C): C = A B (m x k times k x n) in 16x16 shared-memory tiles,
/// launched as a grid of ceil(n / 16) x ceil(m / 16) blocks of 16 x 16.
const lightning::CudaKernel& gemm_kernel();

}  // namespace ported
