// A program in the Kokkos tutorials' lambda style: Views and host mirrors, a parallel_for, the
// smallest element and where it is (Kokkos::MinLoc), an exclusive scan that places the
// positive elements one after another (a stream compaction), a matrix filled row by row
// through subviews, and a deep_copy into a View of another distribution. Every kernel is a
// LIGHTNING_LAMBDA; the alias `exec` is the one line that decides where it runs
// (Kokkos::DefaultHostExecutionSpace runs it on Kokkos alone). It checks its results on the host
// and exits 1 on a mismatch.
//
//   lambdas [--size N] [--chunk C]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdio>
#include <lightning_kokkos/lightning_kokkos.hpp>

using exec = lightning::Distributed;
template <class T>
using view = lightning::ViewOf<exec, T>;

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  int64_t n = 1 << 24, chunk = 1 << 20;
  CLI::App app("Lambdas: a parallel_for, a MinLoc, a scan and a redistribution.");
  app.add_option("--size", n, "elements")->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  app.add_option("--chunk", chunk, "elements per chunk")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  CLI11_PARSE(app, argc, argv);

  auto x = lightning::allocate<view<int64_t*>>("x", lightning::dist::block(chunk), n);
  auto y = lightning::allocate<view<int64_t*>>("y", lightning::dist::block(chunk), n);
  auto packed = lightning::allocate<view<int64_t*>>("packed", lightning::dist::block(chunk), n);
  auto host_x = Kokkos::create_mirror_view(x);
  for (int64_t i = 0; i < n; ++i) host_x(i) = (i * 7919) % 1009 - 500;
  host_x(n / 3) = -1000;  // the one smallest (MinLoc's choice among equal values varies)
  Kokkos::deep_copy(x, host_x);
  const auto space = lightning::space_with<exec>(lightning::work::block(chunk));

  // y = 3 x + 1
  const int64_t a = 3;
  Kokkos::parallel_for("axpb", Kokkos::RangePolicy<exec>(space, 0, n),
                       LIGHTNING_LAMBDA(
                           "global i => read x[i], write y[i]", (x, y, a),
                           (const int64_t i) { y(i) = a * x(i) + 1; }));

  // The smallest y and where it is. (GPU code sees the lambda's text, not main's aliases:
  // the value type is spelt in full.)
  using MinLoc = Kokkos::MinLoc<int64_t, int64_t>;
  MinLoc::value_type smallest;
  Kokkos::parallel_reduce("smallest", Kokkos::RangePolicy<exec>(space, 0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read y[i]", (y),
                              (const int64_t i, Kokkos::MinLoc<int64_t, int64_t>::value_type& m) {
                                if (y(i) < m.val) {
                                  m.val = y(i);
                                  m.loc = i;
                                }
                              }),
                          MinLoc(smallest));

  // The positive y, packed in order at the front of `packed`: each finds its place with an
  // exclusive scan of the count of positive elements before it.
  int64_t positives = 0;
  Kokkos::parallel_scan("pack", Kokkos::RangePolicy<exec>(space, 0, n),
                        LIGHTNING_LAMBDA(
                            "global i => read y[i], readwrite packed[:]", (y, packed),
                            (const int64_t i, int64_t& next, const bool final) {
                              if (y(i) <= 0) return;
                              if (final) packed(next) = y(i);
                              ++next;
                            }),
                        positives);

  // y again, four elements to a row of a matrix: each thread fills its row through a
  // subview.
  const int64_t rows = (n + 3) / 4;
  auto quads = lightning::allocate<view<int64_t**>>(
      "quads", lightning::dist::rows(chunk / 4 > 0 ? chunk / 4 : 1), rows, 4);
  Kokkos::parallel_for(
      "quads", Kokkos::RangePolicy<exec>(space, 0, rows),
      LIGHTNING_LAMBDA(
          "global r => read y[4*r:4*r+3], write quads[r, :]", (y, quads, n), (const int64_t r) {
            const auto row = Kokkos::subview(quads, r, Kokkos::ALL);
            for (int64_t j = 0; j < 4; ++j) row(j) = 4 * r + j < n ? y(4 * r + j) : 0;
          }));

  // y again, cut into chunks dealt round-robin, and back to the host.
  auto dealt = lightning::allocate<view<int64_t*>>(
      "dealt", lightning::dist::block_cyclic(chunk / 4 > 0 ? chunk / 4 : 1), n);
  Kokkos::deep_copy(dealt, y);
  auto host_y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dealt);
  auto host_packed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  auto host_quads = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), quads);

  int64_t want_min = host_x(0) * a + 1, want_loc = 0, want_positives = 0;
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = a * host_x(i) + 1;
    ok = ok && host_y(i) == v && host_quads(i / 4, i % 4) == v;
    if (v < want_min) want_min = v, want_loc = i;
    if (v > 0) ok = ok && host_packed(want_positives++) == v;
  }
  ok = ok && smallest.val == want_min && smallest.loc == want_loc && positives == want_positives;
  std::printf("lambdas on %s: n %lld, min %lld at %lld, %lld positive; %s\n", exec::name(),
              static_cast<long long>(n), static_cast<long long>(smallest.val),
              static_cast<long long>(smallest.loc), static_cast<long long>(positives),
              ok ? "every result equals the host's" : "MISMATCH");
  return ok ? 0 : 1;
}
