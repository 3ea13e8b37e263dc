// The dot product of two vectors with parallel_reduce, and their largest element with a
// Kokkos::Max reducer. The alias `exec` is the one line that decides where it runs:
// Kokkos::DefaultHostExecutionSpace runs the same program on Kokkos alone.
//
//   dot [--size N] [--chunk C]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <lightning_kokkos/lightning_kokkos.hpp>

using exec = lightning::Distributed;
template <class T>
using view = lightning::ViewOf<exec, T>;

struct Dot {
  view<const double*> x;
  view<const double*> y;
  LIGHTNING_KERNEL(
      Dot, "global i => read x[i], read y[i]", (x, y),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, double& sum)
          const { sum += x(i) * y(i); })
};

struct Largest {
  view<const double*> x;
  LIGHTNING_KERNEL(
      Largest, "global i => read x[i]", (x),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, double& m) const {
        if (x(i) > m) m = x(i);
      })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  int64_t n = 1 << 24, chunk = 1 << 20;
  CLI::App app("x . y, and max x.");
  app.add_option("--size", n, "elements")->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--chunk", chunk, "elements per chunk")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  CLI11_PARSE(app, argc, argv);

  auto x = lightning::allocate<view<double*>>("x", lightning::dist::block(chunk), n);
  auto y = lightning::allocate<view<double*>>("y", lightning::dist::block(chunk), n);
  Kokkos::View<double*, Kokkos::HostSpace> hx("hx", n);
  for (int64_t i = 0; i < n; ++i) hx(i) = double(i % 1000) / 8;  // exact in binary
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, 2.0);

  double dot = 0, largest = 0;
  Kokkos::parallel_reduce("dot", Kokkos::RangePolicy<exec>(0, n), Dot{x, y}, dot);
  Kokkos::parallel_reduce("max", Kokkos::RangePolicy<exec>(0, n), Largest{x},
                          Kokkos::Max<double>(largest));
  double expected_dot = 0, expected_max = 0;
  for (int64_t i = 0; i < n; ++i) {
    expected_dot += hx(i) * 2.0;
    if (hx(i) > expected_max) expected_max = hx(i);
  }
  // Every partial sum is a multiple of 1/4 below 2^53 / 4: exact in any order.
  std::printf(
      "{\"example\": \"dot\", \"space\": \"%s\", \"elements\": %lld, \"dot\": %.17g, "
      "\"max\": %.17g}\n",
      exec::name(), static_cast<long long>(n), dot, largest);
  if (dot != expected_dot || largest != expected_max) {
    std::fprintf(stderr, "dot: expected %.17g and %.17g\n", expected_dot, expected_max);
    return 1;
  }
  return 0;
}
