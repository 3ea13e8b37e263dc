// Must NOT compile: an array reduction (value_type T[]) without the value_count member that
// says how many elements it reduces; the static_assert says what is missing.
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Sums {
  using value_type = double[];
  lightning::View<double**> x;
  LIGHTNING_KERNEL(
      Sums, "global i => read x[i, :]", (x), void operator()(const int i, double* s) const {
        s[0] += x(i, 0);
        s[1] += x(i, 1);
      })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double**> x("x", 10, 2);
  double s[2] = {0, 0};
  Kokkos::parallel_reduce(Kokkos::RangePolicy<lightning::Distributed>(0, 10), Sums{x}, s);
}
