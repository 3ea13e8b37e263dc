// The ported CUDA kernels of the examples (stencil.cu, kmeans_assign.cu, hotspot.cu, nbody.cu,
// gemm.cu, black_scholes.cu), registered once per process, and the Black-Scholes inputs and
// check. Shared by the example programs, the benchmarks and the test that compiles every
// registered kernel to a cubin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lightning_kokkos/cuda_kernel.hpp"
#include "lightning_kokkos/vector_types.hpp"

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
/// black_scholes(call, put, stock_price, option_strike, option_years, riskfree, volatility,
/// opt_n): call and put prices of opt_n options, two a thread (the lanes of float2 element
/// i), launched as the cuda-samples sample does: blocks of 128, ceil(opt_n / 2 / 128) of them.
const lightning::CudaKernel& black_scholes_kernel();

/// Black-Scholes inputs as the cuda-samples sample makes them (stock price in [5, 30], strike
/// in [1, 100], years in [0.25, 10]), from a fixed generator: opt_n / 2 elements of two options.
struct OptionInputs {
  std::vector<lightning::float2> stock_price, option_strike, option_years;
};
OptionInputs random_options(int64_t opt_n);
/// For a command line's option count: empty when `text` is even, else why it cannot be (the
/// kernel prices two options a thread, as float2 pairs).
std::string options_not_even(const std::string& text);

/// The sample's check of computed prices against the formula in double precision: the L1
/// distance of the call prices relative to their L1 norm, and the largest absolute
/// difference over calls and puts; over every `stride`-th element (1: all).
struct PriceErrors {
  double l1_norm = 0, max_abs = 0;
};
PriceErrors black_scholes_errors(const OptionInputs& in, const lightning::float2* call,
                                 const lightning::float2* put, float riskfree, float volatility,
                                 size_t stride = 1);

}  // namespace ported
