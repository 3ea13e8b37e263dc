// The k-means assignment step as a ported CUDA kernel (kmeans_assign.cu) on every device the
// runtime has (GPUs, or host devices through the CUDA shim), checked against a sequential
// assignment.
//
//   kmeans_ported [--points N] [--clusters K] [--dims D] [--chunk C]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "ported_kernels.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    lightning::ScopeGuard runtime(argc, argv);
    int64_t n = 1 << 20;
    int k = 16;
    int d = 8;
    int64_t chunk = 1 << 16;
    const int block = 256;
    CLI::App app("k-means assignment, ported from CUDA, on every GPU.");
    app.add_option("--points", n, "points")->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
    app.add_option("--clusters", k, "centroids")->check(CLI::Range(1, 1 << 12));
    app.add_option("--dims", d, "coordinates per point")->check(CLI::Range(1, 1 << 10));
    app.add_option("--chunk", chunk, "points per chunk and superblock (multiple of 256)")
        ->check(CLI::Range(int64_t{block}, int64_t{1} << 40));
    CLI11_PARSE(app, argc, argv);
    chunk = (chunk + block - 1) / block * block;

    Kokkos::View<float**, Kokkos::HostSpace> host_points("points", n, d);
    Kokkos::View<float**, Kokkos::HostSpace> host_centroids("centroids", k, d);
    uint64_t state = 12345;
    auto next = [&] {  // a fixed LCG: the same data on every run
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return float((state >> 40) % 1000) / 10.0f;
    };
    for (int64_t i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j) host_points(i, j) = next();
    for (int c = 0; c < k; ++c)
      for (int j = 0; j < d; ++j) host_centroids(c, j) = next();

    lightning::View<float**> points("points", n, d, lightning::dist::rows(chunk));
    lightning::View<float**> centroids("centroids", k, d, lightning::dist::replicated());
    lightning::View<int*> labels("labels", n, lightning::dist::block(chunk));
    Kokkos::deep_copy(points, host_points);
    Kokkos::deep_copy(centroids, host_centroids);

    const auto start = std::chrono::steady_clock::now();
    ported::kmeans_assign_kernel().launch((n + block - 1) / block, block,
                                          lightning::work::block(chunk), static_cast<int>(n), k, d,
                                          points, centroids, labels);
    lightning::fence();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    Kokkos::View<int*, Kokkos::HostSpace> result("result", n);
    Kokkos::deep_copy(result, labels);
    // Exact comparison: the same float operations in the same order on both sides (NVRTC
    // runs without fused multiply-adds). `near_ties` counts labels whose distance equals the
    // best one to 1e-6 (relative), which a differently rounding device could pick.
    size_t wrong = 0;
    size_t near_ties = 0;
    for (int64_t i = 0; i < n; ++i) {
      auto distance_to = [&](int c) {
        float distance = 0;
        for (int j = 0; j < d; ++j) {
          const float diff = host_points(i, j) - host_centroids(c, j);
          distance += diff * diff;
        }
        return distance;
      };
      int best = 0;
      float best_distance = 3.4e38f;
      for (int c = 0; c < k; ++c) {
        const float distance = distance_to(c);
        if (distance < best_distance) {
          best_distance = distance;
          best = c;
        }
      }
      const int got = result(i);
      if (got == best) continue;
      if (got >= 0 && got < k && distance_to(got) - best_distance <= 1e-6f * best_distance)
        ++near_ties;
      else
        ++wrong;
    }
    std::printf(
        "{\"points\": %lld, \"clusters\": %d, \"dims\": %d, \"seconds\": %.6f, "
        "\"wrong\": %zu, \"near_ties\": %zu}\n",
        static_cast<long long>(n), k, d, seconds, wrong, near_ties);
    return wrong == 0 && near_ties == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kmeans_ported: %s\n", e.what());
    return 1;
  }
}
