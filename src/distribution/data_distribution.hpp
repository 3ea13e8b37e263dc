// Data distributions: descriptions of how to cut an array into chunks and where to put them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/core/point.hpp"
#include "lightning_kokkos/internal/distribution/chunk.hpp"
#include "lightning_kokkos/internal/distribution/data_layout.hpp"
#include "lightning_kokkos/internal/distribution/device_set.hpp"
#include "lightning_kokkos/internal/distribution/placement.hpp"

namespace lightning {

/// Where the copies of a replicated array live.
enum class ReplicaScope {
  kPerDevice,  ///< one copy on every device (of the subset)
  kPerWorker,  ///< one copy per worker, on that worker's first device (of the subset)
};

/// How to cut an array into chunks and place them on devices, independent of the array's
/// extent and of the cluster: `layout()` applies it to both. Built by the functions of
/// `lightning::dist`; a small value, cheap to copy and store with each array.
class DataDistribution {
 public:
  enum class Kind {
    kGrid,         ///< block, rows, columns, tiles, block_cyclic, stencil: a regular grid
    kReplicated,   ///< a full copy per device or per worker
    kCentralized,  ///< everything on one device
    kUserDefined,  ///< an explicit list of chunks
  };

  Kind kind() const { return kind_; }
  Placement placement() const { return placement_; }
  /// The device subset chunks are placed over; empty means all devices of the cluster.
  const std::vector<DeviceId>& device_subset() const { return subset_; }

  /// The same distribution placed over `devices` only, in the order given (round-robin and
  /// contiguous runs follow that order). Throws Error(kInvalidArgument) for an empty or
  /// duplicated list, or for centralized and user-defined distributions, which name their
  /// devices themselves; unknown devices are reported by layout().
  DataDistribution with_devices(std::vector<DeviceId> devices) const;
  /// The same grid distribution with another placement (e.g. tiles dealt round-robin).
  /// Throws Error(kInvalidArgument) for a non-grid distribution.
  DataDistribution with_placement(Placement placement) const;

  /// The same distribution for the array stored with its `rank` axes in reverse order (a
  /// column-major array): chunk shapes, halos, the cut axis and explicit chunk boxes are
  /// reversed, so chunk i covers the same elements. Rank 1: the distribution itself.
  DataDistribution with_axes_reversed(int rank) const;
  /// The chunks of an array of `extent` (rank 1-3; an extent of 0 gives no chunks) on
  /// `devices`. Throws Error(kInvalidArgument) when the distribution does not fit the array
  /// (axis or tile rank beyond the array's rank) and Error(kDistribution) when the chunks are
  /// invalid (see DataLayout) or a device is unknown.
  DataLayout layout(const Point& extent, const DeviceSet& devices) const;

  /// "stencil((64000), halo (1), contiguous)": for logs and error messages.
  std::string to_string() const;

 private:
  friend DataDistribution make_grid_distribution(std::string name, int axis, const Point& shape,
                                                 const Point& halo, Placement placement);
  friend DataDistribution make_replicated_distribution(ReplicaScope scope);
  friend DataDistribution make_centralized_distribution(DeviceId device);
  friend DataDistribution make_user_defined_distribution(std::vector<Chunk> chunks);

  std::vector<DeviceId> devices_for(const DeviceSet& devices) const;
  std::vector<Chunk> grid_chunks(const Point& extent, const std::vector<DeviceId>& devices) const;
  std::vector<Chunk> replicated_chunks(const Point& extent, const DeviceSet& set,
                                       const std::vector<DeviceId>& devices) const;

  Kind kind_ = Kind::kCentralized;
  std::string name_;  // the factory's name, for to_string()
  Placement placement_ = Placement::kContiguous;
  std::vector<DeviceId> subset_;
  // kGrid: with axis_ >= 0, the chunk extent is shape_[0] on axis_ and the whole array on the
  // other axes; with axis_ < 0, shape_ gives every axis. A rank-1 halo_ applies to all axes.
  int axis_ = 0;
  Point shape_;
  Point halo_;
  ReplicaScope scope_ = ReplicaScope::kPerDevice;  // kReplicated
  DeviceId device_;                                // kCentralized
  std::vector<Chunk> chunks_;                      // kUserDefined
};

/// The data distributions. Every size must be positive (Error(kInvalidArgument) otherwise).
/// Grid cells are anchored at index 0; the last cell along an axis is smaller when the size
/// does not divide the extent. Chunks are numbered row-major over the grid and placed
/// contiguously (device d gets one run of neighbouring chunks) unless said otherwise.
namespace dist {

/// Chunks of `chunk_size` elements along axis 0, whole along the others.
DataDistribution block(int64_t chunk_size);
/// Chunks of `chunk_size` along `axis` (0-2), whole along the others.
DataDistribution block(int axis, int64_t chunk_size);
/// block(0, chunk_rows): chunks of whole rows.
DataDistribution rows(int64_t chunk_rows);
/// block(1, chunk_columns): chunks of whole columns (arrays of rank 2 or 3).
DataDistribution columns(int64_t chunk_columns);
/// Tiles of extent `tile` (its rank must equal the array's).
DataDistribution tiles(const Point& tile);
/// block(axis, chunk_size) dealt round-robin: chunk i on device i mod D.
DataDistribution block_cyclic(int axis, int64_t chunk_size);
/// block_cyclic along axis 0.
DataDistribution block_cyclic(int64_t chunk_size);
/// Chunks of `chunk_size` along axis 0 (whole along the others) that also store `halo`
/// elements of each neighbour, so a stencil of that radius reads from one chunk. The halo is
/// a replica: each element's home stays the chunk whose core holds it.
DataDistribution stencil(int64_t chunk_size, int64_t halo);
/// Stencil tiles of extent `chunk` with a halo of `halo` on every axis.
DataDistribution stencil(const Point& chunk, int64_t halo);
/// Stencil tiles of extent `chunk` with a halo of `halo[a]` on axis a (0 allowed).
DataDistribution stencil(const Point& chunk, const Point& halo);
/// A full copy per device or per worker. The copy on the first device placed is the primary
/// (home of every element); the others are replicas the planner keeps coherent.
DataDistribution replicated(ReplicaScope scope = ReplicaScope::kPerDevice);
/// The whole array as one chunk on `device`.
DataDistribution centralized(DeviceId device);
/// Exactly these chunks (see Chunk::primary and Chunk::replica); layout() checks them against
/// the array (their owned boxes must partition it) and the cluster.
DataDistribution user_defined(std::vector<Chunk> chunks);

}  // namespace dist

}  // namespace lightning
