// Work distributions: worked examples, errors, and property tests over random launches.
#include "distribution/work_distribution.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "distribution/data_distribution.hpp"
#include "random_cases.hpp"

namespace lightning {
namespace {

using testing::CaseRng;

const DeviceSet kTwoByTwo = DeviceSet::uniform(2, 2);

Superblock sb(Rect threads, uint64_t device) {
  return {threads, DeviceId(device)};
}

template <class F>
void expect_error(F&& f, ErrorKind kind, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(e.message(), message) << e.what();
  }
}

TEST(WorkDistribution, BlockStartsAtTheDomainAndAlignsInnerEdgesToIndexZero) {
  // RangePolicy(1, n-1) with n = 10: the first superblock starts at 1, the others at multiples
  // of 4, the last ends at 9.
  const auto s = work::block(4).split(Rect({1}, {9}), {2}, DeviceSet::uniform(1, 2));
  const std::vector<Superblock> expect = {sb(Rect({1}, {4}), 0), sb(Rect({4}, {8}), 0),
                                          sb(Rect({8}, {9}), 1)};
  EXPECT_EQ(s, expect);
  // Same cells and devices as the chunks of dist::stencil(4, 1) on an array of 10.
  const DataLayout l = dist::stencil(4, 1).layout({10}, DeviceSet::uniform(1, 2));
  for (const Superblock& b : s) EXPECT_EQ(l[*l.home_of(b.threads.lo())].device, b.device);
}

TEST(WorkDistribution, SuperblockSizeIsRoundedUpToTheBlockSize) {
  const auto s = work::block(5).split(Rect({0}, {20}), {4}, DeviceSet::uniform(1, 1));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].threads, Rect({0}, {8}));
  EXPECT_EQ(s[2].threads, Rect({16}, {20}));
}

TEST(WorkDistribution, CyclicAndTiles) {
  const auto c = work::cyclic(2).split(Rect({0}, {10}), {1}, kTwoByTwo);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[4], sb(Rect({8}, {10}), 0));
  EXPECT_EQ(c[3].device, DeviceId(3));
  const auto t = work::tiles({2, 3}).split(Rect({0, 0}, {4, 6}), {1, 1}, kTwoByTwo);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[1], sb(Rect({0, 3}, {2, 6}), 1));
  const auto r = work::block(1, 4).split(Rect({0, 0}, {3, 8}), {1, 2}, kTwoByTwo);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].threads, Rect({0, 4}, {3, 8}));
  EXPECT_TRUE(work::block(4).split(Rect({3}, {3}), {1}, kTwoByTwo).empty());
}

TEST(WorkDistribution, LikeFollowsTheArraysPrimaryChunks) {
  const DataLayout l = dist::stencil(4, 1).layout({12}, kTwoByTwo);
  const auto s = work::like(l).split(Rect({1}, {11}), {2}, kTwoByTwo);
  const std::vector<Superblock> expect = {sb(Rect({1}, {4}), l[0].device.value()),
                                          sb(Rect({4}, {8}), l[1].device.value()),
                                          sb(Rect({8}, {11}), l[2].device.value())};
  EXPECT_EQ(s, expect);
  // Chunk edges at 3 and 6 are moved down to the blocks of 2: 2 and 6.
  const DataLayout u = dist::user_defined({Chunk::primary(Rect({0}, {3}), DeviceId(1)),
                                           Chunk::primary(Rect({3}, {6}), DeviceId(2)),
                                           Chunk::primary(Rect({6}, {7}), DeviceId(3))})
                           .layout({7}, kTwoByTwo);
  const auto m = work::like(u).split(Rect({0}, {7}), {2}, kTwoByTwo);
  const std::vector<Superblock> moved = {sb(Rect({0}, {2}), 1), sb(Rect({2}, {6}), 2),
                                         sb(Rect({6}, {7}), 3)};
  EXPECT_EQ(m, moved);
}

