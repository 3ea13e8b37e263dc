// Must NOT compile: a functor reduction whose join reads the functor (a non-static member)
// cannot run where lightning folds partial results; the static_assert says what to write.
#include "lightning_kokkos/kokkos_adapter.hpp"

struct Scaled {
  using value_type = double;
  lightning::View<double*> x;
  double scale = 2;
  LIGHTNING_KERNEL(
      Scaled, "global i => read x[i]", (x, scale),
      void operator()(const int i, double& s) const { s += x(i); })
  void join(double& dst, const double& src) const { dst += scale * src; }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  lightning::View<double*> x("x", 10);
  double s = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<lightning::Distributed>(0, 10), Scaled{x, 2}, s);
}
