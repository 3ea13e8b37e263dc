// What a LIGHTNING_LAMBDA costs against the same kernel written as a LIGHTNING_KERNEL functor:
// saxpy, the paper's stencil and a dot product on lightning::Distributed (any devices; the
// issue's figure is one H200). The two run alternately, L launches and a fence per run, and
// each side reports the median of R runs after one warm-up, in ms per launch, with the
// lambda's ratio to the functor. Prints one JSON object.
//
//   lambda_kernel_benchmark [--size=N] [--chunk=C] [--launches=L] [--repeats=R]
//                           [--lightning-devices=...]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "small_kernels.hpp"
#include "timing.hpp"

namespace bench {

namespace perf = lightning::perf;
using Exec = lightning::Distributed;
using V = lightning::View<float*>;
using CV = lightning::View<const float*>;

void saxpy_lambda(const Exec& space, const CV& x, const V& y, float a) {
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(space, 0, y.extent(0)),
                       LIGHTNING_LAMBDA(
                           "global i => read x[i], readwrite y[i]", (x, y, a),
                           (const int64_t i) { y(i) = a * x(i) + y(i); }));
}
void stencil_lambda(const Exec& space, const CV& in, const V& out) {
  Kokkos::parallel_for("stencil", Kokkos::RangePolicy<Exec>(space, 1, out.extent(0) - 1),
                       LIGHTNING_LAMBDA(
                           "global i => read in[i-1:i+1], write out[i]", (in, out),
                           (const int64_t i) { out(i) = (in(i - 1) + in(i) + in(i + 1)) / 3.0f; }));
}
double dot_lambda(const Exec& space, const CV& x, const CV& y) {
  double s = 0;
  Kokkos::parallel_reduce("dot", Kokkos::RangePolicy<Exec>(space, 0, x.extent(0)),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i], read y[i]", (x, y),
                              (const int64_t i, double& sum) { sum += double(x(i)) * y(i); }),
                          s);
  return s;
}

/// Median seconds per run of `functor` and of `lambda`, run alternately `repeats` times
/// after one warm-up each.
std::pair<double, double> alternate(int repeats, const std::function<void()>& functor,
                                    const std::function<void()>& lambda) {
  functor();
  lambda();
  std::vector<double> f, l;
  auto time = [](const std::function<void()>& run) {
    const auto start = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int r = 0; r < repeats; ++r) {
    f.push_back(time(functor));
    l.push_back(time(lambda));
  }
  return {perf::median(f), perf::median(l)};
}

}  // namespace bench

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  CLI::App app("LIGHTNING_LAMBDA against the same LIGHTNING_KERNEL functor");
  int64_t n = int64_t{1} << 24, chunk = 0;
  int launches = 10, repeats = 7;
  app.add_option("--size", n, "floats per array");
  app.add_option("--chunk", chunk, "elements per chunk and superblock (default: n / 8)");
  app.add_option("--launches", launches, "launches per timed run");
  app.add_option("--repeats", repeats, "timed runs per side");
  app.allow_extras();
  CLI11_PARSE(app, argc, argv);
  if (chunk <= 0) chunk = n / 8 > 0 ? n / 8 : 1;

  using namespace bench;
  const Exec space(lightning::work::block(chunk));
  V x("x", n, lightning::dist::stencil(chunk, 1)), y("y", n, lightning::dist::block(chunk));
  Kokkos::deep_copy(x, 1.0f);
  Kokkos::deep_copy(y, 0.0f);
  auto many = [&](const std::function<void()>& launch) {
    return [&, launch] {
      for (int l = 0; l < launches; ++l) launch();
      Kokkos::fence();
    };
  };
  const auto saxpy =
      alternate(repeats, many([&] {
                  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(space, 0, n),
                                       perf_kernels::Saxpy<CV, V>{x, y, 0.5f});
                }),
                many([&] { saxpy_lambda(space, x, y, 0.5f); }));
  const auto stencil =
      alternate(repeats, many([&] {
                  Kokkos::parallel_for("stencil", Kokkos::RangePolicy<Exec>(space, 1, n - 1),
                                       perf_kernels::Stencil<CV, V>{x, y});
                }),
                many([&] { stencil_lambda(space, x, y); }));
  double functor_dot = 0, lambda_dot = 0;
  const auto dot = alternate(
      repeats,
      [&] {
        for (int l = 0; l < launches; ++l)
          Kokkos::parallel_reduce("dot", Kokkos::RangePolicy<Exec>(space, 0, n),
                                  perf_kernels::Dot<CV>{x, x}, functor_dot);
      },
      [&] {
        for (int l = 0; l < launches; ++l) lambda_dot = dot_lambda(space, x, x);
      });

  auto entry = [&](const char* name, std::pair<double, double> t, bool last) {
    std::printf(
        "    \"%s\": {\"functor_ms\": %.4f, \"lambda_ms\": %.4f, \"lambda_over_functor\": "
        "%.4f}%s\n",
        name, t.first * 1e3 / launches, t.second * 1e3 / launches, t.second / t.first,
        last ? "" : ",");
  };
  std::printf(
      "{\n  \"benchmark\": \"lambda_kernel\",\n  \"size\": %lld,\n  \"chunk\": %lld,\n"
      "  \"launches\": %d,\n  \"repeats\": %d,\n  \"dot_values_agree\": %s,\n"
      "  \"per_launch\": {\n",
      static_cast<long long>(n), static_cast<long long>(chunk), launches, repeats,
      functor_dot == lambda_dot && functor_dot == static_cast<double>(n) ? "true" : "false");
  entry("saxpy", saxpy, false);
  entry("stencil", stencil, false);
  entry("dot", dot, true);
  std::printf("  }\n}\n");
  return functor_dot == lambda_dot ? 0 : 1;
}
