#include "distribution/work_distribution.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/error.hpp"
#include "distribution/partition.hpp"
#include "distribution/tiling.hpp"

namespace lightning {

namespace {

std::string superblock_name(std::size_t i, const Superblock& s) {
  return "superblock " + std::to_string(i) + " " + s.threads.to_string();
}

// The launch itself must make sense before any distribution is applied to it.
void check_launch(const Rect& domain, const Point& block_size) {
  if (domain.rank() < 1 || domain.rank() > kMaxRank)
    throw Error(
        ErrorKind::kInvalidArgument,
        "launch domain " + domain.to_string() + " must have rank 1 to " + std::to_string(kMaxRank));
  if (block_size.rank() != domain.rank())
    throw Error(ErrorKind::kInvalidArgument, "block size " + block_size.to_string() +
                                                 " and launch domain " + domain.to_string() +
                                                 " differ in rank");
  for (int a = 0; a < domain.rank(); ++a) {
    if (block_size[a] <= 0)
      throw Error(ErrorKind::kInvalidArgument,
                  "block size " + block_size.to_string() + " must be positive on every axis");
    if (!domain.empty() && domain.lo()[a] < 0)
      throw Error(ErrorKind::kInvalidArgument,
                  "launch domain " + domain.to_string() + " starts below index 0");
  }
}

// `size` rounded up to a multiple of `block`; saturates (one cell then spans any domain).
int64_t round_up(int64_t size, int64_t block) {
  const int64_t blocks = size / block + (size % block != 0);
  int64_t out = 0;
  if (__builtin_mul_overflow(blocks, block, &out)) return std::numeric_limits<int64_t>::max();
  return out;
}

}  // namespace

WorkDistribution make_grid_work(const char* name, int axis, const Point& shape,
                                Placement placement) {
  const std::string call = std::string("work::") + name;
  if (axis >= kMaxRank)
    throw Error(ErrorKind::kInvalidArgument, "axis " + std::to_string(axis) + " is not 0 to " +
                                                 std::to_string(kMaxRank - 1) + " (" + call + ")");
  if (shape.rank() < 1)
    throw Error(ErrorKind::kInvalidArgument, "superblock extent needs 1 to 3 axes (" + call + ")");
  for (int a = 0; a < shape.rank(); ++a)
    if (shape[a] <= 0)
      throw Error(ErrorKind::kInvalidArgument,
                  "superblock size must be positive, got " + shape.to_string() + " (" + call + ")");
  WorkDistribution w;
  w.kind_ = WorkDistribution::Kind::kGrid;
  w.grid_name_ = name;
  w.axis_ = axis;
  w.shape_ = shape;
  w.placement_ = placement;
  return w;
}

WorkDistribution make_like_work(const DataLayout& layout) {
  auto primaries = std::make_shared<std::vector<Superblock>>();
  for (const Chunk& c : layout.chunks())
    if (c.is_primary()) primaries->push_back({c.owned, c.device});
  WorkDistribution w;
  w.kind_ = WorkDistribution::Kind::kLike;
  w.array_extent_ = layout.extent();
  w.list_ = std::move(primaries);
  return w;
}

WorkDistribution make_explicit_work(std::vector<Superblock> superblocks) {
  WorkDistribution w;
  w.kind_ = WorkDistribution::Kind::kExplicit;
  w.list_ = std::make_shared<const std::vector<Superblock>>(std::move(superblocks));
  return w;
}

WorkDistribution WorkDistribution::with_devices(std::vector<DeviceId> devices) const {
  if (kind_ != Kind::kGrid)
    throw Error(ErrorKind::kInvalidArgument,
                to_string() + " names its devices itself; a device subset does not apply");
  check_device_subset(devices, to_string());
  WorkDistribution w = *this;
  w.subset_ = std::move(devices);
  return w;
}

WorkDistribution WorkDistribution::with_placement(Placement placement) const {
  if (kind_ != Kind::kGrid)
    throw Error(ErrorKind::kInvalidArgument,
                "placement applies to grid distributions only, not to " + to_string());
  WorkDistribution w = *this;
  w.placement_ = placement;
  return w;
}

std::string WorkDistribution::to_string() const {
  if (kind_ == Kind::kLike) return "work::like(array of extent " + array_extent_.to_string() + ")";
  if (kind_ == Kind::kExplicit)
    return "work::explicit_list(" + std::to_string(list_->size()) + " superblocks)";
  std::string s = "work::" + std::string(grid_name()) + "(";
  if (axis_ >= 0) s += "axis " + std::to_string(axis_) + ", ";
  s += shape_.to_string() + ", ";
  s += name_of(placement_);
  return s + ")";
}

std::vector<Superblock> WorkDistribution::split(const Rect& domain, const Point& block_size,
                                                const DeviceSet& devices) const {
  check_launch(domain, block_size);
  try {
    std::vector<Superblock> out;
    if (!domain.empty())
      out = kind_ == Kind::kGrid   ? grid_split(domain, block_size, devices)
            : kind_ == Kind::kLike ? like_split(domain, block_size)
                                   : *list_;
    validate_superblocks(domain, block_size, devices, out);
    return out;
  } catch (Error& e) {
    throw e.with_context("while splitting the launch " + domain.to_string() + " by " + to_string());
  }
}

std::vector<Superblock> WorkDistribution::grid_split(const Rect& domain, const Point& block_size,
                                                     const DeviceSet& devices) const {
  const int rank = domain.rank();
  // Axes not cut get one cell reaching from 0 past the domain's end.
  Point shape = domain.hi();
  if (axis_ >= 0) {
    if (axis_ >= rank)
      throw Error(ErrorKind::kInvalidArgument, to_string() + " cuts axis " + std::to_string(axis_) +
                                                   ", but the launch has rank " +
                                                   std::to_string(rank));
    shape[axis_] = round_up(shape_[0], block_size[axis_]);
  } else {
    if (shape_.rank() != rank)
      throw Error(ErrorKind::kInvalidArgument,
                  to_string() + " has rank " + std::to_string(shape_.rank()) +
                      ", but the launch has rank " + std::to_string(rank));
    for (int a = 0; a < rank; ++a) shape[a] = round_up(shape_[a], block_size[a]);
  }
  std::vector<DeviceId> placed = subset_;
  if (placed.empty())
    for (const DeviceInfo& d : devices.devices()) placed.push_back(d.id);
  if (placed.empty()) throw Error(ErrorKind::kDistribution, "no devices to run on");

  const Tiling tiling(domain, shape);
  if (tiling.count() > kMaxSuperblocks)
    throw Error(ErrorKind::kDistribution,
                "superblocks of " + shape.to_string() + " cut the launch into " +
                    std::to_string(tiling.count()) + ", more than " +
                    std::to_string(kMaxSuperblocks) + "; choose larger superblocks");
  std::vector<Superblock> out;
  out.reserve(tiling.count());
  tiling.for_each([&](const Rect& cell, uint64_t number) {
    out.push_back(
        {cell, placed[place_cell(placement_, number, tiling.grid_count(), placed.size())]});
  });
  return out;
}

std::vector<Superblock> WorkDistribution::like_split(const Rect& domain,
                                                     const Point& block_size) const {
  const Rect array = Rect::from_extent(array_extent_);
  if (domain.rank() != array.rank() || !array.contains(domain))
    throw Error(ErrorKind::kDistribution, "the launch domain " + domain.to_string() +
                                              " is not inside the array " + array.to_string() +
                                              " whose chunks it follows");
  // Moving every inner edge down to a multiple of the block size keeps the boxes a partition:
  // a block-aligned cell lands in the box that held its last point before the move.
  auto snap = [&](int a, int64_t c) {
    if (c >= domain.hi()[a]) return domain.hi()[a];
    return std::max(domain.lo()[a], c - c % block_size[a]);
  };
  std::vector<Superblock> out;
  for (const Superblock& p : *list_) {
    const Rect clipped = p.threads.intersection(domain);
    if (clipped.empty()) continue;
    Point lo = clipped.lo(), hi = clipped.hi();
    for (int a = 0; a < domain.rank(); ++a) {
      lo[a] = snap(a, lo[a]);
      hi[a] = snap(a, hi[a]);
    }
    const Rect threads(lo, hi);
    if (!threads.empty()) out.push_back({threads, p.device});
  }
  return out;
}

void validate_superblocks(const Rect& domain, const Point& block_size, const DeviceSet& devices,
                          const std::vector<Superblock>& superblocks) {
  check_launch(domain, block_size);
  if (superblocks.size() > kMaxSuperblocks)
    throw Error(ErrorKind::kDistribution, std::to_string(superblocks.size()) +
                                              " superblocks, more than " +
                                              std::to_string(kMaxSuperblocks));
  std::vector<Rect> boxes;
  boxes.reserve(superblocks.size());
  for (std::size_t i = 0; i < superblocks.size(); ++i) {
    const Superblock& s = superblocks[i];
    if (s.threads.rank() != domain.rank())
      throw Error(ErrorKind::kDistribution,
                  superblock_name(i, s) + " has rank " + std::to_string(s.threads.rank()) +
                      ", the launch rank " + std::to_string(domain.rank()));
    if (s.threads.empty())
      throw Error(ErrorKind::kDistribution, "superblock " + std::to_string(i) + " is empty");
    devices.require(s.device, superblock_name(i, s));
    for (int a = 0; a < domain.rank(); ++a) {
      for (int64_t edge : {s.threads.lo()[a], s.threads.hi()[a]}) {
        if (edge == domain.lo()[a] || edge == domain.hi()[a] || edge % block_size[a] == 0) continue;
        throw Error(ErrorKind::kDistribution,
                    superblock_name(i, s) + " has an edge at " + std::to_string(edge) +
                        " on axis " + std::to_string(a) +
                        ", neither a multiple of the block size " + block_size.to_string() +
                        " nor an end of the launch domain " + domain.to_string());
      }
    }
    boxes.push_back(s.threads);
  }
  const PartitionFault fault = find_partition_fault(domain, boxes);
  switch (fault.kind) {
    case PartitionFault::Kind::kNone:
      return;
    case PartitionFault::Kind::kOutside:
      throw Error(ErrorKind::kDistribution, superblock_name(fault.first, superblocks[fault.first]) +
                                                " reaches outside the launch domain " +
                                                domain.to_string());
    case PartitionFault::Kind::kOverlap:
      throw Error(ErrorKind::kDistribution,
                  superblock_name(fault.first, superblocks[fault.first]) + " and " +
                      superblock_name(fault.second, superblocks[fault.second]) + " overlap in " +
                      fault.overlap.to_string() + "; every thread must run exactly once");
    case PartitionFault::Kind::kGap:
      throw Error(ErrorKind::kDistribution,
                  (fault.gap ? "thread " + fault.gap->to_string() + " of the launch domain "
                             : std::string("part of the launch domain ")) +
                      domain.to_string() + " is in no superblock (superblocks cover " +
                      std::to_string(fault.covered) + " of " + std::to_string(domain.volume()) +
                      " threads)");
  }
}

namespace work {

WorkDistribution block(int64_t size) {
  return block(0, size);
}
WorkDistribution block(int axis, int64_t size) {
  if (axis < 0)
    throw Error(ErrorKind::kInvalidArgument,
                "axis " + std::to_string(axis) + " is not 0 to " + std::to_string(kMaxRank - 1));
  return make_grid_work("block", axis, {size}, Placement::kContiguous);
}
WorkDistribution tiles(const Point& tile) {
  return make_grid_work("tiles", -1, tile, Placement::kContiguous);
}
WorkDistribution cyclic(int64_t size) {
  return cyclic(0, size);
}
WorkDistribution cyclic(int axis, int64_t size) {
  if (axis < 0)
    throw Error(ErrorKind::kInvalidArgument,
                "axis " + std::to_string(axis) + " is not 0 to " + std::to_string(kMaxRank - 1));
  return make_grid_work("cyclic", axis, {size}, Placement::kRoundRobin);
}
WorkDistribution like(const DataLayout& layout) {
  return make_like_work(layout);
}
WorkDistribution explicit_list(std::vector<Superblock> superblocks) {
  return make_explicit_work(std::move(superblocks));
}

}  // namespace work

}  // namespace lightning
