// Must NOT compile: an array reduction (value_type T[]) over a TeamPolicy (a team launch
// reduces one value; the runtime has no per-launch size for team values).
#include "lightning_kokkos/kokkos_adapter.hpp"

using member_type = Kokkos::TeamPolicy<lightning::Distributed>::member_type;

struct RowSums {
  using value_type = double[];
  lightning::View<double**> x;
  int value_count = 0;
  LIGHTNING_KERNEL(
      RowSums, "block b => read x[b, :]", (x, value_count),
      void operator()(const member_type& team, double* sums)
          const { sums[team.league_rank() % value_count] += x(team.league_rank(), 0); })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double**> x("x", 10, 2);
  Kokkos::View<double*, Kokkos::HostSpace> sums("sums", 2);
  Kokkos::parallel_reduce(Kokkos::TeamPolicy<lightning::Distributed>(10, 1), RowSums{x, 2}, sums);
}
