// Must NOT compile: an MDRangePolicy of rank 4 (annotations and distributions go up to 3
// axes), with the plugin's message as the first error.
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Fill4 {
  lightning::View<double***> x;
  LIGHTNING_KERNEL(
      Fill4, "global [i, j, k] => write x[i, j, k]", (x),
      void operator()(const int i, const int j, const int k, const int l) const {
        x(i, j, k) = l;
      })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double***> x("x", 2, 2, 2);
  Kokkos::parallel_for(
      Kokkos::MDRangePolicy<lightning::Distributed, Kokkos::Rank<4>>({0, 0, 0, 0}, {2, 2, 2, 2}),
      Fill4{x});
}
