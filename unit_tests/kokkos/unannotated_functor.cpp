// Must NOT compile: lightning::Distributed refuses a functor without LIGHTNING_KERNEL.
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Plain {
  lightning::View<float*> x;
  void operator()(const int i) const { x(i) = 1.0f; }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<float*> x("x", 10);
  Kokkos::parallel_for("plain", Kokkos::RangePolicy<lightning::Distributed>(0, 10), Plain{x});
}
