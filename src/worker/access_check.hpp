// Checked mode on host devices: every element a kernel touches through an array handle is
// compared with the region its annotation declared for the superblock, read-only regions are
// read from a private copy compared with the chunk after the run, and regions it overwrites
// are filled with a marker before the run and searched for it after.
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
/// null data pointer and, in its offset field, the address of a CheckedRegion. Host code
/// (lightning::View) sees the null pointer it already tests for, finds the element through
/// the CheckedRegion when it is inside the declared region, and asks checked_element()
/// otherwise, which counts the access. GPU code compiled for checked mode
/// (LIGHTNING_CHECKED_ACCESS) goes through a copy of the records in device memory, which the
/// device points the handles at and copies back after the run. One run runs on one host
/// thread, so the records need no lock.
class AccessCheck {
 public:
  /// What an overwritten region holds before the run: an element whose bytes are all this
  /// after it was not written, or was written with exactly these bytes (-1515870811 as an
  /// int32, 165 as a uint8), which a second run tells apart.
  static constexpr unsigned char kUnwrittenByte = 0xA5;
  /// The marker of that second run (host devices and GPUs), which tells an element the kernel
  /// wrote with kUnwrittenByte's bytes from one it left alone.
  static constexpr unsigned char kSecondUnwrittenByte = 0x5A;

  /// Makes the handle at `slot` of `functor` (already bound to `chunk`) a checked one that
  /// may touch `region` (inside the chunk's box) in `mode`.
  void add(uint8_t* functor, const kernel::ArraySlot& slot, BoxBuffer chunk, const Rect& region,
           planner::ChunkAccessMode mode);

  /// Host devices, before the run: points the handles of read-only regions at private copies
  /// of them (a write there reaches no chunk) and marks the overwritten regions; where there
  /// are some, keeps the regions the run writes, for a second run.
  void before();
  /// Host devices, after the run: the first violation (by parameter order: an index outside
  /// a region, else an element of a read-only region that changed, else an element of an
  /// overwritten region that still holds the marker), or none.
  std::optional<planner::AccessViolation> after() const;
  /// Host devices, after a run that after() found leaving an element of an overwritten
  /// region with the marker's bytes, which the kernel may have written (165 into a uint8):
  /// readies a second run over the same input. Keeps what the overwritten regions hold,
  /// puts back the other regions the run wrote as before() found them, and marks the
  /// overwritten regions with kSecondUnwrittenByte. The caller runs the kernel again (a
  /// reduction from its identity) and asks after_second_run().
  void before_second_run();
  /// After the second run: the first element of an overwritten region that neither run
  /// wrote (the first holding kUnwrittenByte's bytes after the first run and this one
  /// kSecondUnwrittenByte's), or none.
  std::optional<planner::AccessViolation> after_second_run() const;
  /// The same for devices whose memory the host cannot address: `first[i]` and `second[i]`
  /// are what record i's overwritten region held after each run (row-major over the region;
  /// null for other records), after a first run that after(before, now) found so.
  std::optional<planner::AccessViolation> unwritten_in_both_runs(
      const std::vector<const void*>& first, const std::vector<const void*>& second) const;

  /// One checked handle's record.
  struct Array {
    CheckedRegion view;  ///< what the handle points at
    BoxBuffer chunk;
    Rect region;
    planner::ChunkAccessMode mode = planner::ChunkAccessMode::kRead;
    int param = -1;
    size_t handle_offset = 0;  ///< of the handle in the functor's bytes

    /// Whether the run must leave the region as it found it.
    bool read_only() const { return mode == planner::ChunkAccessMode::kRead && !region.empty(); }
    /// Whether the run must write every element of the region.
    bool overwritten() const {
      return mode == planner::ChunkAccessMode::kOverwrite && !region.empty();
    }
  };

  /// Devices whose memory the host cannot address (GPUs): the records, which the device
  /// copies to its memory and back around the run.
  size_t size() const { return arrays_.size(); }
  Array& array(size_t i) { return arrays_[i]; }
  /// After such a run: the first violation, with the read-only regions' contents the device
  /// copied out before and after it and the overwritten regions' after it (per record,
  /// row-major over its region; null unless read-only or overwritten; the device marks the
  /// overwritten regions with kUnwrittenByte before the run).
  std::optional<planner::AccessViolation> after(const std::vector<const void*>& before,
                                                const std::vector<const void*>& now) const;

 private:
  /// The first violation: an access outside, else a read-only region of `now[i]` (its
  /// contents after the run) that differs from `before[i]` (over the region; null: none),
  /// else an element of an overwritten region of `now[i]` that holds the marker.
  std::optional<planner::AccessViolation> first_violation(
      const std::vector<const void*>& before, const std::vector<ConstBoxBuffer>& now) const;

  std::deque<Array> arrays_;  // a deque: the handles hold the records' addresses
  std::vector<std::vector<unsigned char>> snapshots_;  // per record; empty unless read-only
  // Per record, row-major over its region: what a written (not overwritten) region held
  // before the run, where a second run may be needed; what an overwritten one held after the
  // first run, once a second one is readied. Empty otherwise.
  std::vector<std::vector<unsigned char>> written_before_, first_run_;
};

/// The address of element `index` (global coordinates, the chunk's axis order) through the
/// checked handle at `handle`, or, when the index is outside the declared region, of a
/// scratch element (the access is counted and fails the run afterwards).
void* checked_element(const void* handle, const Point& index) noexcept;

/// Whether the handle at `handle` (an ArrayHandle's bytes) is a checked one.
bool is_checked_handle(const void* handle) noexcept;

}  // namespace lightning::worker
