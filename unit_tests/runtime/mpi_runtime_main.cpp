// GoogleTest main for the end-to-end tests under mpirun: every rank joins one Cluster; rank 0
// runs the tests (each test's driver spans every rank), the other ranks serve as workers until
// rank 0 is done. All ranks exit with rank 0's status.
#include <gtest/gtest.h>
#include <mpi.h>

#include <iostream>

#include "interpreted_kernels.hpp"
#include "runtime_fixture.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  testing::InitGoogleTest(&argc, argv);
  // Kernels must exist in every process before rank 0 launches them.
  lightning::runtime_test::register_every_interpreted_kernel();
  int failed = 0;
  {
    // Transport settings from the environment (ctest runs a variant per receive path).
    const auto config = lightning::Config::load_from_process(&argc, argv);
    auto cluster = std::make_shared<lightning::driver::Cluster>(
        lightning::driver::Cluster::Options::from(config));
    if (cluster->rank() == 0) {
      lightning::runtime_test::test_cluster() = cluster;
      failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
      lightning::runtime_test::test_cluster().reset();
    } else {
      failed = cluster->serve();
      if (failed) std::cerr << "[rank " << cluster->rank() << "] lost the driver\n";
    }
  }  // rank 0: the run ends here
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
