// The cost of the generated entry points on one GPU: LIGHTNING_KERNEL saxpy and stencil run
// through their generated wrappers (functor bytes with folded chunk offsets, LaunchBox; the
// one-index-per-thread entry the runtime launches on covering grids, and the grid-stride
// entry on full and capped grids) against the same kernels written by hand as plain CUDA,
// both compiled by NVRTC with the same options, at a size that fills the GPU's bandwidth.
// Prints JSON; exits 77 without a GPU.
//
//   jit_wrapper_benchmark [elements (default 2^28)] [launches per round (default 20)]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../unit_tests/backend_cuda/cuda_test_driver.hpp"
#include "../unit_tests/kokkos/kokkos_test_kernels.hpp"
#include "backend/cuda/jit_cache.hpp"
#include "backend/cuda/kernel_codegen.hpp"
#include "backend/cuda/launch_grid.hpp"
#include "backend/cuda/nvrtc_compiler.hpp"

namespace {

using namespace lightning;
using namespace lightning::cuda;
using namespace lightning::cuda::test;

const char* kHandWritten = R"(
#include <cstdint>
extern "C" __global__ void saxpy(int64_t n, float a, const float* x, float* y) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void stencil(int64_t n, const float* in, float* out) {
  const int64_t i = 1 + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n - 1) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3;
}
)";

template <class D>
using LView = lightning::View<D>;

CUfunction function_of(const std::vector<char>& cubin, const char* name) {
  CUmodule module = nullptr;
  CUfunction f = nullptr;
  LK_CU(cuModuleLoadData(&module, cubin.data()));
  LK_CU(cuModuleGetFunction(&f, module, name));
  return f;
}

