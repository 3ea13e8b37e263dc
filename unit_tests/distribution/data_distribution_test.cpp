// Worked examples of each data distribution and of the errors they report.
#include "distribution/data_distribution.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace lightning {
namespace {

const DeviceSet kTwoByTwo = DeviceSet::uniform(2, 2);  // D0 D1 on W0, D2 D3 on W1

Chunk chunk(Rect box, Rect owned, uint64_t device) {
  return {box, owned, DeviceId(device)};
}

// Runs `f`, expecting an Error of `kind` whose message is exactly `message`.
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

// A column-major array is stored with its axes reversed: the reversed distribution of the
// reversed extent must cut the same element sets (boxes and owned boxes, reversed back).
TEST(DataDistribution, AxesReversedCutsTheSameElements) {
  const std::vector<Point> extents = {Point{37, 23}, Point{9, 14, 11}};
  for (const Point& extent : extents) {
    const int rank = extent.rank();
    std::vector<DataDistribution> dists = {dist::rows(5),
                                           dist::columns(4),
                                           dist::block(rank - 1, 3),
                                           dist::block_cyclic(1, 6),
                                           dist::tiles(rank == 2 ? Point{8, 5} : Point{4, 5, 3}),
                                           dist::stencil(rank == 2 ? Point{10, 7} : Point{4, 4, 4},
                                                         rank == 2 ? Point{1, 2} : Point{0, 1, 2}),
                                           dist::replicated()};
    for (const DataDistribution& d : dists) {
      const auto original = d.layout(extent, kTwoByTwo).chunks();
      const auto reversed =
          d.with_axes_reversed(rank).layout(extent.reversed(), kTwoByTwo).chunks();
      ASSERT_EQ(original.size(), reversed.size()) << d.to_string();
      for (const Chunk& c : original) {
        bool found = false;
        for (const Chunk& r : reversed)
          found |= r.box.reversed() == c.box && r.owned.reversed() == c.owned;
        EXPECT_TRUE(found) << d.to_string() << ": " << c.to_string();
      }
    }
  }
  const auto user = dist::user_defined(
      {chunk(Rect(Point{0, 0}, Point{2, 3}), Rect(Point{0, 0}, Point{2, 3}), 0)});
  EXPECT_EQ(user.with_axes_reversed(2).layout(Point{3, 2}, kTwoByTwo).chunks().front().box,
            Rect(Point{0, 0}, Point{3, 2}));
  EXPECT_THROW(dist::block(2, 4).with_axes_reversed(2), Error);
}

TEST(DataDistribution, StencilOverlapsByTheHaloAndPlacesContiguousRuns) {
  const DataLayout l = dist::stencil(4, 1).layout({10}, DeviceSet::uniform(1, 2));
  const std::vector<Chunk> expect = {chunk(Rect({0}, {5}), Rect({0}, {4}), 0),
                                     chunk(Rect({3}, {9}), Rect({4}, {8}), 0),
                                     chunk(Rect({7}, {10}), Rect({8}, {10}), 1)};
  EXPECT_EQ(l.chunks(), expect);
  EXPECT_TRUE(l[1].is_primary());
}

TEST(DataDistribution, BlockCyclicDealsChunksRoundRobin) {
  const DataLayout l = dist::block_cyclic(3).layout({10}, kTwoByTwo);
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[3].owned, Rect({9}, {10}));  // the last chunk is smaller
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(l[i].device, DeviceId(i));
  const DataLayout b = dist::block(3).layout({10}, DeviceSet::uniform(1, 2));
  EXPECT_EQ(b[0].device, DeviceId(0));
  EXPECT_EQ(b[1].device, DeviceId(0));
  EXPECT_EQ(b[2].device, DeviceId(1));
  EXPECT_EQ(b[3].device, DeviceId(1));
}

TEST(DataDistribution, RowsAndColumnsCutOneAxis) {
  const DataLayout r = dist::rows(2).layout({4, 6}, kTwoByTwo);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].box, Rect({2, 0}, {4, 6}));
  EXPECT_EQ(r[1].device, DeviceId(2));  // 2 chunks spread over 4 devices
  const DataLayout c = dist::columns(4).layout({4, 6}, kTwoByTwo);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].box, Rect({0, 0}, {4, 4}));
  EXPECT_EQ(c[1].box, Rect({0, 4}, {4, 6}));
  EXPECT_EQ(dist::block(2, 5).layout({2, 2, 12}, kTwoByTwo).size(), 3u);
}

TEST(DataDistribution, TilesAreRowMajorAndCanBeDealtRoundRobin) {
  const DataLayout l =
      dist::tiles({2, 3}).with_placement(Placement::kRoundRobin).layout({4, 6}, kTwoByTwo);
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[1].owned, Rect({0, 3}, {2, 6}));
  EXPECT_EQ(l[2].owned, Rect({2, 0}, {4, 3}));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(l[i].device, DeviceId(i));
}

