// What a scan's final pass on a GPU works with besides the kernel's bytes: the state through
// which the blocks pass each other their prefixes. Compiled by the host compiler and, as
// text, by NVRTC: plain C++, no library.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lightning::jit {

/// The fourth parameter of a scan's final-pass entry point:
///   extern "C" __global__ void lightning_scan_final(Functor f, LaunchBox box, void* partials,
///                                                   ScanState scan)
/// The superblock is cut into tiles of `tile_size` consecutive indices, which the blocks take
/// in index order through `next_tile`. Each tile publishes its aggregate (status 1), then its
/// inclusive prefix (status 2), in its record of `records` (scan_record_size bytes each), for
/// the tiles after it to look back at (a single-pass scan: every index is read by one kernel).
/// `next_tile` and the records are zero at the start. `prefix` is the value the first index
/// starts from (in device memory); null: the identity. The generated kernel has the tile's
/// size as a constant (block threads × cuda::scan_rounds); `tile_size` is the host's count,
/// the same, for debuggers and traces.
struct ScanState {
  unsigned* next_tile;
  void* records;
  const void* prefix;
  int64_t tile_size;
};

static_assert(sizeof(ScanState) == 32, "ScanState is passed as raw parameter bytes");

/// Whether a tile's status and value share one 64-bit word, written and read whole (values of
/// at most 4 bytes): a look-back then reads each tile once, with no fence between status and
/// value.
constexpr bool scan_record_packed(size_t value_size) {
  return value_size <= 4;
}

/// The bytes of one tile's record: the packed word; or the status (4 bytes, padded to 8),
/// then the aggregate and the inclusive prefix, each in a slot of whole 8 bytes (a reader
/// that saw status 1 must not find the inclusive prefix in the aggregate's place).
constexpr size_t scan_record_size(size_t value_size) {
  return scan_record_packed(value_size) ? 8 : 8 + 2 * ((value_size + 7) / 8 * 8);
}

}  // namespace lightning::jit
