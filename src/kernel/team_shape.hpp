// The shape of a team launch (Kokkos' TeamPolicy): how many teams, how many threads each,
// and the scratch memory each team gets. It travels with the launch, in the kernel's bytes.
#pragma once

#include <cstdint>
#include <string>

#include "lightning_kokkos/device/team_launch.hpp"
#include "lightning_kokkos/internal/kernel/block_limits.hpp"

namespace lightning::kernel {

/// What every device allows a team launch, so that one program runs alike everywhere:
/// the limits of a GPU thread block (a team is one block there).
struct TeamLimits {
  static constexpr int kMaxThreads = BlockLimits::kMaxThreads;  ///< team size × vector length
  static constexpr int kMaxVectorLength = 32;                   ///< a warp; a power of two
  /// bytes per team: shared memory
  static constexpr uint64_t kMaxScratch0 = BlockLimits::kSharedWithoutOptIn;
  static constexpr uint64_t kMaxScratch1 = 20 * 1024 * 1024;  ///< bytes per team
};

/// A team launch (jit::TeamLaunch: league, team and vector sizes, scratch bytes) with the
/// host's checks. Plain bytes: it is copied with the kernel's bytes to every rank, and GPU
/// code reads it as the jit::TeamLaunch it is.
struct TeamShape : jit::TeamLaunch {
  /// The scratch bytes one team of this shape uses at `level` (0 or 1); with `threads`, the
  /// bytes a team of that many threads would use.
  uint64_t scratch_bytes(int level) const { return scratch_bytes(level, team_size); }
  uint64_t scratch_bytes(int level, int64_t threads) const {
    return team_scratch[level] + thread_scratch[level] * static_cast<uint64_t>(threads);
  }
  /// Empty when every device can run this shape (TeamLimits), else what is wrong, e.g.
  /// "team size 2048 x vector length 1 is more than 1024 threads per team".
  std::string limit_violation() const;
};

static_assert(sizeof(TeamShape) == sizeof(jit::TeamLaunch), "GPU code reads a TeamShape's bytes");

/// The team size `Kokkos::AUTO` gives `shape` (its vector length and scratch sizes; its team
/// size is ignored). On host devices (`gpus` false: some device of the run is not a GPU) one
/// thread, as Kokkos::Serial. On GPUs Kokkos' CUDA choice: the smallest block of at least 128
/// threads among those that keep the most threads resident on an SM (2048 threads, 32 blocks
/// and 228 KiB of shared memory per SM, as on compute capability 9.0), counting the team's
/// level-0 scratch; registers are not counted (the kernel is compiled later, on each GPU).
/// Without scratch: 128 / vector length.
int recommended_team_size(const TeamShape& shape, bool gpus);

/// The message of a scratch allocation of `asked` bytes at `level` when `left` of the team's
/// `capacity` bytes remain (host devices and GPUs alike).
std::string scratch_exhausted_message(int level, uint64_t asked, uint64_t left, uint64_t capacity);

}  // namespace lightning::kernel
