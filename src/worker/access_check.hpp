// Checked mode on host devices: every element a kernel touches through an array handle is
// compared with the region its annotation declared for the superblock, and read-only regions
// are compared with a snapshot after the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "core/rect.hpp"
#include "kernel/array_binding.hpp"
#include "lightning_kokkos/device/checked_region.hpp"
#include "planner/task.hpp"
#include "planner/task_failure.hpp"
#include "worker/region_ops.hpp"

namespace lightning::worker {

/// The checks of one kernel run. A checked handle keeps its strides and extents but has a
/// null data pointer and, in its offset field, the address of a CheckedRegion: host code
/// (lightning::View) sees the null pointer it already tests for, finds the element through
/// the CheckedRegion when it is inside the declared region, and asks checked_element()
/// otherwise, which records the access. GPU code never sees a checked handle. One run runs
/// on one thread, so the records need no lock.
class AccessCheck {
 public:
  /// Makes the handle at `slot` of `functor` (already bound to `chunk`) a checked one that
  /// may touch `region` (inside the chunk's box) in `mode`.
  void add(uint8_t* functor, const kernel::ArraySlot& slot, BoxBuffer chunk, const Rect& region,
           planner::ChunkAccessMode mode);

  /// Before the run: snapshots the read-only regions.
  void before();
  /// After the run: the first violation (by parameter order: an index outside a region, else
  /// an element of a read-only region that changed), or none.
  std::optional<planner::AccessViolation> after() const;

  /// One checked handle's record (see checked_element).
  struct Array {
    CheckedRegion view;  ///< what the handle points at
    BoxBuffer chunk;
    Rect region;
    planner::ChunkAccessMode mode = planner::ChunkAccessMode::kRead;
    int param = -1;
    std::optional<Point> outside;  ///< the first index outside `region`
    /// What an access outside `region` gets, so that the run goes on to its end.
    alignas(16) unsigned char scratch[64] = {};
  };

 private:
  std::deque<Array> arrays_;  // a deque: the handles hold the records' addresses
  std::vector<std::vector<unsigned char>> snapshots_;  // per record; empty unless read-only
};

/// The address of element `index` (global coordinates, the chunk's axis order) through the
/// checked handle at `handle`, or, when the index is outside the declared region, of a
/// scratch element (the access is recorded and fails the run afterwards).
void* checked_element(const void* handle, const Point& index) noexcept;

/// Whether the handle at `handle` (an ArrayHandle's bytes) is a checked one.
bool is_checked_handle(const void* handle) noexcept;

}  // namespace lightning::worker
