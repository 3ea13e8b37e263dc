#include "core/node_rank.hpp"

#include <string>
#include <utility>

#include "core/error.hpp"

namespace lightning {

namespace {

int number(const std::string& name, const std::string& value) {
  size_t used = 0;
  int n = -1;
  try {
    n = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || n < 0)
    throw Error(ErrorKind::kConfig, name + "='" + value +
                                        "' (from the MPI launcher) is not a process count or "
                                        "rank; the node's GPUs cannot be shared by node rank");
  return n;
}

}  // namespace

NodeRank node_rank_from(const Config::EnvLookup& env) {
  static const std::pair<const char*, const char*> kLaunchers[] = {
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},
  };
  for (const auto& [rank_name, size_name] : kLaunchers) {
    const std::optional<std::string> rank = env(rank_name), size = env(size_name);
    if (!rank || !size) continue;
    NodeRank node{number(rank_name, *rank), number(size_name, *size)};
    if (node.local_rank >= node.local_size)
      throw Error(ErrorKind::kConfig, std::string(rank_name) + "=" + *rank + " is not below " +
                                          size_name + "=" + *size);
    return node;
  }
  return {};
}

NodeRank node_rank_among(const std::vector<std::string>& hosts, int rank) {
  const std::string& here = hosts.at(static_cast<size_t>(rank));
  NodeRank node{0, 0};
  for (size_t r = 0; r < hosts.size(); ++r) {
    if (hosts[r] != here) continue;
    if (static_cast<int>(r) < rank) ++node.local_rank;
    ++node.local_size;
  }
  return node;
}

GpuShare gpu_share(size_t gpus, NodeRank node) {
  GpuShare share;
  if (gpus == 0) return share;
  const size_t rank = static_cast<size_t>(node.local_rank);
  const size_t size = static_cast<size_t>(node.local_size);
  if (size <= gpus) {
    for (size_t g = rank; g < gpus; g += size) share.gpus.push_back(g);
    return share;
  }
  const size_t gpu = rank % gpus;
  share.gpus.push_back(gpu);
  // Ranks gpu, gpu + gpus, gpu + 2 gpus, ... below size.
  share.processes_per_gpu = static_cast<int>((size - gpu + gpus - 1) / gpus);
  return share;
}

}  // namespace lightning
