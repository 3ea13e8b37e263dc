#include "distribution/data_distribution.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "distribution/tiling.hpp"

namespace lightning {

namespace {

void require_positive(int64_t value, const char* what, const std::string& in) {
  if (value <= 0)
    throw Error(ErrorKind::kInvalidArgument, std::string(what) + " must be positive, got " +
                                                 std::to_string(value) + " (" + in + ")");
}

void require_axis(int axis, const std::string& in) {
  if (axis < 0 || axis >= kMaxRank)
    throw Error(ErrorKind::kInvalidArgument, "axis " + std::to_string(axis) + " is not 0 to " +
                                                 std::to_string(kMaxRank - 1) + " (" + in + ")");
}

}  // namespace

DataDistribution make_grid_distribution(std::string name, int axis, const Point& shape,
                                        const Point& halo, Placement placement) {
  const std::string call = "dist::" + name;
  if (axis >= 0) require_axis(axis, call);
  if (shape.rank() < 1)
    throw Error(ErrorKind::kInvalidArgument, "chunk extent needs 1 to 3 axes (" + call + ")");
  for (int a = 0; a < shape.rank(); ++a) require_positive(shape[a], "chunk size", call);
  for (int a = 0; a < halo.rank(); ++a)
    if (halo[a] < 0)
      throw Error(ErrorKind::kInvalidArgument,
                  "halo " + halo.to_string() + " must be 0 or more (" + call + ")");
  if (axis < 0 && halo.rank() != 1 && halo.rank() != shape.rank())
    throw Error(ErrorKind::kInvalidArgument, "halo " + halo.to_string() + " and chunk extent " +
                                                 shape.to_string() + " differ in rank (" + call +
                                                 ")");
  DataDistribution d;
  d.kind_ = DataDistribution::Kind::kGrid;
  d.name_ = std::move(name);
  d.axis_ = axis;
  d.shape_ = shape;
  d.halo_ = halo;
  d.placement_ = placement;
  return d;
}

DataDistribution make_replicated_distribution(ReplicaScope scope) {
  DataDistribution d;
  d.kind_ = DataDistribution::Kind::kReplicated;
  d.name_ = scope == ReplicaScope::kPerDevice ? "replicated(per device)" : "replicated(per worker)";
  d.scope_ = scope;
  return d;
}

DataDistribution make_centralized_distribution(DeviceId device) {
  if (!device.valid())
    throw Error(ErrorKind::kInvalidArgument, "dist::centralized needs a valid device id");
  DataDistribution d;
  d.kind_ = DataDistribution::Kind::kCentralized;
  d.name_ = "centralized(" + device.to_string() + ")";
  d.device_ = device;
  return d;
}

DataDistribution make_user_defined_distribution(std::vector<Chunk> chunks) {
  DataDistribution d;
  d.kind_ = DataDistribution::Kind::kUserDefined;
  d.name_ = "user_defined(" + std::to_string(chunks.size()) + " chunks)";
  d.chunks_ = std::move(chunks);
  return d;
}

DataDistribution DataDistribution::with_devices(std::vector<DeviceId> devices) const {
  if (kind_ == Kind::kCentralized || kind_ == Kind::kUserDefined)
    throw Error(ErrorKind::kInvalidArgument,
                to_string() + " names its devices itself; a device subset does not apply");
  check_device_subset(devices, to_string());
  DataDistribution d = *this;
  d.subset_ = std::move(devices);
  return d;
}

DataDistribution DataDistribution::with_placement(Placement placement) const {
  if (kind_ != Kind::kGrid)
    throw Error(ErrorKind::kInvalidArgument,
                "placement applies to grid distributions only, not to " + to_string());
  DataDistribution d = *this;
  d.placement_ = placement;
  return d;
}

DataDistribution DataDistribution::with_axes_reversed(int rank) const {
  DataDistribution d = *this;
  if (rank <= 1) return d;
  if (kind_ == Kind::kGrid) {
    if (axis_ >= 0) {
      if (axis_ >= rank)
        throw Error(ErrorKind::kInvalidArgument, to_string() + " cuts axis " +
                                                     std::to_string(axis_) + " of a rank-" +
                                                     std::to_string(rank) + " array");
      d.axis_ = rank - 1 - axis_;
    } else {
      d.shape_ = shape_.reversed();
    }
    if (halo_.rank() > 1) d.halo_ = halo_.reversed();
  } else if (kind_ == Kind::kUserDefined) {
    for (Chunk& c : d.chunks_) {
      c.box = c.box.reversed();
      c.owned = c.owned.reversed();
    }
  }
  return d;
}

std::string DataDistribution::to_string() const {
  if (kind_ != Kind::kGrid) return "dist::" + name_;
  std::string s = "dist::" + name_ + "(";
  if (axis_ >= 0) s += "axis " + std::to_string(axis_) + ", ";
  s += shape_.to_string();
  if (name_ == "stencil") s += ", halo " + halo_.to_string();
  s += ", ";
  s += name_of(placement_);
  return s + ")";
}

std::vector<DeviceId> DataDistribution::devices_for(const DeviceSet& devices) const {
  if (subset_.empty()) {
    std::vector<DeviceId> all;
    for (const DeviceInfo& d : devices.devices()) all.push_back(d.id);
    if (all.empty())
      throw Error(ErrorKind::kDistribution, "cannot place " + to_string() + ": no devices");
    return all;
  }
  for (DeviceId id : subset_) devices.require(id, "the device subset of " + to_string());
  return subset_;
}

std::vector<Chunk> DataDistribution::grid_chunks(const Point& extent,
                                                 const std::vector<DeviceId>& devices) const {
  const int rank = extent.rank();
  const std::string what = to_string() + " of an array of extent " + extent.to_string();
  if (rank < 1)
    throw Error(ErrorKind::kInvalidArgument, "cannot apply " + what + ": it needs rank 1 to 3");
  Point shape = extent;
  if (axis_ >= 0) {
    if (axis_ >= rank)
      throw Error(ErrorKind::kInvalidArgument,
                  "cannot apply " + what + ": axis " + std::to_string(axis_) +
                      " needs an array of rank " + std::to_string(axis_ + 1) + " or more");
    shape[axis_] = shape_[0];
  } else {
    if (shape_.rank() != rank)
      throw Error(ErrorKind::kInvalidArgument,
                  "cannot apply " + what + ": the chunk extent has rank " +
                      std::to_string(shape_.rank()) + ", the array rank " + std::to_string(rank));
    shape = shape_;
  }
  const Rect whole = Rect::from_extent(extent);
  std::vector<Chunk> chunks;
  if (whole.empty()) return chunks;
  for (int a = 0; a < rank; ++a) shape[a] = std::min(shape[a], extent[a]);  // whole axes
  const Point halo = halo_.rank() == 1 ? Point::filled(rank, halo_[0]) : halo_;
  const Tiling tiling(whole, shape);
  if (tiling.count() > kMaxChunks)
    throw Error(ErrorKind::kDistribution, what + " makes " + std::to_string(tiling.count()) +
                                              " chunks, more than " + std::to_string(kMaxChunks) +
                                              "; choose larger chunks (about 0.5 GB each)");
  chunks.reserve(tiling.count());
  tiling.for_each([&](const Rect& cell, uint64_t number) {
    Point lo = cell.lo(), hi = cell.hi();
    for (int a = 0; a < rank; ++a) {
      lo[a] = std::max<int64_t>(0, lo[a] - halo[a]);
      hi[a] = std::min(extent[a], hi[a] + halo[a]);
    }
    const DeviceId device =
        devices[place_cell(placement_, number, tiling.grid_count(), devices.size())];
    chunks.push_back({Rect(lo, hi), cell, device});
  });
  return chunks;
}

std::vector<Chunk> DataDistribution::replicated_chunks(const Point& extent, const DeviceSet& set,
                                                       const std::vector<DeviceId>& devices) const {
  const Rect whole = Rect::from_extent(extent);
  std::vector<Chunk> chunks;
  if (whole.empty()) return chunks;
  for (DeviceId id : devices) {
    if (scope_ == ReplicaScope::kPerWorker) {
      // One copy per worker: on the first device of that worker the subset lists.
      const WorkerId w = set.worker_of(id);
      const bool seen = std::any_of(chunks.begin(), chunks.end(),
                                    [&](const Chunk& c) { return set.worker_of(c.device) == w; });
      if (seen) continue;
    }
    chunks.push_back(chunks.empty() ? Chunk::primary(whole, id) : Chunk::replica(whole, id));
  }
  return chunks;
}

DataLayout DataDistribution::layout(const Point& extent, const DeviceSet& devices) const {
  std::vector<Chunk> chunks;
  switch (kind_) {
    case Kind::kGrid:
      chunks = grid_chunks(extent, devices_for(devices));
      break;
    case Kind::kReplicated:
      chunks = replicated_chunks(extent, devices, devices_for(devices));
      break;
    case Kind::kCentralized:
      devices.require(device_, to_string());
      if (!Rect::from_extent(extent).empty())
        chunks.push_back(Chunk::primary(Rect::from_extent(extent), device_));
      break;
    case Kind::kUserDefined:
      chunks = chunks_;
      break;
  }
  try {
    return DataLayout(extent, std::move(chunks), devices);
  } catch (Error& e) {
    throw e.with_context("while laying out " + to_string() + " over an array of extent " +
                         extent.to_string());
  }
}

namespace dist {

DataDistribution block(int64_t chunk_size) {
  return block(0, chunk_size);
}
DataDistribution block(int axis, int64_t chunk_size) {
  return make_grid_distribution("block", axis, {chunk_size}, {0}, Placement::kContiguous);
}
DataDistribution rows(int64_t chunk_rows) {
  return make_grid_distribution("rows", 0, {chunk_rows}, {0}, Placement::kContiguous);
}
DataDistribution columns(int64_t chunk_columns) {
  return make_grid_distribution("columns", 1, {chunk_columns}, {0}, Placement::kContiguous);
}
DataDistribution tiles(const Point& tile) {
  return make_grid_distribution("tiles", -1, tile, {0}, Placement::kContiguous);
}
DataDistribution block_cyclic(int axis, int64_t chunk_size) {
  return make_grid_distribution("block_cyclic", axis, {chunk_size}, {0}, Placement::kRoundRobin);
}
DataDistribution block_cyclic(int64_t chunk_size) {
  return block_cyclic(0, chunk_size);
}
DataDistribution stencil(int64_t chunk_size, int64_t halo) {
  return make_grid_distribution("stencil", 0, {chunk_size}, {halo}, Placement::kContiguous);
}
DataDistribution stencil(const Point& chunk, int64_t halo) {
  return make_grid_distribution("stencil", -1, chunk, {halo}, Placement::kContiguous);
}
DataDistribution stencil(const Point& chunk, const Point& halo) {
  return make_grid_distribution("stencil", -1, chunk, halo, Placement::kContiguous);
}
DataDistribution replicated(ReplicaScope scope) {
  return make_replicated_distribution(scope);
}
DataDistribution centralized(DeviceId device) {
  return make_centralized_distribution(device);
}
DataDistribution user_defined(std::vector<Chunk> chunks) {
  return make_user_defined_distribution(std::move(chunks));
}

}  // namespace dist

}  // namespace lightning
