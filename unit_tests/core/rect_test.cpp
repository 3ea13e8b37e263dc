#include "core/rect.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace lightning {
namespace {

TEST(Point, RankAndCoordinates) {
  Point p{3, -4, 5};
  EXPECT_EQ(p.rank(), 3);
  EXPECT_EQ(p[0], 3);
  EXPECT_EQ(p[1], -4);
  EXPECT_EQ(p[2], 5);
  EXPECT_EQ(p.product(), -60);
  EXPECT_EQ(Point{}.rank(), 0);
  EXPECT_EQ(Point{}.product(), 1);
  EXPECT_EQ(Point::filled(2, 7), (Point{7, 7}));
  EXPECT_EQ((Point{1, 2} + Point{10, 20}), (Point{11, 22}));
  EXPECT_EQ((Point{1, 2} - Point{10, 20}), (Point{-9, -18}));
  EXPECT_EQ((Point{1, 2, 3}).to_string(), "(1, 2, 3)");
}

TEST(Point, EqualityNeedsEqualRank) {
  EXPECT_NE((Point{0}), (Point{0, 0}));
  EXPECT_LT((Point{5}), (Point{0, 0}));
  EXPECT_LT((Point{1, 2}), (Point{1, 3}));
}

TEST(Rect, HalfOpenVolumeAndContainment) {
  Rect r({2, 3}, {5, 7});  // rows 2,3,4; columns 3..6
  EXPECT_EQ(r.rank(), 2);
  EXPECT_EQ(r.volume(), 12);
  EXPECT_EQ(r.extent(), (Point{3, 4}));
  EXPECT_TRUE(r.contains(Point{2, 3}));
  EXPECT_TRUE(r.contains(Point{4, 6}));
  EXPECT_FALSE(r.contains(Point{5, 6}));  // hi is outside
  EXPECT_FALSE(r.contains(Point{4, 7}));
  EXPECT_FALSE(r.contains(Point{1, 3}));
  EXPECT_TRUE(r.contains(Rect({3, 4}, {5, 7})));
  EXPECT_FALSE(r.contains(Rect({3, 4}, {6, 7})));
  EXPECT_EQ(r.to_string(), "[2, 5) x [3, 7)");
}

TEST(Rect, EmptyBoxesAreCanonical) {
  Rect a({5, 0}, {5, 10});
  Rect b({9, 9}, {3, 12});
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, Rect::empty_of_rank(2));
  EXPECT_EQ(a.volume(), 0);
  EXPECT_EQ(a.to_string(), "empty(2)");
  Rect big({0, 0}, {10, 10});
  EXPECT_TRUE(big.contains(a));  // the empty box is inside everything
  EXPECT_FALSE(a.contains(Point{5, 5}));
  EXPECT_EQ(a.bounding_union(big), big);
  EXPECT_EQ(big.bounding_union(a), big);
  int visits = 0;
  a.for_each_point([&](const Point&) { ++visits; });
  EXPECT_EQ(visits, 0);
}

TEST(Rect, RankZeroIsOnePoint) {
  Rect scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_FALSE(scalar.empty());
  EXPECT_EQ(scalar.volume(), 1);
  int visits = 0;
  scalar.for_each_point([&](const Point& p) {
    EXPECT_EQ(p.rank(), 0);
    ++visits;
  });
  EXPECT_EQ(visits, 1);
}

TEST(Rect, IntersectionAndUnion) {
  Rect a({0, 0, 0}, {4, 4, 4});
  Rect b({2, -1, 3}, {6, 2, 9});
  EXPECT_EQ(a.intersection(b), Rect({2, 0, 3}, {4, 2, 4}));
  EXPECT_TRUE(a.intersects(b));
  EXPECT_EQ(a.bounding_union(b), Rect({0, -1, 0}, {6, 4, 9}));
  Rect c({4, 0, 0}, {5, 4, 4});  // touches a's face: half-open, so no overlap
  EXPECT_FALSE(a.intersects(c));
  EXPECT_TRUE(a.intersection(c).empty());
  EXPECT_EQ(a.shifted(Point{1, 1, 1}), Rect({1, 1, 1}, {5, 5, 5}));
}

TEST(Rect, IterationIsRowMajorAndComplete) {
  Rect r({1, 10}, {3, 13});
  std::vector<Point> seen;
  r.for_each_point([&](const Point& p) { seen.push_back(p); });
  std::vector<Point> expected{{1, 10}, {1, 11}, {1, 12}, {2, 10}, {2, 11}, {2, 12}};
  EXPECT_EQ(seen, expected);
}

// Every operation against a brute-force answer over point sets.
TEST(Rect, RandomBoxesAgreeWithPointSets) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<int> coord(-4, 6);
  for (int trial = 0; trial < 2000; ++trial) {
    const int rank = 1 + trial % 3;
    auto random_rect = [&] {
      Point lo = Point::filled(rank, 0), hi = Point::filled(rank, 0);
      for (int a = 0; a < rank; ++a) {
        lo[a] = coord(rng);
        hi[a] = coord(rng);
      }
      return Rect(lo, hi);
    };
    const Rect a = random_rect(), b = random_rect();
    std::set<Point> pa, pb;
    a.for_each_point([&](const Point& p) { pa.insert(p); });
    b.for_each_point([&](const Point& p) { pb.insert(p); });
    ASSERT_EQ(static_cast<int64_t>(pa.size()), a.volume()) << a.to_string();
    for (const auto& p : pa) ASSERT_TRUE(a.contains(p));
    std::set<Point> both;
    for (const auto& p : pa)
      if (pb.count(p)) both.insert(p);
    const Rect i = a.intersection(b);
    std::set<Point> pi;
    i.for_each_point([&](const Point& p) { pi.insert(p); });
    ASSERT_EQ(pi, both) << a.to_string() << " & " << b.to_string();
    ASSERT_EQ(a.intersects(b), !both.empty());
    const bool subset = std::includes(pa.begin(), pa.end(), pb.begin(), pb.end());
    ASSERT_EQ(a.contains(b), subset) << a.to_string() << " ? " << b.to_string();
    const Rect u = a.bounding_union(b);
    for (const auto& p : pa) ASSERT_TRUE(u.contains(p));
    for (const auto& p : pb) ASSERT_TRUE(u.contains(p));
    // Tightness: shrinking any face of the union loses a point of a or b.
    if (!u.empty()) {
      for (int ax = 0; ax < rank; ++ax) {
        Point lo = u.lo();
        ++lo[ax];
        Rect smaller(lo, u.hi());
        bool lost = false;
        for (const auto& p : pa) lost |= !smaller.contains(p);
        for (const auto& p : pb) lost |= !smaller.contains(p);
        ASSERT_TRUE(lost);
      }
    }
  }
}

}  // namespace
}  // namespace lightning
