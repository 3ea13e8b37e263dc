// A distributed parallel_scan on GPUs against the device's copy bandwidth, measured in the
// same run: an exclusive prefix sum of n int32 (read x, write y: a copy's bytes) through the
// runtime, without the total and with it, over one superblock (the final pass alone, one
// kernel) and over S superblocks (partial passes, the carry, final passes). The ceilings are
// two native copies of the same n int32 on the same GPU: a grid-stride kernel that, like the
// scan's functor, moves one int32 per access ("copy", what "of_copy" compares with), and the
// driver's own device-to-device copy ("memcpy", "of_memcpy"). One warm-up each, then the
// median of R runs (each: L launches and a fence); every sum is checked. Also a fill of y
// (Kokkos::deep_copy of a value, L times and a fence): its bytes written against the driver's
// copy's bytes moved. Prints one JSON object; exits 77 without a GPU.
//
//   scan_benchmark [--size=N] [--superblocks=S] [--launches=L] [--repeats=R]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "native_gpu.hpp"

namespace bench {

using Exec = lightning::Distributed;

/// y(i) = x(0) + ... + x(i-1); returns the total when asked for it.
int32_t exclusive_sum(const Exec& space, const lightning::View<const int32_t*>& x,
                      const lightning::View<int32_t*>& y, bool total) {
  const auto scan = LIGHTNING_LAMBDA(
      "global i => read x[i], write y[i]", (x, y),
      (const int64_t i, int32_t& update, const bool final) {
        if (final) y(i) = update;
        update += x(i);
      });
  const Kokkos::RangePolicy<Exec> range(space, 0, static_cast<int64_t>(x.extent(0)));
  int32_t sum = 0;
  if (total)
    Kokkos::parallel_scan("scan", range, scan, sum);
  else
    Kokkos::parallel_scan("scan", range, scan);
  return sum;
}

const char* kNative = R"(
#include <cstdint>
extern "C" __global__ void copy(const int* x, int* y, long long n) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    y[i] = x[i];
}
)";

}  // namespace bench

int main(int argc, char* argv[]) {
  using namespace lightning;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    ScopeGuard runtime(argc, argv);
    int64_t n = int64_t{1} << 28;
    int superblocks = 8, launches = 10, repeats = 7;
    CLI::App app("A distributed parallel_scan against the device's copy bandwidth.");
    app.add_option("--size", n, "int32 per array")->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
    app.add_option("--superblocks", superblocks, "superblocks of the split runs")
        ->check(CLI::Range(2, 1 << 16));
    app.add_option("--launches", launches, "launches per timed run")->check(CLI::Range(1, 1000));
    app.add_option("--repeats", repeats, "timed runs (median)")->check(CLI::Range(1, 100));
    CLI11_PARSE(app, argc, argv);
    if (!cuda::DriverApi::available() || cuda::discover_gpus().empty()) {
      std::fprintf(stderr, "scan_benchmark: no GPU\n");
      return 77;
    }
    const cuda::GpuInfo gpu = cuda::discover_gpus()[0];

    // The ceilings: a native copy kernel, on the grid of the runtime's large launches (4
    // waves), and the driver's copy.
    double copy_s = 0, memcpy_s = 0;
    {
      perf::Native native(gpu, bench::kNative);
      const std::vector<int32_t> ones(static_cast<size_t>(n), 1);
      CUdeviceptr dx = native.upload(ones), dy = native.upload(ones);
      const CUfunction f = native.function("copy");
      long long count = n;
      void* params[] = {&dx, &dy, &count};
      const unsigned grid[3] = {unsigned(32 * gpu.multiprocessors), 1, 1}, block[3] = {256, 1, 1};
      copy_s = perf::timed(repeats,
                           [&] {
                             for (int l = 0; l < launches; ++l)
                               native.enqueue(f, grid, block, 0, params);
                             native.synchronize();
                           }) /
               launches;
      const size_t bytes = static_cast<size_t>(n) * sizeof(int32_t);
      memcpy_s = perf::timed(repeats,
                             [&] {
                               for (int l = 0; l < launches; ++l)
                                 native.enqueue_copy(dy, dx, bytes);
                               native.synchronize();
                             }) /
                 launches;
    }

    // Through the runtime: x and y in one chunk each, on the selected GPU(s).
    View<int32_t*> x("x", n), y("y", n);
    Kokkos::deep_copy(x, int32_t{1});
    bool correct = true;
    auto run = [&](const Distributed& space, bool total) {
      return perf::timed(repeats,
                         [&] {
                           for (int l = 0; l < launches; ++l) {
                             const int32_t sum = bench::exclusive_sum(space, x, y, total);
                             if (total && sum != n) correct = false;
                           }
                           Kokkos::fence();
                         }) /
             launches;
    };
    auto check = [&] {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      for (int64_t i = 0; i < n; ++i)
        if (h(i) != static_cast<int32_t>(i)) correct = false;
    };
    const Distributed one(work::block(n));
    const Distributed split(work::block((n + superblocks - 1) / superblocks));
    const double one_s = run(one, false);
    check();
    const double one_total_s = run(one, true);
    check();
    const double split_s = run(split, false);
    check();
    const double split_total_s = run(split, true);
    check();
    const double fill_s = perf::timed(repeats,
                                      [&] {
                                        for (int l = 0; l < launches; ++l)
                                          Kokkos::deep_copy(y, int32_t{l + 3});
                                        Kokkos::fence();
                                      }) /
                          launches;
    {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
      for (int64_t i = 0; i < n; ++i)
        if (h(i) != launches + 2) correct = false;
    }

    const double bytes = 2.0 * 4.0 * double(n);
    auto entry = [&](const char* name, double s, bool last) {
      std::printf(
          "    \"%s\": {\"ms\": %.4f, \"GBps\": %.1f, \"of_copy\": %.3f, \"of_memcpy\": "
          "%.3f}%s\n",
          name, s * 1e3, bytes / s / 1e9, copy_s / s, memcpy_s / s, last ? "" : ",");
    };
    std::printf(
        "{\n  \"benchmark\": \"scan\",\n  \"gpu\": \"%s\",\n  \"size\": %lld,\n"
        "  \"superblocks\": %d,\n  \"launches\": %d,\n  \"repeats\": %d,\n"
        "  \"correct\": %s,\n  \"copy\": {\"ms\": %.4f, \"GBps\": %.1f},\n"
        "  \"memcpy\": {\"ms\": %.4f, \"GBps\": %.1f},\n"
        "  \"scan\": {\n",
        gpu.name.c_str(), static_cast<long long>(n), superblocks, launches, repeats,
        correct ? "true" : "false", copy_s * 1e3, bytes / copy_s / 1e9, memcpy_s * 1e3,
        bytes / memcpy_s / 1e9);
    entry("one_superblock", one_s, false);
    entry("one_superblock_with_total", one_total_s, false);
    entry("superblocks", split_s, false);
    entry("superblocks_with_total", split_total_s, true);
    std::printf("  },\n  \"fill\": {\"ms\": %.4f, \"GBps\": %.1f, \"of_memcpy\": %.3f}\n}\n",
                fill_s * 1e3, 4.0 * double(n) / fill_s / 1e9,
                4.0 * double(n) / fill_s / (bytes / memcpy_s));
    return correct ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scan_benchmark: %s\n", e.what());
    return 1;
  }
}
