// Uses only the installed headers and library: MPI, Kokkos and lightning_kokkos together.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstring>
#include <lightning_kokkos/lightning_kokkos.hpp>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long local = 0;
    Kokkos::parallel_reduce(
        "sum", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, 1000),
        KOKKOS_LAMBDA(int i, long& acc) { acc += i; }, local);
    long total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (total != 499500L * size || std::strcmp(lightning::version(), LIGHTNING_VERSION_STRING)) {
      std::fprintf(stderr, "consumer: wrong result %ld\n", total);
      status = 1;
    }
    if (rank == 0) std::printf("%s", lightning::build_info().c_str());
  }
  MPI_Finalize();
  return status;
}
