// Must NOT compile: a lambda launched by a TeamPolicy with a work tag (a lambda has one
// operator, which takes no tag).
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Fill {};
using member_type = Kokkos::TeamPolicy<lightning::Distributed>::member_type;

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<float*> x("x", 10);
  Kokkos::parallel_for("tagged", Kokkos::TeamPolicy<lightning::Distributed, Fill>(10, 2),
                       LIGHTNING_LAMBDA(
                           "block b => write x[b]", (x),
                           (Fill, const member_type& team) { x(team.league_rank()) = 1.0f; }));
}
