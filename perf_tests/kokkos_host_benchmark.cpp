// The Kokkos adapter on emulated host devices against Kokkos::Serial, in one run: the same
// functors (saxpy, the paper's stencil, a dot product, the same dot product written with
// teams of Kokkos::AUTO threads over 256 elements each, an exclusive prefix sum with its
// total) on both spaces, best of several repetitions. Prints one JSON object; `ratio` is
// lightning time / Serial time. Keep the chunk a multiple of 256: a team superblock is a
// chunk's worth of teams.
//
//   kokkos_host_benchmark [--size N] [--chunk C] [--repeat R] [--lightning-devices=host:2]
//                         [--lightning-check-access=on|off]
// Built twice: with the View element checks (the default) and, as
// kokkos_host_benchmark_unchecked, with LIGHTNING_VIEW_CHECKS=0.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <lightning_kokkos/lightning_kokkos.hpp>
#include <string>
#include <utility>

#include "small_kernels.hpp"

namespace {

using perf_kernels::Dot;
using perf_kernels::PrefixSum;
using perf_kernels::Saxpy;
using perf_kernels::Stencil;

constexpr int64_t kTeamElements = 256;  // elements a team of the team dot sums

// Best time of `repeat` runs of `f` (each ends with a fence).
template <class F>
double best_seconds(int repeat, F&& f) {
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// The kernels on one space; `make` allocates a View of n floats.
template <class Exec, class V, class Make>
std::pair<double, double> run(const char* kernel, int64_t n, int repeat, Make make,
                              const Exec& space, const Exec& team_space) {
  V x = make("x"), y = make("y");
  Kokkos::deep_copy(x, 1.0f);
  Kokkos::deep_copy(y, 2.0f);
  using CV = typename V::const_type;
  double value = 0;
  const std::string k = kernel;
  const double seconds = best_seconds(repeat, [&] {
    if (k == "saxpy") {
      Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(space, 0, n), Saxpy<CV, V>{x, y, 0.5f});
    } else if (k == "stencil") {
      for (int it = 0; it < 4; ++it) {  // the halo moves between chunks every step
        Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(space, 1, n - 1), Stencil<CV, V>{x, y});
        std::swap(x, y);
      }
    } else if (k == "dot") {
      Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(space, 0, n), Dot<CV>{x, y}, value);
    } else if (k == "team_dot") {
      using Team = Kokkos::TeamPolicy<Exec>;
      const Team teams(team_space, static_cast<int>(n / kTeamElements), Kokkos::AUTO);
      Kokkos::parallel_reduce(
          teams, perf_kernels::TeamDot<CV, typename Team::member_type>{x, y, kTeamElements}, value);
    } else {
      Kokkos::parallel_scan(Kokkos::RangePolicy<Exec>(space, 0, n), PrefixSum<CV, V>{x, y}, value);
    }
  });
  return {seconds, value};
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  int64_t n = 1 << 24, chunk = 1 << 21;
  int repeat = 5;
  CLI::App app("Kokkos adapter on host devices vs Kokkos::Serial.");
  app.add_option("--size", n, "elements")->check(CLI::Range(int64_t{3}, int64_t{1} << 40));
  app.add_option("--chunk", chunk, "elements per chunk and superblock")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--repeat", repeat, "repetitions (best is kept)")->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);

  using Serial = Kokkos::Serial;
  using Host = Kokkos::View<float*, Kokkos::HostSpace>;
  using Dist = lightning::View<float*>;
  const lightning::Distributed space(lightning::work::block(chunk));
  // A team launch's superblocks are ranges of its league: teams of one chunk each.
  const lightning::Distributed team_space(
      lightning::work::block(std::max<int64_t>(1, chunk / kTeamElements)));
  std::printf(
      "{\"benchmark\": \"kokkos_host\", \"view_checks\": %d, \"check_access\": %s, "
      "\"elements\": %lld, \"chunk\": %lld, \"devices\": %d, \"kernels\": [",
      LIGHTNING_VIEW_CHECKS, lightning::checks_accesses() ? "true" : "false",
      static_cast<long long>(n), static_cast<long long>(chunk),
      lightning::Distributed::concurrency());
  const char* kernels[] = {"saxpy", "stencil", "dot", "team_dot", "scan"};
  for (int k = 0; k < 5; ++k) {
    const auto serial = run<Serial, Host>(
        kernels[k], n, repeat, [&](const char* label) { return Host(std::string(label), n); },
        Serial(), Serial());
    const auto dist = run<lightning::Distributed, Dist>(
        kernels[k], n, repeat,
        [&](const char* label) {
          return Dist(std::string(label), n, lightning::dist::stencil(chunk, 1));
        },
        space, team_space);
    std::printf(
        "%s{\"kernel\": \"%s\", \"serial_s\": %.6f, \"lightning_s\": %.6f, "
        "\"ratio\": %.3f, \"same_value\": %s}",
        k ? ", " : "", kernels[k], serial.first, dist.first, dist.first / serial.first,
        serial.second == dist.second ? "true" : "false");
  }
  std::printf("]}\n");
  return 0;
}
