// y = a * x + y on every device. The alias `exec` is the one line that decides where it runs:
// Kokkos::DefaultHostExecutionSpace runs the same program on Kokkos alone.
//
//   saxpy [--size N] [--repeat K] [--chunk C]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <lightning_kokkos/lightning_kokkos.hpp>

using exec = lightning::Distributed;
template <class T>
using view = lightning::ViewOf<exec, T>;

struct Saxpy {
  view<const float*> x;
  view<float*> y;
  float a = 0;
  LIGHTNING_KERNEL(
      Saxpy, "global i => read x[i], readwrite y[i]", (x, y, a),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const { y(i) = a * x(i) + y(i); })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  int64_t n = 1 << 24, chunk = 1 << 20;
  int repeat = 10;
  CLI::App app("y = a * x + y.");
  app.add_option("--size", n, "elements")->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--repeat", repeat, "launches")->check(CLI::Range(1, 1 << 20));
  app.add_option("--chunk", chunk, "elements per chunk")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  CLI11_PARSE(app, argc, argv);

  auto x = lightning::allocate<view<float*>>("x", lightning::dist::block(chunk), n);
  auto y = lightning::allocate<view<float*>>("y", lightning::dist::block(chunk), n);
  Kokkos::deep_copy(x, 2.0f);
  Kokkos::deep_copy(y, 1.0f);
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r)
    Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<exec>(0, n), Saxpy{x, y, 0.5f});
  Kokkos::fence();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  auto result = Kokkos::create_mirror_view(y);
  Kokkos::deep_copy(result, y);
  const float expected = 1.0f + float(repeat);  // each launch adds 0.5 * 2
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += result(i) != expected;
  std::printf(
      "{\"example\": \"saxpy\", \"space\": \"%s\", \"elements\": %lld, \"repeat\": %d, "
      "\"seconds\": %.6f, \"bytes_per_second\": %.3e, \"wrong\": %lld}\n",
      exec::name(), static_cast<long long>(n), repeat, seconds,
      3.0 * sizeof(float) * double(n) * repeat / seconds, static_cast<long long>(wrong));
  return wrong ? 1 : 0;
}
