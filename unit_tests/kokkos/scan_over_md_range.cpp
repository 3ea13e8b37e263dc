// Must NOT compile: a parallel_scan over an MDRangePolicy (Kokkos scans one index), with the
// plugin's message as the first error.
#include "lightning_kokkos/kokkos_adapter.hpp"

struct RowScan {
  lightning::View<double**> x;
  LIGHTNING_KERNEL(
      RowScan, "global [i, j] => readwrite x[i, j]", (x),
      void operator()(const int i, const int j, double& update, const bool final) const {
        update += x(i, j);
        if (final) x(i, j) = update;
      })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double**> x("x", 4, 4);
  Kokkos::parallel_scan(
      Kokkos::MDRangePolicy<lightning::Distributed, Kokkos::Rank<2>>({0, 0}, {4, 4}), RowScan{x});
}
