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

}  // namespace ported
