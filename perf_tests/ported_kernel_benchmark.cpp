// Ported CUDA kernels through the runtime against the original kernels launched natively on
// the same grid, on one GPU: the shared-memory tiled GEMM (examples/ported/gemm.cu) and the
// shared-memory N-body (nbody.cu). The native side is each kernel as it was before the port
// (`__global__`, raw pointers), compiled by NVRTC with the runtime's options and launched
// with the driver API over the whole grid on plain cuMemAlloc buffers. One warm-up each, then
// the median of R runs (each: launch, wait); results compared element by element.
// Prints one JSON object; exits 77 without a GPU.
//
//   ported_kernel_benchmark [--gemm-n=N] [--bodies=N] [--repeats=R] [--lightning-devices=cuda:0]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_context.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "backend/cuda/nvrtc_compiler.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"
#include "native_gpu.hpp"
#include "ported_kernels.hpp"

namespace {

using namespace lightning;
using perf::Native;
using perf::timed;
using F4 = lightning::float4;

// The kernels before the port (the runtime's versions differ in the three documented ways).
const char* kNative = R"(
#include <cstdint>
#define GEMM_TILE 16
extern "C" __global__ void __launch_bounds__(GEMM_TILE * GEMM_TILE)
    gemm_tiled(int m, int n, int k, const float* A, const float* B, float* C) {
  __shared__ float a[GEMM_TILE][GEMM_TILE];
  __shared__ float b[GEMM_TILE][GEMM_TILE];
  const int row = blockIdx.y * GEMM_TILE + threadIdx.y;
  const int col = blockIdx.x * GEMM_TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < k; t += GEMM_TILE) {
    a[threadIdx.y][threadIdx.x] =
        row < m && t + threadIdx.x < k ? A[(int64_t)row * k + t + threadIdx.x] : 0.0f;
    b[threadIdx.y][threadIdx.x] =
        t + threadIdx.y < k && col < n ? B[(int64_t)(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < GEMM_TILE; ++i) sum += a[threadIdx.y][i] * b[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C[(int64_t)row * n + col] = sum;
}
extern "C" __global__ void nbody_accelerations(int n, float softening2, const float4* bodies,
                                               float4* accelerations) {
  extern __shared__ float4 tile[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = i < n ? bodies[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += blockDim.x) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? bodies[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    for (unsigned k = 0; k < blockDim.x; ++k) {
      const float4 other = tile[k];
      const float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
      const float inverse = rsqrtf(dx * dx + dy * dy + dz * dz + softening2);
      const float s = other.w * inverse * inverse * inverse;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  if (i < n) accelerations[i] = make_float4(ax, ay, az, 0.0f);
}
)";

struct Result {
  const char* name;
  double native_s, runtime_s, work;  // work: flops or interactions per run
  double max_difference;
  const char* work_unit;
};

Result gemm(Native& native, int n, int repeats) {
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float(int(i % 13) - 6) * 0.25f;
    b[i] = float(int(i % 7) - 3) * 0.5f;
  }
  const unsigned grid[3] = {unsigned((n + 15) / 16), unsigned((n + 15) / 16), 1};
  const unsigned block[3] = {16, 16, 1};
  CUdeviceptr da = native.upload(a), db = native.upload(b);
  CUdeviceptr dc = native.upload(std::vector<float>(size_t(n) * n, 0.0f));
  const CUfunction f = native.function("gemm_tiled");
  void* params[] = {&n, &n, &n, &da, &db, &dc};
  const double native_s = timed(repeats, [&] { native.launch(f, grid, block, 0, params); });
  const std::vector<float> expected = native.download<float>(dc, size_t(n) * n);

  View<float**> A("A", n, n), B("B", n, n), C("C", n, n);
  Kokkos::View<float**, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> ha(a.data(), n, n),
      hb(b.data(), n, n);
  Kokkos::deep_copy(A, ha);
  Kokkos::deep_copy(B, hb);
  const CudaLaunch shape{{grid[0], grid[1]}, {16, 16}};
  const auto work = lightning::work::block(1, int64_t{n});  // one superblock: the native grid
  const double runtime_s = timed(repeats, [&] {
    ported::gemm_kernel().launch(shape, work, n, n, n, A, B, C);
    lightning::fence();
  });
  Kokkos::View<float**, Kokkos::HostSpace> hc("hc", n, n);
  Kokkos::deep_copy(hc, C);
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    worst = std::max(worst, double(std::fabs(hc.data()[i] - expected[i])));
  return {"gemm_tiled", native_s, runtime_s, 2.0 * n * double(n) * n, worst, "flop"};
}

Result nbody(Native& native, int n, int repeats) {
  std::vector<F4> bodies(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    bodies[size_t(i)] = {float(i % 97) * 0.1f, float(i % 89) * 0.13f - 5.0f, float(i % 83) * 0.07f,
                         1.0f + float(i % 5)};
  const unsigned threads = 256;
  const unsigned grid[3] = {unsigned((n + threads - 1) / threads), 1, 1};
  const unsigned block[3] = {threads, 1, 1};
  const unsigned shared = threads * sizeof(F4);
  float softening2 = 0.01f;
  CUdeviceptr db = native.upload(bodies);
  CUdeviceptr da = native.upload(std::vector<F4>(size_t(n)));
  const CUfunction f = native.function("nbody_accelerations");
  void* params[] = {&n, &softening2, &db, &da};
  const double native_s = timed(repeats, [&] { native.launch(f, grid, block, shared, params); });
  const std::vector<F4> expected = native.download<F4>(da, size_t(n));

  View<F4*> B("bodies", n), A("accelerations", n);
  Kokkos::View<F4*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hb(bodies.data(), n);
  Kokkos::deep_copy(B, hb);
  const CudaLaunch shape{grid[0], threads, shared};
  const auto work = lightning::work::block(int64_t{grid[0]} * threads);
  const double runtime_s = timed(repeats, [&] {
    ported::nbody_kernel().launch(shape, work, n, softening2, B, A);
    lightning::fence();
  });
  Kokkos::View<F4*, Kokkos::HostSpace> ha("ha", n);
  Kokkos::deep_copy(ha, A);
  double worst = 0;
  for (int i = 0; i < n; ++i)
    worst = std::max({worst, double(std::fabs(ha(i).x - expected[size_t(i)].x)),
                      double(std::fabs(ha(i).y - expected[size_t(i)].y)),
                      double(std::fabs(ha(i).z - expected[size_t(i)].z))});
  return {"nbody", native_s, runtime_s, double(n) * n, worst, "interaction"};
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    lightning::ScopeGuard runtime(argc, argv);
    int gemm_n = 4096, bodies = 1 << 18, repeats = 5;
    CLI::App app("Ported CUDA kernels through the runtime against the originals, natively.");
    app.add_option("--gemm-n", gemm_n, "GEMM size (n x n times n x n)")
        ->check(CLI::Range(16, 1 << 15));
    app.add_option("--bodies", bodies, "N-body bodies")->check(CLI::Range(256, 1 << 22));
    app.add_option("--repeats", repeats, "timed runs (median)")->check(CLI::Range(1, 100));
    CLI11_PARSE(app, argc, argv);
    if (!cuda::DriverApi::available()) {
      std::fprintf(stderr, "ported_kernel_benchmark: no GPU (%s)\n",
                   cuda::DriverApi::unavailable_reason().c_str());
      return 77;
    }
    const auto gpus = cuda::discover_gpus();
    if (gpus.empty()) {
      std::fprintf(stderr, "ported_kernel_benchmark: no GPU\n");
      return 77;
    }
    Native native(gpus[0], kNative);
    const Result results[] = {gemm(native, gemm_n, repeats), nbody(native, bodies, repeats)};
    std::printf(
        "{\"benchmark\": \"ported_kernels\", \"gpu\": \"%s\", \"repeats\": %d, "
        "\"kernels\": [\n",
        gpus[0].name.c_str(), repeats);
    for (size_t i = 0; i < 2; ++i) {
      const Result& r = results[i];
      std::printf(
          "  {\"kernel\": \"%s\", \"native_s\": %.6f, \"runtime_s\": %.6f, "
          "\"overhead_percent\": %.2f, \"native_%s_per_s\": %.4g, "
          "\"runtime_%s_per_s\": %.4g, \"max_difference\": %.3g}%s\n",
          r.name, r.native_s, r.runtime_s, (r.runtime_s / r.native_s - 1) * 100, r.work_unit,
          r.work / r.native_s, r.work_unit, r.work / r.runtime_s, r.max_difference,
          i == 0 ? "," : "");
    }
    std::printf("]}\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ported_kernel_benchmark: %s\n", e.what());
    return 1;
  }
}
