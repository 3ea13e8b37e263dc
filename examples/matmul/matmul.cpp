// C = A * B over a rank-2 MDRangePolicy: rows of A and columns of B spread over the devices,
// C in tiles. The alias `exec` is the one line that decides where it runs:
// Kokkos::DefaultHostExecutionSpace runs the same program on Kokkos alone.
//
//   matmul [--size N] [--tile T]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <lightning_kokkos/lightning_kokkos.hpp>

using exec = lightning::Distributed;
template <class T>
using view = lightning::ViewOf<exec, T>;

struct Matmul {
  view<const float**> a;
  view<const float**> b;
  view<float**> c;
  int64_t n = 0;
  LIGHTNING_KERNEL(
      Matmul, "global [i, j] => read a[i, 0:n-1], read b[0:n-1, j], write c[i, j]", (a, b, c, n),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, const int64_t j) const {
        float sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += a(i, k) * b(k, j);
        c(i, j) = sum;
      })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  int64_t n = 1024, tile = 256;
  CLI::App app("C = A * B.");
  app.add_option("--size", n, "rows and columns")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("--tile", tile, "tile edge")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  CLI11_PARSE(app, argc, argv);

  auto a = lightning::allocate<view<float**>>("a", lightning::dist::rows(tile), n, n);
  auto b = lightning::allocate<view<float**>>("b", lightning::dist::columns(tile), n, n);
  auto c = lightning::allocate<view<float**>>("c", lightning::dist::tiles({tile, tile}), n, n);
  Kokkos::View<float**, Kokkos::HostSpace> ha("ha", n, n), hb("hb", n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      ha(i, j) = float((i + 2 * j) % 7) - 3;  // small integers: every sum is exact
      hb(i, j) = float((3 * i + j) % 5) - 2;
    }
  Kokkos::deep_copy(a, ha);
  Kokkos::deep_copy(b, hb);

  const auto start = std::chrono::steady_clock::now();
  Kokkos::parallel_for(
      "matmul",
      Kokkos::MDRangePolicy<exec, Kokkos::Rank<2>>(
          lightning::space_with<exec>(lightning::work::tiles({tile, tile})), {0, 0}, {n, n}),
      Matmul{a, b, c, n});
  Kokkos::fence();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  auto hc = Kokkos::create_mirror_view(c);
  Kokkos::deep_copy(hc, c);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; i += 7)  // a sample of rows, checked against a plain loop
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += ha(i, k) * hb(k, j);
      wrong += hc(i, j) != sum;
    }
  std::printf(
      "{\"example\": \"matmul\", \"space\": \"%s\", \"n\": %lld, \"seconds\": %.6f, "
      "\"flops\": %.3e, \"wrong\": %lld}\n",
      exec::name(), static_cast<long long>(n), seconds, 2.0 * n * n * n / seconds,
      static_cast<long long>(wrong));
  return wrong ? 1 : 0;
}
