#include "distribution/partition.hpp"

#include <algorithm>

#include "distribution/box_index.hpp"

namespace lightning {

namespace {

// Gap search probes at most this many candidate points: the search only improves an error
// message, and must stay fast for a million-chunk layout with a hole.
constexpr uint64_t kMaxGapProbes = uint64_t{1} << 20;

// The lexicographically smallest point of `domain` in no box, if it is among the first
// kMaxGapProbes candidates. Every coordinate of that point is the domain's low edge or some
// box's high edge (one step lower on that axis is covered, by a box that ends there), so only
// those coordinates are tried.
std::optional<Point> find_gap(const Rect& domain, const std::vector<Rect>& boxes,
                              const BoxIndex& index) {
  const int rank = domain.rank();
  std::vector<int64_t> coords[kMaxRank];
  for (int a = 0; a < rank; ++a) {
    coords[a].push_back(domain.lo()[a]);
    for (const Rect& b : boxes)
      if (!b.empty() && b.hi()[a] > domain.lo()[a] && b.hi()[a] < domain.hi()[a])
        coords[a].push_back(b.hi()[a]);
    std::sort(coords[a].begin(), coords[a].end());
    coords[a].erase(std::unique(coords[a].begin(), coords[a].end()), coords[a].end());
  }
  std::size_t pos[kMaxRank] = {};
  Point p = domain.lo();
  for (uint64_t probes = 0; probes < kMaxGapProbes; ++probes) {
    for (int a = 0; a < rank; ++a) p[a] = coords[a][pos[a]];
    bool covered = false;
    index.for_each_containing(p, [&](std::size_t) { covered = true; });
    if (!covered) return p;
    int a = rank - 1;
    while (a >= 0 && pos[a] + 1 == coords[a].size()) {
      pos[a] = 0;
      --a;
    }
    if (a < 0) break;
    ++pos[a];
  }
  return std::nullopt;
}

}  // namespace

PartitionFault find_partition_fault(const Rect& domain, const std::vector<Rect>& boxes) {
  PartitionFault fault;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (!boxes[i].empty() && !domain.contains(boxes[i])) {
      fault.kind = PartitionFault::Kind::kOutside;
      fault.first = i;
      return fault;
    }
  }
  const BoxIndex index(boxes);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    // Any overlap with a lower index was reported when that index was checked.
    std::size_t partner = boxes.size();
    index.for_each_intersecting(boxes[i], [&](std::size_t j) {
      if (j > i) partner = std::min(partner, j);
    });
    if (partner != boxes.size()) {
      fault.kind = PartitionFault::Kind::kOverlap;
      fault.first = i;
      fault.second = partner;
      fault.overlap = boxes[i].intersection(boxes[partner]);
      return fault;
    }
  }
  // Disjoint and inside: they cover the domain exactly when their volumes add up to its.
  int64_t covered = 0;
  for (const Rect& b : boxes) covered += b.volume();
  if (covered == domain.volume()) return fault;
  fault.kind = PartitionFault::Kind::kGap;
  fault.covered = covered;
  fault.gap = find_gap(domain, boxes, index);
  return fault;
}

}  // namespace lightning
