// Which GPUs this process can drive, and which of them a DeviceSelection picks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/node_rank.hpp"

namespace lightning::cuda {

/// What the driver says about one GPU.
struct GpuInfo {
  int ordinal = 0;  ///< the driver's device number (CUDA_VISIBLE_DEVICES applies)
  std::string name;
  uint64_t total_memory = 0;  ///< bytes
  int compute_major = 0;      ///< compute capability, e.g. 9.0 on H100/H200
  int compute_minor = 0;
  int multiprocessors = 0;
  int max_threads_per_block = 0;
  /// Shared memory one block may have when its kernel opts in (bytes; 227 KiB on sm_90).
  int max_shared_per_block_optin = 0;
  bool unified_addressing = false;
};

/// Every GPU of this machine; empty when there is no driver or no GPU. Throws Error(kCuda)
/// when a driver is present but fails to answer.
std::vector<GpuInfo> discover_gpus();

/// The GPUs `selection` names, in its order: for `cuda`, every GPU (an error when there is
/// none); for `cuda:0,2`, those ordinals (an error naming the ordinal when one does not
/// exist); for `auto`, this process's share of them by its rank on the node (gpu_share;
/// every GPU for a process alone, possibly none); for `host:N`, none. Errors are
/// Error(kConfig) naming the selection and what the machine has.
std::vector<GpuInfo> select_gpus(const DeviceSelection& selection, const std::vector<GpuInfo>& gpus,
                                 NodeRank node = {});

/// One line per GPU: "cuda:0 NVIDIA H200, 139.8 GiB, compute capability 9.0, 132 SMs".
std::string describe(const std::vector<GpuInfo>& gpus);

}  // namespace lightning::cuda
