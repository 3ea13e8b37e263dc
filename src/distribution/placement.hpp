// How the cells of a regular grid (chunks or superblocks) are dealt to devices.
#pragma once

#include "lightning_kokkos/internal/core/ids.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lightning {

/// How grid cells, numbered row-major over the grid anchored at index 0, go to devices.
enum class Placement {
  /// Cell i of n goes to device floor(i * D / n): each device gets one contiguous run of
  /// cells, run lengths differing by at most one. Neighbouring chunks share a device, so halo
  /// exchanges and boundary-spanning regions mostly stay on one device.
  kContiguous,
  /// Cell i goes to device i mod D (the paper's "round-robin"): spreads uneven work, such as a
  /// triangular loop, evenly over devices.
  kRoundRobin,
};

/// "contiguous" / "round-robin".
std::string_view name_of(Placement placement);

/// The position (0..num_devices-1) in the device list of cell `cell` of `cells`.
/// Requires cell < cells and num_devices > 0.
std::size_t place_cell(Placement placement, uint64_t cell, uint64_t cells, std::size_t num_devices);

/// Checks a device subset given to `owner` (a distribution's to_string(), for the message):
/// throws Error(kInvalidArgument) when it is empty or names a device twice.
void check_device_subset(const std::vector<DeviceId>& devices, const std::string& owner);

}  // namespace lightning