TEST(DataDistribution, Stencil3DHasPerAxisHalos) {
  const DataLayout l = dist::stencil({2, 2, 2}, {1, 0, 2}).layout({4, 4, 4}, kTwoByTwo);
  ASSERT_EQ(l.size(), 8u);
  EXPECT_EQ(l[0].box, Rect({0, 0, 0}, {3, 2, 4}));
  EXPECT_EQ(l[7].box, Rect({1, 2, 0}, {4, 4, 4}));
  EXPECT_EQ(l[7].owned, Rect({2, 2, 2}, {4, 4, 4}));
}

TEST(DataDistribution, ReplicatedPerWorkerLivesOnEachWorkersFirstDevice) {
  const DataLayout d = dist::replicated().layout({8}, kTwoByTwo);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_TRUE(d[0].is_primary());
  EXPECT_TRUE(d[3].is_replica());
  const DataLayout w = dist::replicated(ReplicaScope::kPerWorker)
                           .with_devices({DeviceId(3), DeviceId(1), DeviceId(2)})
                           .layout({8}, kTwoByTwo);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].device, DeviceId(3));  // W1's first listed device, the primary
  EXPECT_EQ(w[1].device, DeviceId(1));
  EXPECT_TRUE(w[1].is_replica());
  std::vector<std::size_t> copies;
  w.copies_of(Rect({2}, {3}), copies);
  EXPECT_EQ(copies, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(w.find_containing(Rect({2}, {3}), WorkerId(0)), 1u);
  EXPECT_EQ(w.find_containing(Rect({2}, {3}), DeviceId(0)), 1u);  // same worker as D1
  EXPECT_EQ(w.find_containing(Rect({2}, {3})), 0u);               // the primary
}

TEST(DataDistribution, CentralizedAndScalars) {
  const DataLayout c = dist::centralized(DeviceId(2)).layout({5, 5}, kTwoByTwo);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], Chunk::primary(Rect({0, 0}, {5, 5}), DeviceId(2)));
  const DataLayout s = dist::replicated().layout({1}, kTwoByTwo);  // a scalar
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.home_of(Point{0}), 0u);
  expect_error([] { dist::replicated().layout(Point{}, kTwoByTwo); }, ErrorKind::kInvalidArgument,
               "arrays have rank 1 to 3; store a scalar as an array of extent (1)");
  EXPECT_EQ(dist::stencil(4, 1).layout({0}, kTwoByTwo).size(), 0u);  // an empty array
}

TEST(DataDistribution, UserDefinedChunksAreKeptAsGiven) {
  const std::vector<Chunk> chunks = {Chunk::primary(Rect({0}, {3}), DeviceId(1)),
                                     chunk(Rect({2}, {8}), Rect({3}, {8}), 0),
                                     Chunk::replica(Rect({0}, {8}), DeviceId(3))};
  const DataLayout l = dist::user_defined(chunks).layout({8}, kTwoByTwo);
  EXPECT_EQ(l.chunks(), chunks);
  EXPECT_EQ(l.home_of(Point{2}), 0u);
  EXPECT_EQ(l.find_containing(Rect({2}, {5}), DeviceId(2)), 2u);  // D3 is on D2's worker
  EXPECT_EQ(l.find_containing(Rect({2}, {5}), DeviceId(0)), 1u);
}

TEST(DataDistribution, BadParametersAreInvalidArguments) {
  const auto k = ErrorKind::kInvalidArgument;
  expect_error([] { dist::block(0); }, k, "chunk size must be positive, got 0 (dist::block)");
  expect_error([] { dist::stencil(8, -1); }, k, "halo (-1) must be 0 or more (dist::stencil)");
  expect_error([] { dist::tiles({4, 0}); }, k, "chunk size must be positive, got 0 (dist::tiles)");
  expect_error([] { dist::block(3, 8); }, k, "axis 3 is not 0 to 2 (dist::block)");
  expect_error(
      [] {
        dist::stencil({4, 4}, {1, 1, 1});
      },
      k, "halo (1, 1, 1) and chunk extent (4, 4) differ in rank (dist::stencil)");
  expect_error([] { dist::columns(4).layout({10}, kTwoByTwo); }, k,
               "cannot apply dist::columns(axis 1, (4), contiguous) of an array of extent (10): "
               "axis 1 needs an array of rank 2 or more");
  expect_error(
      [] {
        dist::tiles({4, 4}).layout({8, 8, 8}, kTwoByTwo);
      },
      k,
      "cannot apply dist::tiles((4, 4), contiguous) of an array of extent (8, 8, 8): "
      "the chunk extent has rank 2, the array rank 3");
  expect_error([] { dist::block(4).with_devices({}); }, k,
               "empty device subset for dist::block(axis 0, (4), contiguous)");
  expect_error(
      [] {
        dist::block(4).with_devices({DeviceId(1), DeviceId(1)});
      },
      k, "device D1 appears twice in the subset for dist::block(axis 0, (4), contiguous)");
  expect_error([] { dist::centralized(DeviceId(0)).with_devices({DeviceId(1)}); }, k,
               "dist::centralized(D0) names its devices itself; a device subset does not apply");
  expect_error([] { dist::replicated().with_placement(Placement::kRoundRobin); }, k,
               "placement applies to grid distributions only, not to "
               "dist::replicated(per device)");
}

