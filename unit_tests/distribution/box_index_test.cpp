#include "distribution/box_index.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "distribution/partition.hpp"
#include "random_cases.hpp"

namespace lightning {
namespace {

using testing::CaseRng;

std::vector<std::size_t> sorted_intersecting(const BoxIndex& index, const Rect& q) {
  std::vector<std::size_t> out;
  index.for_each_intersecting(q, [&](std::size_t i) { out.push_back(i); });
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::size_t> sorted_containing(const BoxIndex& index, const Point& p) {
  std::vector<std::size_t> out;
  index.for_each_containing(p, [&](std::size_t i) { out.push_back(i); });
  std::sort(out.begin(), out.end());
  return out;
}

// Random boxes of mixed kinds: small, grid-like, whole-space spanning, empty.
std::vector<Rect> random_boxes(CaseRng& rng, int rank) {
  std::vector<Rect> boxes;
  const int n = static_cast<int>(rng.uniform(0, 120));
  const int64_t cell = rng.uniform(1, 6);
  for (int i = 0; i < n; ++i) {
    const int kind = static_cast<int>(rng.uniform(0, 9));
    if (kind == 0) {
      boxes.push_back(rng.box(rank, -5, 45));  // anything, maybe empty
    } else if (kind == 1) {
      boxes.push_back({Point::filled(rank, -10), Point::filled(rank, 60)});  // spans all
    } else {
      Point lo = rng.point(rank, 0, 40 / cell);
      Point hi = lo;
      for (int a = 0; a < rank; ++a) {
        lo[a] *= cell;
        hi[a] = lo[a] + cell + rng.uniform(0, 2);
        lo[a] -= rng.uniform(0, 2);  // halo-like overhang
      }
      boxes.push_back({lo, hi});
    }
  }
  return boxes;
}

TEST(BoxIndex, QueriesEqualBruteForce) {
  const uint64_t seed0 = testing::property_seed();
  const int cases = testing::property_cases(500);
  for (int c = 0; c < cases; ++c) {
    const uint64_t seed = seed0 + static_cast<uint64_t>(c);
    SCOPED_TRACE(testing::case_name(c, seed));
    CaseRng rng(seed);
    const int rank = static_cast<int>(rng.uniform(0, 3));
    const std::vector<Rect> boxes = random_boxes(rng, rank);
    const BoxIndex index(boxes);
    ASSERT_EQ(index.size(), boxes.size());
    for (int q = 0; q < 40; ++q) {
      const Rect query = rng.box(rank, -8, 50);
      std::vector<std::size_t> expect;
      for (std::size_t i = 0; i < boxes.size(); ++i)
        if (boxes[i].intersects(query)) expect.push_back(i);
      ASSERT_EQ(sorted_intersecting(index, query), expect) << "query " << query.to_string();

      const Point p = rng.point(rank, -8, 50);
      expect.clear();
      for (std::size_t i = 0; i < boxes.size(); ++i)
        if (boxes[i].contains(p)) expect.push_back(i);
      ASSERT_EQ(sorted_containing(index, p), expect) << "point " << p.to_string();
    }
  }
}

TEST(BoxIndex, EmptyIndexAndEmptyQueryReportNothing) {
  const BoxIndex none;
  EXPECT_TRUE(sorted_intersecting(none, Rect({0}, {5})).empty());
  EXPECT_TRUE(sorted_containing(none, Point{1}).empty());
  const BoxIndex some({Rect({0}, {5}), Rect({3}, {3})});
  EXPECT_TRUE(sorted_intersecting(some, Rect({2}, {2})).empty());
  EXPECT_EQ(sorted_intersecting(some, Rect({0}, {10})), std::vector<std::size_t>{0});
}

TEST(BoxIndex, RejectsMixedRanks) {
  EXPECT_THROW(BoxIndex({Rect({0}, {5}), Rect({0, 0}, {1, 1})}), Error);
}

// A brute-force partition check over every point, to compare the fault kind against.
PartitionFault::Kind brute_fault(const Rect& domain, const std::vector<Rect>& boxes) {
  for (const Rect& b : boxes)
    if (!b.empty() && !domain.contains(b)) return PartitionFault::Kind::kOutside;
  PartitionFault::Kind kind = PartitionFault::Kind::kNone;
  domain.for_each_point([&](const Point& p) {
    int n = 0;
    for (const Rect& b : boxes) n += b.contains(p);
    if (n > 1) kind = PartitionFault::Kind::kOverlap;
    if (n == 0 && kind == PartitionFault::Kind::kNone) kind = PartitionFault::Kind::kGap;
  });
  return kind;
}

TEST(Partition, FaultKindAndGapPointEqualBruteForce) {
  const uint64_t seed0 = testing::property_seed();
  const int cases = testing::property_cases(1000);
  for (int c = 0; c < cases; ++c) {
    const uint64_t seed = seed0 + static_cast<uint64_t>(c);
    SCOPED_TRACE(testing::case_name(c, seed));
    CaseRng rng(seed);
    const int rank = static_cast<int>(rng.uniform(1, 3));
    const Rect domain(rng.point(rank, 0, 4), rng.point(rank, 5, 12));
    std::vector<Rect> boxes;
    random_partition(rng, domain, boxes, 0.3);  // then damaged at random
    const int damage = static_cast<int>(rng.uniform(0, 3));
    if (damage == 1 && !boxes.empty())
      boxes.erase(boxes.begin() + rng.uniform(0, static_cast<int64_t>(boxes.size()) - 1));
    if (damage == 2) boxes.push_back(rng.box(rank, 0, 12));
    if (damage == 3 && !boxes.empty()) {
      Rect& b =
          boxes[static_cast<std::size_t>(rng.uniform(0, static_cast<int64_t>(boxes.size()) - 1))];
      b = Rect(b.lo(), b.hi() - Point::filled(rank, 1));  // shrink: gap, maybe empty
    }
    const PartitionFault fault = find_partition_fault(domain, boxes);
    ASSERT_EQ(fault.kind, brute_fault(domain, boxes));
    if (fault.kind == PartitionFault::Kind::kOverlap) {
      EXPECT_LT(fault.first, fault.second);
      EXPECT_EQ(fault.overlap, boxes[fault.first].intersection(boxes[fault.second]));
      EXPECT_FALSE(fault.overlap.empty());
    }
    if (fault.kind == PartitionFault::Kind::kGap) {
      // The reported gap is the lexicographically smallest uncovered point.
      ASSERT_TRUE(fault.gap.has_value());
      std::optional<Point> first;
      domain.for_each_point([&](const Point& p) {
        if (first) return;
        bool covered = false;
        for (const Rect& b : boxes) covered = covered || b.contains(p);
        if (!covered) first = p;
      });
      EXPECT_EQ(*fault.gap, *first);
    }
  }
}

}  // namespace
}  // namespace lightning
