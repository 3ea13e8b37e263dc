// The multi-process harness works: every rank runs, the world has the size ctest asked for,
// and point-to-point messages go around a ring.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <string>

#include "lightning_kokkos/version.hpp"

namespace {

TEST(MpiHarness, WorldHasTheRequestedSize) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* np = std::getenv("LIGHTNING_TEST_NP");
  ASSERT_NE(np, nullptr) << "run through ctest, which sets LIGHTNING_TEST_NP";
  EXPECT_EQ(size, std::atoi(np));
}

TEST(MpiHarness, RingExchange) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long sent = 1000L * rank + 7;
  long received = -1;
  MPI_Sendrecv(&sent, 1, MPI_LONG, (rank + 1) % size, 0, &received, 1, MPI_LONG,
               (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_EQ(received, 1000L * ((rank + size - 1) % size) + 7);
}

TEST(MpiHarness, LibraryReportsTheMpiItRuns) {
  const std::string info = lightning::build_info();
  EXPECT_NE(info.find("MPI: "), std::string::npos) << info;
  EXPECT_NE(info.find("Kokkos "), std::string::npos) << info;
}

}  // namespace
