// Must NOT compile: a team functor whose operator() takes a work tag, launched by a
// TeamPolicy without one.
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Fill {};
using member_type = Kokkos::TeamPolicy<lightning::Distributed>::member_type;

struct Tagged {
  lightning::View<float*> x;
  LIGHTNING_KERNEL(
      Tagged, "block b => write x[b]", (x),
      void operator()(Fill, const member_type& team) const { x(team.league_rank()) = 1.0f; })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<float*> x("x", 10);
  Kokkos::parallel_for("tagged", Kokkos::TeamPolicy<lightning::Distributed>(10, 2), Tagged{x});
}
