// Must NOT compile: a Kokkos::View in lightning's memory space (the natural port of a program
// that names its memory space); the static_assert says to write a lightning::View.
#include "lightning_kokkos/kokkos_adapter.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  Kokkos::View<double*, Kokkos::LayoutRight, lightning::DistributedMemory> x("x", 10);
  return static_cast<int>(x.extent(0));
}
