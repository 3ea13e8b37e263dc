// Must NOT compile: a LIGHTNING_LAMBDA launched on lightning::Distributed that captures a plain
// Kokkos::View (host memory, which cannot travel to another device or rank); the
// static_assert says what its captures may be.
#include "lightning_kokkos/kokkos_adapter.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double*> y("y", 10);
  Kokkos::View<double*, Kokkos::HostSpace> weights("weights", 10);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<lightning::Distributed>(0, 10),
      LIGHTNING_LAMBDA(
          "global i => write y[i]", (y, weights), (const int i) { y(i) = weights(i); }));
}
