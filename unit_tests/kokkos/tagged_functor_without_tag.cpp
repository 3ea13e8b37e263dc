// Must NOT compile: a functor whose operator() takes a work tag, launched without one.
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Fill {};

struct Tagged {
  lightning::View<float*> x;
  LIGHTNING_KERNEL(
      Tagged, "global i => write x[i]", (x),
      void operator()(Fill, const int i) const { x(i) = 1.0f; })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<float*> x("x", 10);
  Kokkos::parallel_for("tagged", Kokkos::RangePolicy<lightning::Distributed>(0, 10), Tagged{x});
}
