// A process's node rank from the ranks' host names and from its launcher's environment, and
// the GPUs devices=auto gives it.
#include "core/node_rank.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace lightning {
namespace {

Config::EnvLookup environment(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(NodeRank, IsTheRanksPlaceAmongThoseOnItsHost) {
  // Ranks placed round-robin over three hosts, as `mpirun --map-by node` does.
  const std::vector<std::string> hosts = {"a", "b", "c", "a", "b", "c", "a"};
  const std::vector<std::pair<int, int>> expected = {{0, 3}, {0, 2}, {0, 2}, {1, 3},
                                                     {1, 2}, {1, 2}, {2, 3}};
  for (int r = 0; r < static_cast<int>(hosts.size()); ++r) {
    const NodeRank n = node_rank_among(hosts, r);
    EXPECT_EQ(n.local_rank, expected[static_cast<size_t>(r)].first) << "rank " << r;
    EXPECT_EQ(n.local_size, expected[static_cast<size_t>(r)].second) << "rank " << r;
  }
  const NodeRank alone = node_rank_among({"a"}, 0);
  EXPECT_EQ(alone.local_rank, 0);
  EXPECT_EQ(alone.local_size, 1);
}

TEST(NodeRank, ComesFromTheLaunchersEnvironment) {
  NodeRank n = node_rank_from(environment({}));
  EXPECT_EQ(n.local_rank, 0);
  EXPECT_EQ(n.local_size, 1);
  n = node_rank_from(
      environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}}));
  EXPECT_EQ(n.local_rank, 3);
  EXPECT_EQ(n.local_size, 4);
  n = node_rank_from(environment({{"MPI_LOCALRANKID", "1"}, {"MPI_LOCALNRANKS", "2"}}));
  EXPECT_EQ(n.local_rank, 1);
  EXPECT_EQ(n.local_size, 2);
  n = node_rank_from(
      environment({{"MV2_COMM_WORLD_LOCAL_RANK", "0"}, {"MV2_COMM_WORLD_LOCAL_SIZE", "5"}}));
  EXPECT_EQ(n.local_size, 5);
  // A rank without its size is no placement.
  EXPECT_EQ(node_rank_from(environment({{"MPI_LOCALRANKID", "1"}})).local_size, 1);
}

TEST(NodeRank, ABrokenVariableIsAConfigErrorNamingIt) {
  for (auto [rank, size, culprit] :
       {std::tuple{"x", "2", "OMPI_COMM_WORLD_LOCAL_RANK='x'"},
        {"1", "2x", "OMPI_COMM_WORLD_LOCAL_SIZE='2x'"},
        {"-1", "2", "OMPI_COMM_WORLD_LOCAL_RANK='-1'"},
        {"2", "2", "OMPI_COMM_WORLD_LOCAL_RANK=2 is not below OMPI_COMM_WORLD_LOCAL_SIZE=2"}}) {
    try {
      node_rank_from(environment(
          {{"OMPI_COMM_WORLD_LOCAL_RANK", rank}, {"OMPI_COMM_WORLD_LOCAL_SIZE", size}}));
      ADD_FAILURE() << "no error for " << rank << " of " << size;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kConfig);
      EXPECT_NE(e.message().find(culprit), std::string::npos) << e.what();
    }
  }
}

// Against a brute-force count: every GPU goes to some process, a GPU's processes are the
// ones that report it, and each process's count of sharers is that number.
TEST(GpuShare, EveryGpuIsTakenAndSharersAreCounted) {
  for (size_t gpus = 0; gpus <= 9; ++gpus)
    for (int size = 1; size <= 12; ++size) {
      std::map<size_t, int> takers;
      std::map<int, GpuShare> shares;
      for (int rank = 0; rank < size; ++rank) {
        shares[rank] = gpu_share(gpus, {rank, size});
        for (size_t g : shares[rank].gpus) {
          ASSERT_LT(g, gpus);
          ++takers[g];
        }
      }
      ASSERT_EQ(takers.size(), gpus) << gpus << " GPUs, " << size << " processes";
      for (int rank = 0; rank < size; ++rank) {
        const GpuShare& s = shares[rank];
        if (gpus == 0) {
          EXPECT_TRUE(s.gpus.empty());
          continue;
        }
        ASSERT_FALSE(s.gpus.empty());
        for (size_t g : s.gpus) EXPECT_EQ(takers[g], s.processes_per_gpu);
        // Shared GPUs only when there are more processes than GPUs, one GPU each then.
        if (static_cast<size_t>(size) > gpus)
          EXPECT_EQ(s.gpus.size(), 1u);
        else
          EXPECT_EQ(s.processes_per_gpu, 1);
      }
    }
}

}  // namespace
}  // namespace lightning
