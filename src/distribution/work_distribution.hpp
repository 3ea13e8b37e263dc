// Work distributions: descriptions of how to cut a launch into superblocks and where to run
// them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/core/point.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"
#include "lightning_kokkos/internal/distribution/data_layout.hpp"
#include "lightning_kokkos/internal/distribution/device_set.hpp"
#include "lightning_kokkos/internal/distribution/placement.hpp"
#include "lightning_kokkos/internal/distribution/superblock.hpp"

namespace lightning {

/// How to cut a launch domain into superblocks and which device runs each, independent of
/// the domain and the cluster: `split()` applies it to both. Built by the functions of
/// `lightning::work`; a small value, cheap to copy.
class WorkDistribution {
 public:
  enum class Kind {
    kGrid,      ///< block, tiles, cyclic: a regular grid of superblocks
    kLike,      ///< the owned boxes of an array's chunks, on their devices
    kExplicit,  ///< an explicit list of superblocks
  };

  Kind kind() const { return kind_; }
  Placement placement() const { return placement_; }

  /// The same grid distribution over `devices` only, in that order. Throws
  /// Error(kInvalidArgument) for an empty or duplicated list or a non-grid distribution.
  WorkDistribution with_devices(std::vector<DeviceId> devices) const;
  /// The same grid distribution with another placement. Throws Error(kInvalidArgument) for
  /// a non-grid distribution.
  WorkDistribution with_placement(Placement placement) const;

  /// The superblocks of a launch over `domain` (rank 1-3, indices 0 or more; may be empty,
  /// giving no superblocks) with thread blocks of extent `block_size`, on `devices`.
  ///
  /// The result is validated (see validate_superblocks): disjoint, covering the domain, each
  /// edge a multiple of the block size (counted from global index 0) or one of the domain's
  /// ends, on devices that exist. So a launch over [1, n-1) with blocks of 256 gets a first
  /// superblock starting at 1, the next ones at multiples of 256, and a last one ending at n-1.
  /// Throws Error(kInvalidArgument) for a bad domain or block size, Error(kDistribution) for
  /// invalid superblocks, naming the culprit.
  std::vector<Superblock> split(const Rect& domain, const Point& block_size,
                                const DeviceSet& devices) const;

  /// "work::block(axis 0, (64000), contiguous)": for logs and error messages.
  std::string to_string() const;

  /// Equal distributions split every domain alike (the planner's plan cache keys on this).
  friend bool operator==(const WorkDistribution& a, const WorkDistribution& b) {
    const bool same_list = a.list_ == b.list_ || (a.list_ && b.list_ && *a.list_ == *b.list_);
    return a.kind_ == b.kind_ && a.grid_name() == b.grid_name() && a.placement_ == b.placement_ &&
           a.subset_ == b.subset_ && a.axis_ == b.axis_ && a.shape_ == b.shape_ &&
           a.array_extent_ == b.array_extent_ && same_list;
  }
  friend bool operator!=(const WorkDistribution& a, const WorkDistribution& b) { return !(a == b); }

 private:
  friend WorkDistribution make_grid_work(const char* name, int axis, const Point& shape,
                                         Placement placement);
  friend WorkDistribution make_like_work(const DataLayout& layout);
  friend WorkDistribution make_explicit_work(std::vector<Superblock> superblocks);

  std::vector<Superblock> grid_split(const Rect& domain, const Point& block_size,
                                     const DeviceSet& devices) const;
  std::vector<Superblock> like_split(const Rect& domain, const Point& block_size) const;

  std::string_view grid_name() const { return grid_name_ ? grid_name_ : ""; }

  // Copies and comparisons stay cheap (a launch copies its distribution into the plan
  // cache's key): no string is held, to_string() builds the text when asked.
  Kind kind_ = Kind::kGrid;
  const char* grid_name_ = nullptr;  ///< kGrid: "block", "tiles" or "cyclic" (static text)
  Placement placement_ = Placement::kContiguous;
  std::vector<DeviceId> subset_;
  // kGrid: as for DataDistribution, axis_ >= 0 cuts only that axis into shape_[0].
  int axis_ = 0;
  Point shape_;
  // kLike: the array's extent and its primary chunks' owned boxes (shared: layouts can be
  // large and a distribution is copied with every launch; launches following one array share
  // one list, so comparing them stops at the pointers); kExplicit: the list.
  Point array_extent_;
  std::shared_ptr<const std::vector<Superblock>> list_;
};

/// Throws Error(kDistribution) unless `superblocks` are a valid split of `domain` for blocks
/// of `block_size` on `devices`: each non-empty and of the domain's rank, on a known device,
/// edges at multiples of the block size or at the domain's ends; pairwise disjoint; covering
/// the domain. The message names the superblock(s), box and device at fault.
void validate_superblocks(const Rect& domain, const Point& block_size, const DeviceSet& devices,
                          const std::vector<Superblock>& superblocks);

/// The work distributions. Sizes must be positive (Error(kInvalidArgument) otherwise).
/// Superblock sizes are rounded up to a multiple of the launch's block size, because the
/// block size is often the runtime's choice rather than the user's. Grid superblocks are
/// anchored at index 0 and numbered like the chunks of the matching data distribution, so
/// work::block(s) runs next to dist::block(s) / dist::stencil(s, h) data when the launch
/// spans the array (use work::like to follow any array exactly).
namespace work {

/// Superblocks of `size` threads along axis 0, whole along the others, placed contiguously.
WorkDistribution block(int64_t size);
/// Superblocks of `size` threads along `axis`, whole along the others, placed contiguously.
WorkDistribution block(int axis, int64_t size);
/// Superblocks of extent `tile` (rank equal to the launch's), placed contiguously.
WorkDistribution tiles(const Point& tile);
/// block(size) dealt round-robin: superblock i on device i mod D.
WorkDistribution cyclic(int64_t size);
/// block(axis, size) dealt round-robin.
WorkDistribution cyclic(int axis, int64_t size);
/// One superblock per primary chunk of `layout`: its owned box clipped to the launch domain,
/// edges moved down to a multiple of the block size, run on the chunk's device. The launch
/// domain must lie inside the array (e.g. [1, n-1) over an array of n); replicas are ignored,
/// so a replicated array puts all work on its primary's device.
WorkDistribution like(const DataLayout& layout);
/// Exactly these superblocks; split() checks them against the launch.
WorkDistribution explicit_list(std::vector<Superblock> superblocks);

}  // namespace work

}  // namespace lightning