// Error messages quote these texts; the distributions hold no text and build it when asked.
TEST(WorkDistribution, DescribesItself) {
  const DataLayout l = dist::stencil(4, 1).layout({12}, kTwoByTwo);
  EXPECT_EQ(work::block(64000).to_string(), "work::block(axis 0, (64000), contiguous)");
  EXPECT_EQ(work::block(1, 8).to_string(), "work::block(axis 1, (8), contiguous)");
  EXPECT_EQ(work::cyclic(16).to_string(), "work::cyclic(axis 0, (16), round-robin)");
  EXPECT_EQ(work::tiles({4, 8}).to_string(), "work::tiles((4, 8), contiguous)");
  EXPECT_EQ(work::block(4).with_placement(Placement::kRoundRobin).to_string(),
            "work::block(axis 0, (4), round-robin)");
  EXPECT_EQ(work::like(l).to_string(), "work::like(array of extent (12))");
  EXPECT_EQ(work::explicit_list({sb(Rect({0}, {4}), 0), sb(Rect({4}, {8}), 1)}).to_string(),
            "work::explicit_list(2 superblocks)");
}

// The plan cache keys on equality: distributions that may split a domain differently differ.
TEST(WorkDistribution, EqualOnlyWhenEveryPartIsEqual) {
  const DataLayout l = dist::stencil(4, 1).layout({12}, kTwoByTwo);
  const DataLayout m = dist::block(4).layout({12}, kTwoByTwo);
  const DataLayout n = dist::block(3).layout({12}, kTwoByTwo);
  const std::vector<WorkDistribution> different = {
      work::block(4),
      work::block(8),
      work::block(1, 4),
      work::cyclic(4),
      work::block(4).with_placement(Placement::kRoundRobin),
      work::tiles({4}),
      work::block(4).with_devices({DeviceId(1), DeviceId(0)}),
      work::like(n),
      work::like(dist::block(4).layout({16}, kTwoByTwo)),
      work::explicit_list({sb(Rect({0}, {4}), 0)}),
      work::explicit_list({sb(Rect({0}, {4}), 1)}),
  };
  for (size_t i = 0; i < different.size(); ++i)
    for (size_t j = 0; j < different.size(); ++j)
      EXPECT_EQ(different[i] == different[j], i == j)
          << different[i].to_string() << " vs " << different[j].to_string();
  // Equal parts held apart compare equal: two like() of equal layouts, a copy, two lists.
  EXPECT_EQ(work::like(l), work::like(m));  // the same primary chunks
  const WorkDistribution copy = different[0];
  EXPECT_EQ(copy, work::block(4));
  EXPECT_EQ(work::explicit_list({sb(Rect({0}, {4}), 0)}), different[9]);
}

TEST(WorkDistribution, ErrorsNameTheCulprit) {
  const auto k = ErrorKind::kDistribution;
  const Rect d({0}, {16});
  auto split = [&](std::vector<Superblock> list) {
    return work::explicit_list(std::move(list)).split(d, {4}, kTwoByTwo);
  };
  expect_error(
      [&] {
        split({sb(Rect({0}, {8}), 0), sb(Rect({4}, {16}), 1)});
      },
      k,
      "superblock 0 [0, 8) and superblock 1 [4, 16) overlap in [4, 8); every thread "
      "must run exactly once");
  expect_error(
      [&] {
        split({sb(Rect({0}, {8}), 0), sb(Rect({12}, {16}), 1)});
      },
      k,
      "thread (8) of the launch domain [0, 16) is in no superblock (superblocks cover "
      "12 of 16 threads)");
  expect_error(
      [&] {
        split({sb(Rect({0}, {6}), 0), sb(Rect({6}, {16}), 1)});
      },
      k,
      "superblock 0 [0, 6) has an edge at 6 on axis 0, neither a multiple of the block "
      "size (4) nor an end of the launch domain [0, 16)");
  expect_error([&] { split({sb(Rect({0}, {16}), 4)}); }, k,
               "superblock 0 [0, 16) is on device D4, but the cluster has devices D0..D3");
  expect_error([&] { split({sb(Rect({0}, {20}), 0)}); }, k,
               "superblock 0 [0, 20) reaches outside the launch domain [0, 16)");
  expect_error(
      [&] {
        split({sb(Rect({0}, {16}), 0), sb(Rect({4}, {4}), 0)});
      },
      k, "superblock 1 is empty");
  const DataLayout l = dist::block(4).layout({8}, kTwoByTwo);
  expect_error([&] { work::like(l).split(Rect({0}, {10}), {1}, kTwoByTwo); }, k,
               "the launch domain [0, 10) is not inside the array [0, 8) whose chunks it follows");
  const auto a = ErrorKind::kInvalidArgument;
  expect_error([] { work::block(0); }, a,
               "superblock size must be positive, got (0) (work::block)");
  expect_error([] { work::block(-1, 4); }, a, "axis -1 is not 0 to 2");
  expect_error([&] { work::block(4).split(d, {0}, kTwoByTwo); }, a,
               "block size (0) must be positive on every axis");
  expect_error(
      [&] {
        work::block(4).split(d, {1, 1}, kTwoByTwo);
      },
      a, "block size (1, 1) and launch domain [0, 16) differ in rank");
  expect_error(
      [&] {
        work::tiles({4, 4}).split(d, {1}, kTwoByTwo);
      },
      a, "work::tiles((4, 4), contiguous) has rank 2, but the launch has rank 1");
  expect_error([&] { work::like(l).with_devices({DeviceId(0)}); }, a,
               "work::like(array of extent (8)) names its devices itself; a device subset does "
               "not apply");
  expect_error([&] { work::block(1).split(Rect({0}, {int64_t{1} << 40}), {1}, kTwoByTwo); }, k,
               "superblocks of (1) cut the launch into 1099511627776, more than 2097152; choose "
               "larger superblocks");
}

