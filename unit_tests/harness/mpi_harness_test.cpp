// The multi-process harness works: every rank runs, the world has the size ctest asked for,
// and point-to-point messages go around a ring.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <string>

#include <Kokkos_Macros.hpp>

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

// The library reports the MPI it runs with (the first line of the library's own version) and
// the Kokkos it was built against.
TEST(MpiHarness, LibraryReportsTheMpiItRuns) {
  const std::string info = lightning::build_info();
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  std::string first(mpi, static_cast<size_t>(len));
  first.resize(first.find_first_of("\n,") == std::string::npos ? first.size()
                                                               : first.find_first_of("\n,"));
  ASSERT_FALSE(first.empty());
  EXPECT_NE(info.find("\n  MPI: " + first + "\n"), std::string::npos) << info;
  const std::string kokkos = std::to_string(KOKKOS_VERSION / 10000) + "." +
                             std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                             std::to_string(KOKKOS_VERSION % 100);
  EXPECT_NE(info.find("\n  Kokkos " + kokkos + "\n"), std::string::npos) << info;
}

}  // namespace
