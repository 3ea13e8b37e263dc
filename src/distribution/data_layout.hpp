// The chunks of one array, validated, with the queries the planner asks of them.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/core/point.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"
#include "lightning_kokkos/internal/distribution/box_index.hpp"
#include "lightning_kokkos/internal/distribution/chunk.hpp"
#include "lightning_kokkos/internal/distribution/device_set.hpp"

namespace lightning {

/// Most chunks one layout may have. A chunk costs a task per access and some metadata on
/// every worker; more than this means a chunk size chosen far too small (the paper advises
/// about 0.5 GB per chunk on GPUs).
inline constexpr std::size_t kMaxChunks = std::size_t{1} << 21;

/// The chunks of an array of a given extent over a given set of devices. Chunk i is chunk
/// number i of the layout (the planner maps it to a ChunkId); the order is the one the
/// distribution documents (row-major over the grid for regular distributions).
///
/// Invariants, checked on construction: every chunk's box is non-empty and inside the array,
/// its owned box is inside its box, its device exists; the owned boxes are pairwise disjoint
/// and cover the array exactly, so each element has exactly one home (boxes, and so copies,
/// may overlap). Immutable afterwards; queries are const, allocation-free and thread-safe.
class DataLayout {
 public:
  /// A placeholder with no chunks (and rank 0), for default-constructed holders.
  DataLayout() = default;
  /// Validates and indexes `chunks` of an array of `extent` (rank 1-3, sizes 0 or more).
  /// Throws Error(kDistribution) naming the culprit: the chunk outside the array, the two
  /// chunks that own the same element, an element no chunk owns, the device that does not
  /// exist; Error(kInvalidArgument) for a bad extent.
  DataLayout(const Point& extent, std::vector<Chunk> chunks, DeviceSet devices);

  int rank() const { return extent_.rank(); }
  const Point& extent() const { return extent_; }
  /// [0, extent).
  Rect domain() const { return Rect::from_extent(extent_); }
  const DeviceSet& devices() const { return devices_; }
  const std::vector<Chunk>& chunks() const { return chunks_; }
  std::size_t size() const { return chunks_.size(); }
  const Chunk& operator[](std::size_t i) const { return chunks_[i]; }

  /// The chunk whose owned box holds `p`: the element's home. nullopt outside the array.
  std::optional<std::size_t> home_of(const Point& p) const;
  /// Sets `out` to the chunks whose owned box meets `region`, ascending. Their owned boxes
  /// clipped to `region` partition the part of `region` inside the array: the pieces to
  /// assemble a region that spans chunks from.
  void homes_of(const Rect& region, std::vector<std::size_t>& out) const;
  /// Sets `out` to every chunk whose box meets `region` (primary or not), ascending: every
  /// copy a write to `region` must update.
  void copies_of(const Rect& region, std::vector<std::size_t>& out) const;
  /// A chunk whose box contains all of `region` (non-empty), or nullopt when none does (the
  /// region spans chunks, or leaves the array). Among several, prefers one on `device`, then
  /// one on the worker of `device` (so a copy inside the node), then a primary copy, then the
  /// lowest number.
  std::optional<std::size_t> find_containing(const Rect& region, DeviceId device) const;
  /// As above, preferring a chunk on a device of `worker`, then a primary, then the lowest number.
  std::optional<std::size_t> find_containing(const Rect& region, WorkerId worker) const;
  /// As above with no locality preference: a primary, then the lowest number.
  std::optional<std::size_t> find_containing(const Rect& region) const;

 private:
  std::optional<std::size_t> best_containing(const Rect& region, DeviceId device,
                                             WorkerId worker) const;

  Point extent_;
  DeviceSet devices_;
  std::vector<Chunk> chunks_;
  BoxIndex index_;  // over chunks_[i].box
};

}  // namespace lightning
