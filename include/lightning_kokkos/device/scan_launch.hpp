// What a scan's final pass on a GPU works with besides the kernel's bytes: the state through
// which the blocks pass each other their prefixes. Compiled by the host compiler and, as
// text, by NVRTC: plain C++, no library.
#pragma once

#include <cstdint>

namespace lightning::jit {

/// The fourth parameter of a scan's final-pass entry point:
///   extern "C" __global__ void lightning_scan_final(Functor f, LaunchBox box, void* partials,
///                                                   ScanState scan)
/// The superblock is cut into tiles of `tile_size` consecutive indices, which the blocks take
/// in index order through `next_tile`. Each tile publishes its aggregate (status 1), then its
/// inclusive prefix (status 2), for the tiles after it to look back at (a single-pass scan:
/// every index is read by one kernel). `next_tile` and `status` are zero at the start;
/// `aggregates` and `inclusive` hold one value per tile. `prefix` is the value the first
/// index starts from (in device memory); null: the identity.
struct ScanState {
  unsigned* next_tile;
  unsigned* status;
  void* aggregates;
  void* inclusive;
  const void* prefix;
  int64_t tile_size;
};

static_assert(sizeof(ScanState) == 48, "ScanState is passed as raw parameter bytes");

}  // namespace lightning::jit
