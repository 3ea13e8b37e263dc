// Under a real mpirun on one node: the node rank the launcher's environment gives is the
// process's MPI rank, and the node has every process (what devices=auto shares GPUs by).
#include <gtest/gtest.h>
#include <mpi.h>

#include "core/node_rank.hpp"

namespace lightning {
namespace {

TEST(NodeRankUnderMpirun, IsTheMpiRankOnOneNode) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const NodeRank node = node_rank_from(Config::process_environment());
  EXPECT_EQ(node.local_rank, rank);
  EXPECT_EQ(node.local_size, size);
  // Two processes on a node with one GPU share it; with two GPUs, each takes its own.
  EXPECT_EQ(gpu_share(1, node).processes_per_gpu, size);
  EXPECT_EQ(gpu_share(static_cast<size_t>(size), node).gpus,
            std::vector<size_t>{static_cast<size_t>(rank)});
}

}  // namespace
}  // namespace lightning