TEST(DataDistribution, BadLayoutsNameTheCulprit) {
  const auto k = ErrorKind::kDistribution;
  const DeviceSet four = DeviceSet::uniform(1, 4);
  expect_error(
      [&] {
        dist::user_defined({Chunk::primary(Rect({10}, {20}), DeviceId(0)),
                            Chunk::primary(Rect({20}, {30}), DeviceId(1)),
                            Chunk::primary(Rect({30}, {40}), DeviceId(2)),
                            Chunk::primary(Rect({0}, {10}), DeviceId(7))})
            .layout({40}, four);
      },
      k, "chunk 3 [0, 10) is on device D7, but the cluster has devices D0..D3");
  expect_error([&] { dist::centralized(DeviceId(4)).layout({40}, four); }, k,
               "dist::centralized(D4) is on device D4, but the cluster has devices D0..D3");
  expect_error([&] { dist::block(10).with_devices({DeviceId(9)}).layout({40}, four); }, k,
               "the device subset of dist::block(axis 0, (10), contiguous) is on device D9, but "
               "the cluster has devices D0..D3");
  expect_error(
      [&] {
        dist::user_defined({Chunk::primary(Rect({0, 0}, {4, 4}), DeviceId(0)),
                            Chunk::primary(Rect({0, 5}, {4, 8}), DeviceId(0))})
            .layout({4, 8}, four);
      },
      k,
      "element (0, 4) of the array [0, 4) x [0, 8) is owned by no chunk (chunks own 28 of 32 "
      "elements)");
  expect_error(
      [&] {
        dist::user_defined({Chunk::primary(Rect({0}, {6}), DeviceId(0)),
                            Chunk::primary(Rect({4}, {8}), DeviceId(1))})
            .layout({8}, four);
      },
      k,
      "chunks 0 and 1 both own [4, 6); owned boxes must be disjoint (mark one a replica, or "
      "shrink its owned box)");
  expect_error(
      [&] { dist::user_defined({Chunk::primary(Rect({0}, {9}), DeviceId(0))}).layout({8}, four); },
      k, "chunk 0 [0, 9) reaches outside the array [0, 8)");
  expect_error(
      [&] {
        dist::user_defined({{Rect({0}, {4}), Rect({0}, {8}), DeviceId(0)}}).layout({8}, four);
      },
      k, "chunk 0 [0, 4) owns [0, 8), which it does not store");
  expect_error([&] { dist::block(1).layout({int64_t{1} << 30}, four); }, k,
               "dist::block(axis 0, (1), contiguous) of an array of extent (1073741824) makes "
               "1073741824 chunks, more than 2097152; choose larger chunks (about 0.5 GB each)");
  try {
    dist::block(1).layout({8}, DeviceSet());
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no devices"), std::string::npos) << e.what();
  }
}

// The paper's scale: 100k chunks; queries must not scan them all.
TEST(DataDistribution, QueriesOnAHundredThousandChunksAreFast) {
  const int64_t n = 100000 * int64_t{64};
  const auto start = std::chrono::steady_clock::now();
  const DataLayout l = dist::stencil(64, 1).layout({n}, DeviceSet::uniform(4, 4));
  ASSERT_EQ(l.size(), 100000u);
  std::vector<std::size_t> out;
  out.reserve(8);
  int64_t checksum = 0;
  for (int64_t i = 0; i < 200000; ++i) {
    const int64_t at = (i * 7919) % (n - 10);
    l.copies_of(Rect({at}, {at + 3}), out);
    checksum += static_cast<int64_t>(out.size());
    const auto home = l.home_of(Point{at});
    ASSERT_TRUE(home.has_value());
    ASSERT_EQ(*home, static_cast<std::size_t>(at / 64));
    const auto in = l.find_containing(Rect({at}, {at + 2}), DeviceId(3));
    ASSERT_TRUE(in.has_value());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(checksum, 0);
  // Linear scans would take 200k x 100k x 3 ~ 6e10 steps; the index needs ~1e7. Generous
  // bound for sanitizer builds on slow machines.
  EXPECT_LT(seconds, 20.0);
  RecordProperty("seconds", std::to_string(seconds));
}

}  // namespace
}  // namespace lightning
