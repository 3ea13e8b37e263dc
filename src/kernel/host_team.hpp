// How a team kernel runs on a host device: one thread per team member, meeting at barriers,
// exchanging values through a shared buffer (team reductions, broadcasts, scans). Slow for
// large teams, but it gives a team kernel the semantics it has on a GPU, so a program written
// for GPU team sizes runs and agrees on host devices.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace lightning::kernel {

/// What the members of one team share: a barrier, an exchange buffer and the team's scratch
/// memory. Used only by the threads of one run_host_team(). When a member fails, the team
/// is cancelled: every member waiting or arriving at a barrier then leaves its kernel (with
/// TeamCancelled), so a failing member never leaves the others waiting.
class HostTeam {
 public:
  /// Bytes per member in the exchange buffer: the largest value a team reduction, broadcast
  /// or scan may move.
  static constexpr std::size_t kExchangeBytes = 1024;

  /// Thrown out of barrier() in the members of a cancelled team.
  struct TeamCancelled {};

  /// Which barrier a member arrives at: one of the kernel's (team_barrier and the team
  /// collectives), or the one after each team's kernel returns.
  enum class Barrier : uint8_t { kInKernel, kTeamEnd };
  /// What the team runs, for its error messages: a Kokkos team, or a CUDA thread block (a
  /// ported kernel through the CUDA shim).
  enum class Of : uint8_t { kKokkosTeam, kCudaBlock };

  HostTeam(int size, uint64_t scratch0_bytes, uint64_t scratch1_bytes, Of of = Of::kKokkosTeam);

  int size() const { return size_; }
  /// Returns when every member has arrived (at once for a team of one). A member arriving
  /// at another kind of barrier than the others wait at (one returned from the kernel while
  /// the others wait in it) cancels the team and throws Error(kInvalidArgument): on a GPU
  /// that kernel would hang. `rank`, the caller's, is given where warp_barrier() is used (the
  /// CUDA shim), so that a lane waiting here while its warp waits for it is an error too.
  void barrier(Barrier kind = Barrier::kInKernel, int rank = -1) {
    // A team of one has no one to wait for nor to disagree with (Kokkos::AUTO on a host
    // device): no lock, since a kernel may reach a barrier per team and per collective.
    if (size_ > 1) barrier_of_several(kind, rank);
  }
  /// The kind of warp intrinsic a warp barrier serves.
  enum class WarpOp : uint8_t { kSyncwarp, kShuffle, kVote };
  /// Returns when every lane of `mask` in member `rank`'s warp (32 consecutive ranks, as CUDA
  /// forms warps) has arrived with the same mask for the same kind of intrinsic: __syncwarp and
  /// the warp intrinsics of the CUDA shim (lanes meet in the order they arrive, whichever call
  /// of that kind they are at, as on compute capability 7.0 and later). Lanes the team does not
  /// have are not waited for. A lane of the mask that waits at the team barrier (or has
  /// returned from the kernel) instead, a mask without the caller, and lanes arriving with
  /// different masks or for different kinds cancel the team and throw Error(kInvalidArgument)
  /// naming the warp: on a GPU such a kernel's behaviour is undefined.
  void warp_barrier(int rank, uint32_t mask, WarpOp op);
  /// The lanes the team has in member `rank`'s warp, as a mask (all 32 but in a last, partial
  /// warp).
  uint32_t warp_lanes(int rank) const {
    const int lanes = size_ - rank / 32 * 32;
    return lanes >= 32 ? ~0u : (1u << lanes) - 1;
  }
  /// Releases every member waiting at a barrier, now and later, with TeamCancelled.
  void cancel();
  /// Member `rank`'s slot of the exchange buffer (kExchangeBytes, aligned for any value).
  unsigned char* slot(int rank) {
    return exchange_.data()->bytes + static_cast<std::size_t>(rank) * kExchangeBytes;
  }
  /// An extra slot (e.g. the base a scan adds).
  unsigned char* shared_slot() { return slot(size_); }
  /// The team's scratch memory of `level`, aligned to 64 bytes.
  void* scratch(int level) { return scratch_[level].data(); }

 private:
  void barrier_of_several(Barrier kind, int rank);
  struct alignas(64) Line {
    unsigned char bytes[64];
  };
  // One warp's barrier: the lanes arrived in this generation, with the mask they gave.
  struct WarpSync {
    uint32_t arrived = 0;
    uint32_t mask = 0;
    WarpOp op = WarpOp::kSyncwarp;
    uint64_t generation = 0;
  };
  // Cancels the team (mutex_ held) and throws the error of a warp whose lanes cannot meet.
  [[noreturn]] void fail_warp(int warp, const std::string& what);

  int size_;
  Of of_;
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  Barrier waiting_at_ = Barrier::kInKernel;  // of the members arrived in this generation
  bool cancelled_ = false;
  // Per member, in this generation: 0, or 1 + the Barrier it waits at.
  std::vector<uint8_t> at_team_barrier_;
  std::vector<WarpSync> warps_;
  std::vector<Line> exchange_;
  std::vector<Line> scratch_[2];
};

/// Runs `member(rank, team)` for every rank of a team of `team_size`, each on its own thread
/// (rank 0 on the caller's), and returns when all have returned. The first exception a
/// member throws cancels the team and is rethrown here, after every member has stopped.
void run_host_team(int team_size, uint64_t scratch0_bytes, uint64_t scratch1_bytes,
                   const std::function<void(int rank, HostTeam& team)>& member,
                   HostTeam::Of of = HostTeam::Of::kKokkosTeam);

}  // namespace lightning::kernel
