// How a team launch (Kokkos' TeamPolicy) reaches GPU code: its shape, which travels in the
// kernel's bytes, and what the device gives each launch besides (level-1 scratch, a status
// record). Compiled by the host compiler and, as text, by NVRTC: plain C++, no library.
#pragma once

#include <cstdint>

namespace lightning::jit {

/// A team launch: `league_size` teams of `team_size` threads, each with `vector_length`
/// lanes; scratch of levels 0 and 1 is `team_scratch[level]` bytes per team plus
/// `thread_scratch[level]` per thread. The layout is fixed (48 bytes): host and device must
/// agree on it (kernel::TeamShape adds the host's checks).
struct TeamLaunch {
  int64_t league_size = 0;
  int32_t team_size = 1;
  int32_t vector_length = 1;
  uint64_t team_scratch[2] = {0, 0};
  uint64_t thread_scratch[2] = {0, 0};
};

static_assert(sizeof(TeamLaunch) == 48, "TeamLaunch is part of a kernel's raw bytes");

/// What a team kernel's GPU code reports back: the first scratch allocation that did not fit
/// (`failed` set; the level, the bytes asked for, those left and the team's capacity).
struct TeamStatus {
  uint32_t failed;
  int32_t level;
  uint64_t asked;
  uint64_t left;
  uint64_t capacity;
};

static_assert(sizeof(TeamStatus) == 32, "TeamStatus is copied from device memory as bytes");

/// The fourth parameter of a team kernel's entry point:
///   extern "C" __global__ void entry(Functor f, LaunchBox box, void* partials,
///                                    TeamResources resources)
/// Block b of the grid has level-1 scratch [level1 + b * level1_bytes, + level1_bytes). A
/// reduction writes one partial per block; the last block to finish (counted in
/// `blocks_done`, zero at the start) joins them into `result`.
struct TeamResources {
  unsigned char* level1;
  uint64_t level1_bytes;
  TeamStatus* status;
  void* result;
  unsigned* blocks_done;
};

static_assert(sizeof(TeamResources) == 40, "TeamResources is passed as raw parameter bytes");

}  // namespace lightning::jit
