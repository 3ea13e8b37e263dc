// Must NOT compile: a lambda without an annotation on lightning::Distributed; the static_assert
// says how to write it.
#include "lightning_kokkos/kokkos_adapter.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<float*> x("x", 10);
  Kokkos::parallel_for(
      "plain", Kokkos::RangePolicy<lightning::Distributed>(0, 10),
      KOKKOS_LAMBDA(const int i) { x(i) = 1.0f; });
}
