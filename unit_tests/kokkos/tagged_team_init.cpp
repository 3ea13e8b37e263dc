// Must NOT compile: a tagged team reduction whose init takes the tag (Kokkos would call it;
// the runtime would start from the untagged one, a wrong answer).
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Product {};
using member_type = Kokkos::TeamPolicy<lightning::Distributed>::member_type;

struct Tagged {
  lightning::View<double*> x;
  KOKKOS_INLINE_FUNCTION static void init(Product, double& v) { v = 1; }
  LIGHTNING_KERNEL(
      Tagged, "block b => read x[b]", (x),
      void operator()(Product, const member_type& team, double& p)
          const { p *= x(team.league_rank()); })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double*> x("x", 10);
  double p = 1;
  Kokkos::parallel_reduce(Kokkos::TeamPolicy<lightning::Distributed, Product>(10, 1), Tagged{x}, p);
}
