// One superblock of a launch: a box of thread indices that runs on one device.
#pragma once

#include <cstddef>
#include <string>

#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"

namespace lightning {

/// Most superblocks one split may produce. Each superblock becomes at least one task, so more
/// than this means a superblock size chosen far too small; failing early beats planning for
/// minutes.
inline constexpr std::size_t kMaxSuperblocks = std::size_t{1} << 21;

/// A rectangular group of thread indices (global, half-open) executed on one device.
/// The superblocks of one launch are disjoint and cover the launch domain.
struct Superblock {
  Rect threads;
  DeviceId device;

  /// "[0, 64000) on D1".
  std::string to_string() const { return threads.to_string() + " on " + device.to_string(); }

  friend bool operator==(const Superblock& a, const Superblock& b) {
    return a.threads == b.threads && a.device == b.device;
  }
  friend bool operator!=(const Superblock& a, const Superblock& b) { return !(a == b); }
};

}  // namespace lightning
