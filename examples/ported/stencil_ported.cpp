// The paper's stencil as a ported CUDA kernel (stencil.cu), iterated on every device the
// runtime has (GPUs, or host devices through the CUDA shim), checked against a sequential
// stencil.
//
//   stencil_ported [--size N] [--iterations K] [--chunk C] [--lightning-devices=cuda ...]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <vector>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "ported_kernels.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    lightning::ScopeGuard runtime(argc, argv);
    int64_t n = 1 << 22;
    int iterations = 10;
    int64_t chunk = 1 << 18;
    const int block = 256;
    CLI::App app("The paper's stencil, ported from CUDA, on every GPU.");
    app.add_option("--size", n, "elements")->check(CLI::Range(int64_t{3}, int64_t{1} << 31));
    app.add_option("--iterations", iterations, "stencil steps")->check(CLI::Range(1, 1 << 20));
    app.add_option("--chunk", chunk, "elements per chunk and superblock (multiple of 256)")
        ->check(CLI::Range(int64_t{block}, int64_t{1} << 40));
    CLI11_PARSE(app, argc, argv);
    chunk = (chunk + block - 1) / block * block;

    lightning::View<float*> a("a", n, lightning::dist::stencil(chunk, 1));
    lightning::View<float*> b("b", n, lightning::dist::stencil(chunk, 1));
    Kokkos::View<float*, Kokkos::HostSpace> init("init", n);
    for (int64_t i = 0; i < n; ++i) init(i) = float(i % 17);
    Kokkos::deep_copy(a, init);
    Kokkos::deep_copy(b, init);

    const int64_t grid = (n + block - 1) / block;
    const auto start = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) {
      const auto& in = it % 2 ? b : a;
      const auto& out = it % 2 ? a : b;
      ported::stencil_kernel().launch(grid, block, lightning::work::block(chunk),
                                      static_cast<int>(n), out, in);
    }
    lightning::fence();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    Kokkos::View<float*, Kokkos::HostSpace> result("result", n);
    Kokkos::deep_copy(result, iterations % 2 ? b : a);
    std::vector<float> x(init.data(), init.data() + n), y = x;
    for (int it = 0; it < iterations; ++it) {
      for (int64_t i = 1; i + 1 < n; ++i) y[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0f;
      std::swap(x, y);
    }
    size_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += result(i) != x[i];
    std::printf("{\"elements\": %lld, \"iterations\": %d, \"seconds\": %.6f, \"wrong\": %zu}\n",
                static_cast<long long>(n), iterations, seconds, wrong);
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stencil_ported: %s\n", e.what());
    return 1;
  }
}