// Median over rounds of the time per launch (ms) of `launches` back-to-back launches.
double time_per_launch(CUfunction f, unsigned grid, void** params, int launches) {
  void* start = nullptr;
  void* stop = nullptr;
  LK_CU(cuEventCreate(&start, 0));
  LK_CU(cuEventCreate(&stop, 0));
  std::vector<double> rounds;
  for (int round = 0; round < 7; ++round) {
    LK_CU(cuEventRecord(start, nullptr));
    for (int l = 0; l < launches; ++l)
      LK_CU(cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
    LK_CU(cuEventRecord(stop, nullptr));
    LK_CU(cuEventSynchronize(stop));
    float ms = 0;
    LK_CU(cuEventElapsedTime(&ms, start, stop));
    if (round > 0) rounds.push_back(ms / launches);  // round 0 warms up
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  api = open_driver();
  if (!api) {
    std::printf("jit_wrapper_benchmark: no CUDA driver or GPU here: skipped\n");
    return 77;
  }
  try {
    const int64_t n = argc > 1 ? std::atoll(argv[1]) : (int64_t{1} << 28);
    const int launches = argc > 2 ? std::atoi(argv[2]) : 20;
    const unsigned grid = static_cast<unsigned>((n + 255) / 256);
    // The generated entry points also run with a grid capped at one wave (8 blocks of 256
    // per multiprocessor): the grid-stride loop then gives each thread many indices.
    const unsigned wave = static_cast<unsigned>(api->multiprocessors) * 8;
    std::vector<float> host(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) host[i] = float(i % 97);
    DeviceBuffer<float> x(host), y(host);

    JitCache cache("");
    const std::vector<char> native = compile_to_cubin({"hand-written", "native.cu", kHandWritten},
                                                      nvrtc_options(api->sm_major, api->sm_minor))
                                         .cubin;
    const Rect all(Point{0}, Point{n});
    std::printf(
        "{\"elements\": %lld, \"launches_per_round\": %d, \"gpu\": \"sm_%d%d\", "
        "\"kernels\": [\n",
        static_cast<long long>(n), launches, api->sm_major, api->sm_minor);

    // saxpy: reads x and y, writes y: 12 bytes per element.
    using Saxpy = lk_test::Saxpy<LView<const float*>, LView<float*>>;
    const kernel::KernelInfo& saxpy = kernel::KernelRegistry::get(kernel_registration<Saxpy>().id);
    Saxpy sf;
    sf.a = 0.5f;
    std::vector<unsigned char> bytes(sizeof(Saxpy));
    std::memcpy(bytes.data(), static_cast<const void*>(&sf), sizeof(Saxpy));
    patch(bytes, saxpy.description.arrays[0].byte_offset, x, all, {n});
    patch(bytes, saxpy.description.arrays[1].byte_offset, y, all, {n});
    jit::LaunchBox box = box_of(all);
    void* no_partials = nullptr;
    void* generated_params[] = {bytes.data(), &box, &no_partials};
    const KernelImage& gs = cache.get(saxpy, api->sm_major, api->sm_minor);
    const CUfunction gs_function = function_of(gs.cubin, gs.entry.c_str());
    const CUfunction gs_cover = function_of(gs.cubin, kCoverEntryName);
    const double g_saxpy = time_per_launch(gs_function, grid, generated_params, launches);
    const double cover_saxpy = time_per_launch(gs_cover, grid, generated_params, launches);
    // The grid the runtime would launch for this box (several indices per thread).
    const unsigned runtime_grid =
        static_cast<unsigned>(grid_blocks(n, false, api->multiprocessors));
    const double r_saxpy = time_per_launch(gs_function, runtime_grid, generated_params, launches);
    const double c_saxpy =
        time_per_launch(gs_function, std::min(grid, wave), generated_params, launches);
    const double c4_saxpy =
        time_per_launch(gs_function, std::min(grid, 4 * wave), generated_params, launches);
    float a = 0.5f;
    void* native_saxpy_params[] = {const_cast<int64_t*>(&n), &a, &x.ptr, &y.ptr};
    const double n_saxpy =
        time_per_launch(function_of(native, "saxpy"), grid, native_saxpy_params, launches);

    // stencil over [1, n-1): reads in, writes out: 8 bytes per element.
    using Stencil = lk_test::Stencil<LView<const float*>, LView<float*>>;
    const kernel::KernelInfo& stencil =
        kernel::KernelRegistry::get(kernel_registration<Stencil>().id);
    std::vector<unsigned char> sbytes(sizeof(Stencil), 0);
    patch(sbytes, stencil.description.arrays[0].byte_offset, x, all, {n});
    patch(sbytes, stencil.description.arrays[1].byte_offset, y, all, {n});
    jit::LaunchBox inner = box_of(Rect(Point{1}, Point{n - 1}));
    void* generated_stencil_params[] = {sbytes.data(), &inner, &no_partials};
    const KernelImage& gst = cache.get(stencil, api->sm_major, api->sm_minor);
    const unsigned inner_grid = static_cast<unsigned>((n - 2 + 255) / 256);
    const CUfunction gst_function = function_of(gst.cubin, gst.entry.c_str());
    const CUfunction gst_cover = function_of(gst.cubin, kCoverEntryName);
    const double g_stencil =
        time_per_launch(gst_function, inner_grid, generated_stencil_params, launches);
    const double cover_stencil =
        time_per_launch(gst_cover, inner_grid, generated_stencil_params, launches);
    const double r_stencil = time_per_launch(
        gst_function, static_cast<unsigned>(grid_blocks(n - 2, false, api->multiprocessors)),
        generated_stencil_params, launches);
    const double c_stencil = time_per_launch(gst_function, std::min(inner_grid, wave),
                                             generated_stencil_params, launches);
    const double c4_stencil = time_per_launch(gst_function, std::min(inner_grid, 4 * wave),
                                              generated_stencil_params, launches);
    void* native_stencil_params[] = {const_cast<int64_t*>(&n), &x.ptr, &y.ptr};
    const double n_stencil = time_per_launch(function_of(native, "stencil"), inner_grid,
                                             native_stencil_params, launches);

    // overhead_percent: the entry the runtime launches on such a grid (one index per thread);
    // grid_stride_overhead_percent: the general entry on the same grid.
    auto line = [&](const char* name, double cover, double generated, double runtime,
                    double one_wave, double four_waves, double hand, double bytes_per_element,
                    bool last) {
      auto over = [&](double t) { return 100.0 * (t - hand) / hand; };
      std::printf(
          "  {\"kernel\": \"%s\", \"hand_written_ms\": %.4f, "
          "\"hand_written_GBps\": %.1f, \"generated_ms\": %.4f, "
          "\"overhead_percent\": %.2f, \"grid_stride_ms\": %.4f, "
          "\"grid_stride_overhead_percent\": %.2f, \"runtime_grid_ms\": %.4f, "
          "\"runtime_grid_overhead_percent\": %.2f, \"one_wave_overhead_percent\": %.2f, "
          "\"four_waves_overhead_percent\": %.2f}%s\n",
          name, hand, bytes_per_element * double(n) / hand / 1e6, cover, over(cover), generated,
          over(generated), runtime, over(runtime), over(one_wave), over(four_waves),
          last ? "" : ",");
    };
    line("saxpy", cover_saxpy, g_saxpy, r_saxpy, c_saxpy, c4_saxpy, n_saxpy, 12, false);
    line("stencil", cover_stencil, g_stencil, r_stencil, c_stencil, c4_stencil, n_stencil, 8, true);
    std::printf("]}\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jit_wrapper_benchmark: %s\n", e.what());
    return 1;
  }
}
