// N-body accelerations as a ported CUDA kernel (nbody.cu): every body's pull on every other,
// through shared-memory tiles of one block's size (dynamic shared memory), the bodies read
// whole by every superblock; checked against a sequential computation in double precision.
//
//   nbody_ported [--bodies N] [--block B] [--chunk C] [--repeat R] [--lightning-devices=...]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "ported_kernels.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    lightning::ScopeGuard runtime(argc, argv);
    int n = 1 << 16, block = 256, repeat = 3;
    int64_t chunk = 1 << 14;
    CLI::App app("All-pairs N-body accelerations, ported from CUDA, with shared-memory tiles.");
    app.add_option("--bodies", n, "bodies")->check(CLI::Range(1, 1 << 26));
    app.add_option("--block", block, "threads per block (the tile)")->check(CLI::Range(1, 1024));
    app.add_option("--chunk", chunk, "bodies per superblock (rounded up to blocks)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    app.add_option("--repeat", repeat, "launches")->check(CLI::Range(1, 1000));
    CLI11_PARSE(app, argc, argv);
    const float softening2 = 0.01f;

    using lightning::float4;
    lightning::View<float4*> bodies("bodies", n), accelerations("accelerations", n);
    Kokkos::View<float4*, Kokkos::HostSpace> init("init", n);
    for (int i = 0; i < n; ++i)
      init(i) = {float(i % 97) * 0.1f, float(i % 89) * 0.13f - 5.0f, float(i % 83) * 0.07f,
                 1.0f + float(i % 5)};
    Kokkos::deep_copy(bodies, init);

    const int64_t grid = (n + block - 1) / block;
    const lightning::CudaLaunch shape{grid, block, sizeof(float4) * uint64_t(block)};
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeat; ++r)
      ported::nbody_kernel().launch(shape, lightning::work::block(chunk), n, softening2, bodies,
                                    accelerations);
    lightning::fence();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeat;

    Kokkos::View<float4*, Kokkos::HostSpace> got("got", n);
    Kokkos::deep_copy(got, accelerations);
    // Check a sample of bodies (all when few) against double precision.
    double worst = 0;
    const int stride = n > 4096 ? n / 4096 : 1;
    for (int i = 0; i < n; i += stride) {
      double a[3] = {0, 0, 0}, size = 0;
      for (int j = 0; j < n; ++j) {
        const double d[3] = {double(init(j).x) - init(i).x, double(init(j).y) - init(i).y,
                             double(init(j).z) - init(i).z};
        const double inverse =
            1.0 / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening2);
        for (int c = 0; c < 3; ++c) a[c] += d[c] * init(j).w * inverse * inverse * inverse;
      }
      const double g[3] = {got(i).x, got(i).y, got(i).z};
      for (int c = 0; c < 3; ++c) size = std::max(size, std::fabs(a[c]));
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(g[c] - a[c]) / (size + 1e-30));
    }
    const bool ok = worst <= 1e-3;
    const double interactions = double(n) * double(n) / seconds;
    std::printf(
        "{\"bodies\": %d, \"block\": %d, \"seconds\": %.6f, \"interactions_per_s\": %.4g, "
        "\"max_relative_error\": %.3g, \"ok\": %s}\n",
        n, block, seconds, interactions, worst, ok ? "true" : "false");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbody_ported: %s\n", e.what());
    return 1;
  }
}
