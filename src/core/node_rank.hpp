// Where a process stands among the processes of its node: what devices=auto shares GPUs by.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/config.hpp"

namespace lightning {

/// This process's rank among the processes of its node, and how many there are.
struct NodeRank {
  int local_rank = 0;
  int local_size = 1;
};

/// Where rank `rank` of an MPI run stands on its node, given every rank's host name (by
/// rank): its place among the ranks on the same host, in rank order. What the runtime shares
/// GPUs and CPUs by, under any launcher (the ranks exchange host names at the start).
NodeRank node_rank_among(const std::vector<std::string>& hosts, int rank);

/// The node rank the MPI launcher gives the process in its environment (Open MPI's
/// OMPI_COMM_WORLD_LOCAL_RANK/_SIZE, MPICH's MPI_LOCALRANKID/MPI_LOCALNRANKS, MVAPICH's
/// MV2_COMM_WORLD_LOCAL_RANK/_SIZE); rank 0 of 1 without one. For a process that does not
/// join the MPI run (lightning-info, which predicts what the runtime would pick); the runtime
/// itself counts by node_rank_among. Throws Error(kConfig) naming the variable when one is
/// not a number or the rank is not below the size.
NodeRank node_rank_from(const Config::EnvLookup& env);

/// Which of a node's `gpus` GPUs (by index) a process at `node` takes under devices=auto,
/// and how many of the node's processes take each of them. With no more processes than GPUs,
/// each process takes every GPU whose index leaves its rank modulo the process count (one
/// process per GPU); with more, each takes GPU local_rank % gpus, shared with the others
/// that map to it (their memory pools split it). No GPUs: none.
struct GpuShare {
  std::vector<size_t> gpus;
  int processes_per_gpu = 1;
};
GpuShare gpu_share(size_t gpus, NodeRank node);

}  // namespace lightning
