// y^T A x with a Kokkos::TeamPolicy, as the Kokkos tutorials write it: team j reduces row j
// of A against x over its threads, one thread of the team adds y(j) times that to the sum.
// Row j of A is read through team scratch memory (staged by the team, then reused by every
// thread). The alias `exec` is the one line that decides where it runs:
// Kokkos::DefaultHostExecutionSpace runs the same program on Kokkos alone.
//
//   team_yax [--rows M] [--cols N] [--team T] [--chunk C]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <lightning_kokkos/lightning_kokkos.hpp>

using exec = lightning::Distributed;
template <class T>
using view = lightning::ViewOf<exec, T>;
using team_policy = Kokkos::TeamPolicy<exec>;
using member_type = team_policy::member_type;

struct YAx {
  view<const double**> A;
  view<const double*> x, y;
  // Types the operator names are declared inside the macro, so that GPU code has them too.
  LIGHTNING_KERNEL(
      YAx, "block j => read A[j, :], read x[:], read y[j]", (A, x, y),
      using scratch_row =
          Kokkos::View<double*, member_type::scratch_memory_space, Kokkos::MemoryUnmanaged>;
      void operator()(const member_type& team, double& update) const {
        const int j = team.league_rank();
        const int n = static_cast<int>(A.extent(1));
        scratch_row row(team.team_scratch(0), n);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                             [&](const int i) { row(i) = A(j, i); });
        team.team_barrier();
        double sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, n),
            [&](const int i, double& inner) { inner += row(i) * x(i); }, sum);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { update += y(j) * sum; });
      })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  int rows = 4096, cols = 1024, team = 8;
  int64_t chunk = 512;
  CLI::App app("y^T A x with teams.");
  app.add_option("--rows", rows, "rows of A (teams)")->check(CLI::Range(1, 1 << 24));
  app.add_option("--cols", cols, "columns of A")->check(CLI::Range(1, 4096));
  app.add_option("--team", team, "threads per team (at most what the space allows)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--chunk", chunk, "rows per chunk")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  CLI11_PARSE(app, argc, argv);

  auto A = lightning::allocate<view<double**>>("A", lightning::dist::rows(chunk), rows, cols);
  auto x = lightning::allocate<view<double*>>("x", lightning::dist::replicated(), cols);
  auto y = lightning::allocate<view<double*>>("y", lightning::dist::block(chunk), rows);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> hA("hA", rows, cols);
  Kokkos::View<double*, Kokkos::HostSpace> hx("hx", cols), hy("hy", rows);
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) hA(j, i) = double((j * 7 + i * 3) % 16);  // small integers
  for (int i = 0; i < cols; ++i) hx(i) = double(i % 5);
  for (int j = 0; j < rows; ++j) hy(j) = double(j % 3);
  Kokkos::deep_copy(A, hA);
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);

  const YAx kernel{A, x, y};
  team_policy probe(rows, Kokkos::AUTO);
  team = std::min(team, probe.team_size_max(kernel, Kokkos::ParallelReduceTag()));
  const size_t scratch = YAx::scratch_row::shmem_size(cols);
  double result = 0;
  Kokkos::parallel_reduce(
      "yAx", team_policy(rows, team).set_scratch_size(0, Kokkos::PerTeam(scratch)), kernel, result);

  double expected = 0;
  for (int j = 0; j < rows; ++j) {
    double row = 0;
    for (int i = 0; i < cols; ++i) row += hA(j, i) * hx(i);
    expected += hy(j) * row;
  }
  // Every product and partial sum is an integer below 2^53: exact in any order.
  std::printf(
      "{\"example\": \"team_yax\", \"space\": \"%s\", \"rows\": %d, \"cols\": %d, \"team\": %d, "
      "\"result\": %.17g}\n",
      exec::name(), rows, cols, team, result);
  if (result != expected) {
    std::fprintf(stderr, "team_yax: expected %.17g\n", expected);
    return 1;
  }
  return 0;
}