// Every thread of the domain in exactly one superblock, edges aligned, devices as documented.
void check_split(const std::vector<Superblock>& s, const Rect& domain, const Point& bs,
                 const DeviceSet& cluster) {
  for (const Superblock& b : s) {
    ASSERT_FALSE(b.threads.empty());
    ASSERT_TRUE(domain.contains(b.threads)) << b.to_string();
    ASSERT_TRUE(cluster.contains(b.device)) << b.to_string();
    for (int a = 0; a < domain.rank(); ++a)
      for (int64_t e : {b.threads.lo()[a], b.threads.hi()[a]})
        ASSERT_TRUE(e % bs[a] == 0 || e == domain.lo()[a] || e == domain.hi()[a])
            << b.to_string() << " edge " << e << " axis " << a;
  }
  domain.for_each_point([&](const Point& p) {
    int n = 0;
    for (const Superblock& b : s) n += b.threads.contains(p);
    ASSERT_EQ(n, 1) << "thread " << p.to_string();
  });
}

TEST(WorkDistributionProperty, RandomSplitsPartitionTheLaunch) {
  const uint64_t seed0 = testing::property_seed();
  const int cases = testing::property_cases(2000);
  for (int n = 0; n < cases; ++n) {
    const uint64_t seed = seed0 + static_cast<uint64_t>(n);
    SCOPED_TRACE(testing::case_name(n, seed));
    CaseRng rng(seed);
    std::vector<int> counts(static_cast<std::size_t>(rng.uniform(1, 3)));
    for (int& c : counts) c = static_cast<int>(rng.uniform(1, 3));
    const DeviceSet cluster = DeviceSet::from_counts(counts);
    const int rank = static_cast<int>(rng.uniform(1, 3));
    const Point extent = rng.point(rank, 1, 14);  // the array for work::like
    Point lo = Point::filled(rank, 0), hi = extent;
    for (int a = 0; a < rank; ++a) {
      lo[a] = rng.uniform(0, extent[a] - 1);
      hi[a] = rng.uniform(lo[a], extent[a]);  // may be empty
    }
    const Rect domain(lo, hi);
    const Point bs = rng.point(rank, 1, 4);
    const int kind = static_cast<int>(rng.uniform(0, 4));
    WorkDistribution w = work::block(1);
    Point shape = domain.hi();  // expected superblock extent
    std::vector<DeviceId> placed;
    for (const DeviceInfo& d : cluster.devices()) placed.push_back(d.id);
    DataLayout layout;
    if (kind <= 2) {
      const int axis = static_cast<int>(rng.uniform(0, rank - 1));
      const int64_t size = rng.uniform(1, 9);
      auto up = [](int64_t s, int64_t b) { return (s + b - 1) / b * b; };
      if (kind == 0) {
        w = work::block(axis, size);
        shape[axis] = up(size, bs[axis]);
      } else if (kind == 1) {
        w = work::cyclic(axis, size);
        shape[axis] = up(size, bs[axis]);
      } else {
        const Point t = rng.point(rank, 1, 9);
        w = work::tiles(t);
        for (int a = 0; a < rank; ++a) shape[a] = up(t[a], bs[a]);
      }
      if (rng.chance(0.3)) {
        std::shuffle(placed.begin(), placed.end(), rng.engine());
        placed.resize(
            static_cast<std::size_t>(rng.uniform(1, static_cast<int64_t>(placed.size()))));
        w = w.with_devices(placed);
      }
    } else if (kind == 3) {
      const Point t = rng.point(rank, 1, 6);
      layout = (rng.chance(0.5) ? dist::stencil(t, 1) : dist::tiles(t)).layout(extent, cluster);
      w = work::like(layout);
    } else {
      // An explicit list: a valid split of another distribution, as given.
      const auto list = work::tiles(rng.point(rank, 1, 9)).split(domain, bs, cluster);
      w = work::explicit_list(list);
    }
    SCOPED_TRACE(w.to_string() + " over " + domain.to_string() + " blocks " + bs.to_string());
    const std::vector<Superblock> s = w.split(domain, bs, cluster);
    ASSERT_NO_FATAL_FAILURE(check_split(s, domain, bs, cluster));
    if (kind <= 2) {
      for (std::size_t i = 0; i < s.size(); ++i) {
        const Rect& t = s[i].threads;
        for (int a = 0; a < rank; ++a) {
          // A grid cell anchored at 0, clipped to the domain.
          const int64_t cell_lo =
              t.lo()[a] == domain.lo()[a] ? domain.lo()[a] / shape[a] * shape[a] : t.lo()[a];
          ASSERT_EQ(cell_lo % shape[a], 0) << s[i].to_string();
          ASSERT_EQ(t.hi()[a], std::min(cell_lo + shape[a], domain.hi()[a])) << s[i].to_string();
        }
        ASSERT_NE(std::find(placed.begin(), placed.end(), s[i].device), placed.end());
      }
      if (kind == 1 && rank == 1) {  // round-robin by global cell number
        for (const Superblock& b : s)
          ASSERT_EQ(b.device,
                    placed[static_cast<std::size_t>(b.threads.lo()[0] / shape[0]) % placed.size()]);
      }
    }
    if (kind == 3) {
      // Each superblock runs where the home of its last thread lives (edges only move down).
      for (const Superblock& b : s)
        ASSERT_EQ(layout[*layout.home_of(b.threads.hi() - Point::filled(rank, 1))].device, b.device)
            << b.to_string();
    }
  }
}

