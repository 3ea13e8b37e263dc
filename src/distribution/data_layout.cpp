#include "distribution/data_layout.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "distribution/partition.hpp"

namespace lightning {

namespace {

std::string chunk_name(std::size_t i, const Chunk& c) {
  return "chunk " + std::to_string(i) + " " + c.box.to_string();
}

std::vector<Rect> boxes_of(const std::vector<Chunk>& chunks, bool owned) {
  std::vector<Rect> out;
  out.reserve(chunks.size());
  for (const Chunk& c : chunks) out.push_back(owned ? c.owned : c.box);
  return out;
}

}  // namespace

DataLayout::DataLayout(const Point& extent, std::vector<Chunk> chunks, DeviceSet devices)
    : extent_(extent), devices_(std::move(devices)), chunks_(std::move(chunks)) {
  // Rank 0 is excluded because a rank-0 box always holds its one point, so a rank-0 replica
  // could not own nothing; a scalar is an array of extent (1).
  if (extent.rank() < 1)
    throw Error(ErrorKind::kInvalidArgument, "arrays have rank 1 to " + std::to_string(kMaxRank) +
                                                 "; store a scalar as an array of extent (1)");
  int64_t volume = 1;
  for (int a = 0; a < extent.rank(); ++a)
    if (extent[a] < 0 || __builtin_mul_overflow(volume, extent[a], &volume))
      throw Error(ErrorKind::kInvalidArgument,
                  "array extent " + extent.to_string() +
                      (extent[a] < 0 ? " is negative" : " has more than 2^63 elements"));
  if (chunks_.size() > kMaxChunks)
    throw Error(ErrorKind::kDistribution, "the layout has " + std::to_string(chunks_.size()) +
                                              " chunks, more than " + std::to_string(kMaxChunks) +
                                              "; choose larger chunks (about 0.5 GB each)");
  const Rect whole = domain();
  for (std::size_t i = 0; i < chunks_.size(); ++i) {
    const Chunk& c = chunks_[i];
    if (c.box.rank() != rank() || c.owned.rank() != rank())
      throw Error(ErrorKind::kDistribution, chunk_name(i, c) + " has rank " +
                                                std::to_string(c.box.rank()) + ", the array " +
                                                std::to_string(rank()));
    if (c.box.empty())
      throw Error(ErrorKind::kDistribution, "chunk " + std::to_string(i) + " is empty");
    if (!whole.contains(c.box))
      throw Error(ErrorKind::kDistribution,
                  chunk_name(i, c) + " reaches outside the array " + whole.to_string());
    if (!c.box.contains(c.owned))
      throw Error(ErrorKind::kDistribution,
                  chunk_name(i, c) + " owns " + c.owned.to_string() + ", which it does not store");
    devices_.require(c.device, chunk_name(i, c));
  }
  const PartitionFault fault = find_partition_fault(whole, boxes_of(chunks_, true));
  switch (fault.kind) {
    case PartitionFault::Kind::kNone:
      break;
    case PartitionFault::Kind::kOutside:
      break;  // owned is inside box, box inside the array
    case PartitionFault::Kind::kOverlap:
      throw Error(
          ErrorKind::kDistribution,
          "chunks " + std::to_string(fault.first) + " and " + std::to_string(fault.second) +
              " both own " + fault.overlap.to_string() +
              "; owned boxes must be disjoint (mark one a replica, or shrink its owned box)");
    case PartitionFault::Kind::kGap:
      throw Error(ErrorKind::kDistribution,
                  (fault.gap ? "element " + fault.gap->to_string() + " of the array "
                             : std::string("part of the array ")) +
                      whole.to_string() + " is owned by no chunk (chunks own " +
                      std::to_string(fault.covered) + " of " + std::to_string(whole.volume()) +
                      " elements)");
  }
  index_ = BoxIndex(boxes_of(chunks_, false));
}

std::optional<std::size_t> DataLayout::home_of(const Point& p) const {
  if (p.rank() != rank() || !domain().contains(p)) return std::nullopt;
  std::optional<std::size_t> home;
  index_.for_each_containing(p, [&](std::size_t i) {
    if (chunks_[i].owned.contains(p)) home = i;
  });
  return home;
}

void DataLayout::homes_of(const Rect& region, std::vector<std::size_t>& out) const {
  out.clear();
  index_.for_each_intersecting(region, [&](std::size_t i) {
    if (chunks_[i].owned.intersects(region)) out.push_back(i);
  });
  std::sort(out.begin(), out.end());
}

void DataLayout::copies_of(const Rect& region, std::vector<std::size_t>& out) const {
  out.clear();
  index_.for_each_intersecting(region, [&](std::size_t i) { out.push_back(i); });
  std::sort(out.begin(), out.end());
}

std::optional<std::size_t> DataLayout::find_containing(const Rect& region, DeviceId device) const {
  return best_containing(region, device,
                         devices_.contains(device) ? devices_.worker_of(device) : WorkerId());
}

std::optional<std::size_t> DataLayout::find_containing(const Rect& region, WorkerId worker) const {
  return best_containing(region, DeviceId(), worker);
}

std::optional<std::size_t> DataLayout::find_containing(const Rect& region) const {
  return best_containing(region, DeviceId(), WorkerId());
}

std::optional<std::size_t> DataLayout::best_containing(const Rect& region, DeviceId device,
                                                       WorkerId worker) const {
  if (region.empty() || region.rank() != rank()) return std::nullopt;
  std::optional<std::size_t> best;
  // Lower is better: (not on the device, not on the worker, not primary, number).
  auto key = [&](std::size_t i) {
    const Chunk& c = chunks_[i];
    const bool on_device = device.valid() && c.device == device;
    const bool on_worker = worker.valid() && devices_[c.device.value()].worker == worker;
    return std::make_tuple(!on_device, !on_worker, !c.is_primary(), i);
  };
  // Every box containing the region contains its low corner.
  index_.for_each_containing(region.lo(), [&](std::size_t i) {
    if (chunks_[i].box.contains(region) && (!best || key(i) < key(*best))) best = i;
  });
  return best;
}

}  // namespace lightning
