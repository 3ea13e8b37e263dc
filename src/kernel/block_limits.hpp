// What every device allows one thread block, so that a program runs alike on host devices
// and GPUs: CUDA's limits (compute capability 7.0 and later).
#pragma once

#include <cstdint>

namespace lightning::kernel {

/// The limits of a thread block and a grid of them.
struct BlockLimits {
  static constexpr int64_t kMaxThreads = 1024;               ///< threads per block
  static constexpr int64_t kMaxBlock[3] = {1024, 1024, 64};  ///< threads per block, per axis
  static constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};  ///< blocks per axis
  /// Shared memory a block may have without opting in (static, or dynamic up to this).
  static constexpr uint64_t kSharedWithoutOptIn = 48 * 1024;
};

}  // namespace lightning::kernel
