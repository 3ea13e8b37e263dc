// A program that initialises MPI itself (as MPI programs do) before the runtime: under mpirun
// the ranks other than 0 serve inside lightning::ScopeGuard and never return to the
// program's MPI_Finalize, so they must end MPI themselves for the job to end cleanly (exit
// status 0, no "exited improperly" from mpirun).
#include <mpi.h>

#include <cstdio>

#include "lightning_kokkos/lightning_kokkos.hpp"

struct Iota {
  lightning::View<int64_t*> x;
  LIGHTNING_KERNEL(
      Iota, "global i => write x[i]", (x), void operator()(const int i) const { x(i) = i; })
};

int main(int argc, char* argv[]) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    lightning::ScopeGuard lightning(argc, argv);
    const int64_t n = 1000;
    lightning::View<int64_t*> x("x", n, lightning::dist::block(100));
    Kokkos::parallel_for(Kokkos::RangePolicy<lightning::Distributed>(0, n), Iota{x});
    int64_t sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::RangePolicy<lightning::Distributed>(0, n),
        LIGHTNING_LAMBDA(
            "global i => read x[i]", (x), (const int i, int64_t& s) { s += x(i); }),
        sum);
    status = sum == n * (n - 1) / 2 ? 0 : 1;
    std::printf("sum %lld (%s)\n", static_cast<long long>(sum), status ? "wrong" : "right");
  }
  MPI_Finalize();
  return status;
}
