// Must NOT compile: a tagged reduction whose join takes the tag (Kokkos would call it; the
// runtime would fold with + instead, a wrong answer).
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Product {};

struct Tagged {
  lightning::View<double*> x;
  KOKKOS_INLINE_FUNCTION static void join(Product, double& dst, const double& src) { dst *= src; }
  LIGHTNING_KERNEL(
      Tagged, "global i => read x[i]", (x),
      void operator()(Product, const int i, double& p) const { p *= x(i); })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double*> x("x", 10);
  double p = 1;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<lightning::Distributed, Product>(0, 10), Tagged{x},
                          p);
}
