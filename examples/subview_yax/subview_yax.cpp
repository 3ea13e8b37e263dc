// y^T A x with a subview, as the Kokkos tutorials' subview exercise computes it: the lambda
// of thread j takes row j of A with Kokkos::subview(A, j, Kokkos::ALL) and dots it with x.
// The alias `exec` is the one line that decides where it runs: Kokkos::DefaultHostExecutionSpace
// runs the same program on Kokkos alone.
//
//   subview_yax [--rows N] [--cols M] [--repeat R] [--chunk C]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdio>
#include <lightning_kokkos/lightning_kokkos.hpp>

using exec = lightning::Distributed;
using layout = Kokkos::LayoutRight;
using vector_type = lightning::ViewOf<exec, double*, layout>;
using matrix_type = lightning::ViewOf<exec, double**, layout>;

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  int rows = 4096, cols = 1024, repeat = 10;
  int64_t chunk = 512;
  CLI::App app("y^T A x, a row of A per thread taken as a subview.");
  app.add_option("--rows", rows, "rows of A")->check(CLI::Range(1, 1 << 24));
  app.add_option("--cols", cols, "columns of A")->check(CLI::Range(1, 1 << 16));
  app.add_option("--repeat", repeat, "launches")->check(CLI::Range(1, 100000));
  app.add_option("--chunk", chunk, "rows per chunk")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  CLI11_PARSE(app, argc, argv);

  auto y = lightning::allocate<vector_type>("y", lightning::dist::block(chunk), rows);
  auto x = lightning::allocate<vector_type>("x", lightning::dist::replicated(), cols);
  auto A = lightning::allocate<matrix_type>("A", lightning::dist::rows(chunk), rows, cols);
  auto h_y = Kokkos::create_mirror_view(y);
  auto h_x = Kokkos::create_mirror_view(x);
  auto h_A = Kokkos::create_mirror_view(A);
  for (int j = 0; j < rows; ++j) h_y(j) = 1 + j % 3;
  for (int i = 0; i < cols; ++i) h_x(i) = i % 4;
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) h_A(j, i) = (j + 2 * i) % 5;  // small integers: exact sums
  Kokkos::deep_copy(y, h_y);
  Kokkos::deep_copy(x, h_x);
  Kokkos::deep_copy(A, h_A);

  double expected = 0;
  for (int j = 0; j < rows; ++j) {
    double row = 0;
    for (int i = 0; i < cols; ++i) row += h_A(j, i) * h_x(i);
    expected += h_y(j) * row;
  }

  const int M = cols;
  Kokkos::Timer timer;
  double result = 0;
  for (int r = 0; r < repeat; ++r) {
    result = 0;
    Kokkos::parallel_reduce(
        "yAx", Kokkos::RangePolicy<exec>(0, rows),
        LIGHTNING_LAMBDA(
            "global j => read A[j, 0:M-1], read x[0:M-1], read y[j]", (A, x, y, M),
            (const int j, double& update) {
              const auto A_row_j = Kokkos::subview(A, j, Kokkos::ALL);
              double row = 0;
              for (int i = 0; i < M; ++i) row += A_row_j(i) * x(i);
              update += y(j) * row;
            }),
        result);
    if (result != expected) {
      std::fprintf(stderr, "subview_yax: launch %d: %.17g, expected %.17g\n", r, result, expected);
      return 1;
    }
  }
  const double seconds = timer.seconds();
  const double gbytes = 1e-9 * sizeof(double) * (double(cols) + double(rows) * cols + rows);
  std::printf(
      "{\"example\": \"subview_yax\", \"space\": \"%s\", \"rows\": %d, \"cols\": %d, "
      "\"repeat\": %d, \"seconds\": %.6g, \"GB/s\": %.4g, \"result\": %.17g}\n",
      exec::name(), rows, cols, repeat, seconds, gbytes * repeat / seconds, result);
  return 0;
}