// Data and work cut by the same size run side by side when the launch spans the array.
TEST(WorkDistributionProperty, BlockWorkLinesUpWithBlockData) {
  const uint64_t seed0 = testing::property_seed();
  const int cases = testing::property_cases(500);
  for (int n = 0; n < cases; ++n) {
    const uint64_t seed = seed0 + static_cast<uint64_t>(n);
    SCOPED_TRACE(testing::case_name(n, seed));
    CaseRng rng(seed);
    const DeviceSet cluster = DeviceSet::uniform(static_cast<int>(rng.uniform(1, 3)),
                                                 static_cast<int>(rng.uniform(1, 4)));
    const int64_t bs = rng.uniform(1, 4);
    const int64_t size = bs * rng.uniform(1, 5);
    const int64_t extent = rng.uniform(1, 200);
    const bool cyclic = rng.chance(0.5);
    const DataLayout l =
        (cyclic ? dist::block_cyclic(size) : dist::stencil(size, 1)).layout({extent}, cluster);
    const auto s =
        (cyclic ? work::cyclic(size) : work::block(size)).split(Rect({0}, {extent}), {bs}, cluster);
    ASSERT_EQ(s.size(), l.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      EXPECT_EQ(s[i].threads, l[i].owned);
      EXPECT_EQ(s[i].device, l[i].device);
    }
  }
}

}  // namespace
}  // namespace lightning
