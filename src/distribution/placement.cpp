#include "distribution/placement.hpp"

#include "core/error.hpp"

#include <algorithm>

#include <cassert>

namespace lightning {

std::string_view name_of(Placement placement) {
  switch (placement) {
    case Placement::kContiguous:
      return "contiguous";
    case Placement::kRoundRobin:
      return "round-robin";
  }
  return "?";
}

std::size_t place_cell(Placement placement, uint64_t cell, uint64_t cells,
                       std::size_t num_devices) {
  assert(cell < cells && num_devices > 0);
  if (placement == Placement::kRoundRobin) return static_cast<std::size_t>(cell % num_devices);
  // cell * D can exceed 64 bits only for absurd grids; 128-bit keeps it exact regardless.
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::size_t>(static_cast<u128>(cell) * num_devices / cells);
}

void check_device_subset(const std::vector<DeviceId>& devices, const std::string& owner) {
  if (devices.empty()) throw Error(ErrorKind::kInvalidArgument, "empty device subset for " + owner);
  std::vector<DeviceId> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end())
    throw Error(ErrorKind::kInvalidArgument,
                "device " + dup->to_string() + " appears twice in the subset for " + owner);
}

}  // namespace lightning
