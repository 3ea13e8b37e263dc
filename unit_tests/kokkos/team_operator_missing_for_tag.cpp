// Must NOT compile: a TeamPolicy whose work tag no operator() of the functor takes.
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Sum {};
struct Other {};
using member_type = Kokkos::TeamPolicy<lightning::Distributed>::member_type;

struct Tagged {
  lightning::View<double*> x;
  LIGHTNING_KERNEL(
      Tagged, "block b => read x[b]", (x),
      void operator()(Sum, const member_type& team, double& s)
          const { s += x(team.league_rank()); })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double*> x("x", 10);
  double s = 0;
  Kokkos::parallel_reduce(Kokkos::TeamPolicy<lightning::Distributed, Other>(10, 2), Tagged{x}, s);
}
