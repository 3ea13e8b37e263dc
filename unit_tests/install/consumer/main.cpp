// A user's program built against the installed package only, written as the user guide says:
// a LIGHTNING_KERNEL stencil and a reduction on lightning::Distributed, checked on the host.
// It has its own core/error.hpp, which the package's headers must not pick up.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstring>
#include <lightning_kokkos/lightning_kokkos.hpp>

#include "core/error.hpp"

struct Stencil {
  lightning::View<const float*> in;
  lightning::View<float*> out;
  LIGHTNING_KERNEL(
      Stencil, "global i => read in[i-1:i+1], write out[i]", (in, out),
      void operator()(const int i) const { out(i) = in(i - 1) + in(i) + in(i + 1); })
};

struct Total {
  lightning::View<const float*> x;
  LIGHTNING_KERNEL(
      Total, "global i => read x[i]", (x),
      void operator()(const int i, double& sum) const { sum += x(i); })
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  const int n = 100000;
  lightning::View<float*> a("a", n, lightning::dist::stencil(6000, 1));
  lightning::View<float*> b("b", n, lightning::dist::stencil(6000, 1));
  Kokkos::deep_copy(a, 1.0f);
  Kokkos::deep_copy(b, 1.0f);
  using exec = lightning::Distributed;
  exec space(lightning::work::block(6000));
  Kokkos::parallel_for("stencil", Kokkos::RangePolicy<exec>(space, 1, n - 1), Stencil{a, b});
  double total = 0;
  Kokkos::parallel_reduce("total", Kokkos::RangePolicy<exec>(0, n), Total{b}, total);
  auto host = Kokkos::create_mirror_view(b);
  Kokkos::deep_copy(host, b);
  // Inside: 3 each; the two ends keep their 1.
  const double expected = 3.0 * (n - 2) + 2.0;
  if (total != expected || host(0) != 1.0f || host(1) != 3.0f || host(n - 1) != 1.0f ||
      std::strcmp(lightning::version(), LIGHTNING_VERSION_STRING) != 0 ||
      consumer::kOwnErrorHeader != 1) {
    std::fprintf(stderr, "consumer: wrong result %f (expected %f)\n", total, expected);
    return 1;
  }
  std::printf("consumer: stencil and reduction correct\n%s", lightning::build_info().c_str());
  return 0;
}
