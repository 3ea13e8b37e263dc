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
  /// The most shared memory any GPU lets a block opt into (compute capability 9.0 and 10.0:
  /// 227 KiB; others have less, which the GPU checks when it runs the block): a launch asking
  /// more can run nowhere, so it is refused on every device, host devices included.
  static constexpr uint64_t kMaxSharedOptIn = 227 * 1024;
};

}  // namespace lightning::kernel
