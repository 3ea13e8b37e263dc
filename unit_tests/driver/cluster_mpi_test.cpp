// The Cluster under a real mpirun on one node: every rank learns where it stands on its node
// from the host names the ranks exchange, whatever the launcher says (and it agrees with what
// Open MPI's mpirun says).
#include <gtest/gtest.h>
#include <mpi.h>

#include "core/node_rank.hpp"
#include "driver/cluster.hpp"

namespace lightning::driver {
namespace {

TEST(ClusterUnderMpirun, KnowsEachRanksPlaceOnItsNode) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Cluster cluster;
  ASSERT_EQ(cluster.rank(), rank);
  const NodeRank node = cluster.node_rank();
  EXPECT_EQ(node.local_rank, rank);  // one node: the node rank is the MPI rank
  EXPECT_EQ(node.local_size, size);
  const NodeRank launcher = node_rank_from(Config::process_environment());
  EXPECT_EQ(node.local_rank, launcher.local_rank);
  EXPECT_EQ(node.local_size, launcher.local_size);
}

}  // namespace
}  // namespace lightning::driver
