// The paper's stencil (Fig. 8/9): out(i) = (in(i-1) + in(i) + in(i+1)) / 3, iterated, on every
// device of the cluster. The alias `exec` is the one line that decides where it runs:
// Kokkos::DefaultHostExecutionSpace runs the same program on Kokkos alone.
//
//   stencil [--size N] [--iterations K] [--chunk C] [--lightning-devices=host:4 ...]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <lightning_kokkos/lightning_kokkos.hpp>
#include <utility>
#include <vector>

using exec = lightning::Distributed;
template <class T>
using view = lightning::ViewOf<exec, T>;

struct Stencil {
  view<const float*> in;
  view<float*> out;
  LIGHTNING_KERNEL(
      Stencil, "global i => read in[i-1:i+1], write out[i]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i)
          const { out(i) = (in(i - 1) + in(i) + in(i + 1)) / 3.0f; })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);  // worker ranks serve here, then exit
  int64_t n = 1 << 22, chunk = 1 << 18;
  int iterations = 10;
  CLI::App app("The paper's 1-D stencil.");
  app.add_option("--size", n, "elements")->check(CLI::Range(int64_t{3}, int64_t{1} << 40));
  app.add_option("--iterations", iterations, "stencil steps")->check(CLI::Range(1, 1 << 20));
  app.add_option("--chunk", chunk, "elements per chunk and per superblock")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  CLI11_PARSE(app, argc, argv);
  std::printf("stencil: %lld elements, %d iterations, chunks of %lld, on %s (%d devices)\n",
              static_cast<long long>(n), iterations, static_cast<long long>(chunk), exec::name(),
              exec().concurrency());

  auto a = lightning::allocate<view<float*>>("a", lightning::dist::stencil(chunk, 1), n);
  auto b = lightning::allocate<view<float*>>("b", lightning::dist::stencil(chunk, 1), n);
  Kokkos::View<float*, Kokkos::HostSpace> init("init", n);
  for (int64_t i = 0; i < n; ++i) init(i) = float(i % 17);
  Kokkos::deep_copy(a, init);
  Kokkos::deep_copy(b, init);

  const auto space = lightning::space_with<exec>(lightning::work::block(chunk));
  const auto start = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    Kokkos::parallel_for("stencil", Kokkos::RangePolicy<exec>(space, 1, n - 1), Stencil{a, b});
    std::swap(a, b);
  }
  Kokkos::fence();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  auto result = Kokkos::create_mirror_view(a);
  Kokkos::deep_copy(result, a);
  std::vector<float> x(init.data(), init.data() + n), y = x;  // the sequential stencil
  for (int it = 0; it < iterations; ++it) {
    for (int64_t i = 1; i + 1 < n; ++i) y[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0f;
    std::swap(x, y);
  }
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += result(i) != x[i];
  std::printf(
      "{\"example\": \"stencil\", \"space\": \"%s\", \"elements\": %lld, "
      "\"iterations\": %d, \"seconds\": %.6f, \"elements_per_second\": %.3e, "
      "\"wrong\": %lld}\n",
      exec::name(), static_cast<long long>(n), iterations, seconds,
      double(n) * iterations / seconds, static_cast<long long>(wrong));
  if (wrong) {
    std::fprintf(stderr, "stencil: %lld elements differ from the sequential stencil\n",
                 static_cast<long long>(wrong));
    return 1;
  }
  std::printf("stencil: result equals the sequential stencil\n");
  return 0;
}
