// Property tests: random arrays, clusters and distributions; every layout is checked element
// by element, and every query against a brute-force scan of the chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/rect.hpp"
#include "distribution/data_distribution.hpp"
#include "distribution/data_layout.hpp"
#include "random_cases.hpp"

namespace lightning {
namespace {

using testing::CaseRng;

DeviceSet random_cluster(CaseRng& rng) {
  for (;;) {
    std::vector<int> counts(static_cast<std::size_t>(rng.uniform(1, 3)));
    for (int& n : counts) n = static_cast<int>(rng.uniform(0, 3));
    DeviceSet set = DeviceSet::from_counts(counts);
    if (!set.empty()) return set;
  }
}

// A random subset of the cluster's devices in random order, or empty (= all).
std::vector<DeviceId> random_subset(CaseRng& rng, const DeviceSet& set) {
  std::vector<DeviceId> ids;
  for (const DeviceInfo& d : set.devices()) ids.push_back(d.id);
  if (rng.chance(0.6)) return {};
  std::shuffle(ids.begin(), ids.end(), rng.engine());
  ids.resize(static_cast<std::size_t>(rng.uniform(1, static_cast<int64_t>(ids.size()))));
  return ids;
}

Rect grown(const Rect& r, const Point& halo, const Point& extent) {
  Point lo = r.lo(), hi = r.hi();
  for (int a = 0; a < r.rank(); ++a) {
    lo[a] = std::max<int64_t>(0, lo[a] - halo[a]);
    hi[a] = std::min(extent[a], hi[a] + halo[a]);
  }
  return {lo, hi};
}

// What a random case expects of its layout, beyond the invariants every layout keeps.
struct Expectation {
  bool grid = false;
  Point shape, halo;  // resolved to the array's rank
  Placement placement = Placement::kContiguous;
  bool replicated = false;
  ReplicaScope scope = ReplicaScope::kPerDevice;
  std::vector<Chunk> exact;  // user-defined / centralized: exactly these chunks
};

struct Case {
  Point extent;
  DeviceSet cluster;
  DataDistribution dist = dist::replicated();
  std::vector<DeviceId> placed;  // the devices placed over, in order
  Expectation expect;
};

Case random_case(CaseRng& rng) {
  Case c;
  c.cluster = random_cluster(rng);
  const int rank = static_cast<int>(rng.uniform(1, 3));
  c.extent = rng.point(rank, rng.chance(0.05) ? 0 : 1, 14);
  const std::vector<DeviceId> subset = random_subset(rng, c.cluster);
  Expectation& e = c.expect;
  const int kind = static_cast<int>(rng.uniform(0, 9));
  auto size = [&] { return rng.uniform(1, 16); };
  if (kind <= 6) {
    e.grid = true;
    e.shape = c.extent;
    e.halo = Point::filled(rank, 0);
    const int axis = static_cast<int>(rng.uniform(0, rank - 1));
    switch (kind) {
      case 0: {
        const int64_t s = size();
        c.dist = axis == 0 && rng.chance(0.5) ? dist::block(s) : dist::block(axis, s);
        e.shape[axis] = s;
        break;
      }
      case 1: {
        const int64_t s = size();
        if (rank >= 2 && rng.chance(0.5)) {
          c.dist = dist::columns(s);
          e.shape[1] = s;
        } else {
          c.dist = dist::rows(s);
          e.shape[0] = s;
        }
        break;
      }
      case 2:
        e.shape = rng.point(rank, 1, 8);
        c.dist = dist::tiles(e.shape);
        break;
      case 3: {
        const int64_t s = size();
        c.dist = dist::block_cyclic(axis, s);
        e.shape[axis] = s;
        e.placement = Placement::kRoundRobin;
        break;
      }
      case 4: {
        const int64_t s = size(), h = rng.uniform(0, 4);
        c.dist = dist::stencil(s, h);
        e.shape[0] = s;
        e.halo = Point::filled(rank, h);
        break;
      }
      case 5: {
        e.shape = rng.point(rank, 1, 8);
        const int64_t h = rng.uniform(0, 3);
        c.dist = dist::stencil(e.shape, h);
        e.halo = Point::filled(rank, h);
        break;
      }
      default:
        e.shape = rng.point(rank, 1, 8);
        e.halo = rng.point(rank, 0, 3);
        c.dist = dist::stencil(e.shape, e.halo);
        break;
    }
    for (int a = 0; a < rank; ++a) e.shape[a] = std::min(e.shape[a], c.extent[a]);
    if (rng.chance(0.3)) {
      e.placement = rng.chance(0.5) ? Placement::kRoundRobin : Placement::kContiguous;
      c.dist = c.dist.with_placement(e.placement);
    }
  } else if (kind == 7) {
    e.replicated = true;
    e.scope = rng.chance(0.5) ? ReplicaScope::kPerDevice : ReplicaScope::kPerWorker;
    c.dist = dist::replicated(e.scope);
  } else if (kind == 8) {
    const DeviceId d(
        static_cast<uint64_t>(rng.uniform(0, static_cast<int64_t>(c.cluster.size()) - 1)));
    c.dist = dist::centralized(d);
    if (!Rect::from_extent(c.extent).empty())
      e.exact.push_back(Chunk::primary(Rect::from_extent(c.extent), d));
    return c;  // no subset for centralized
  } else {
    const Rect whole = Rect::from_extent(c.extent);
    std::vector<Rect> parts;
    if (!whole.empty()) random_partition(rng, whole, parts, 0.35);
    auto device = [&] {
      return DeviceId(
          static_cast<uint64_t>(rng.uniform(0, static_cast<int64_t>(c.cluster.size()) - 1)));
    };
    for (const Rect& p : parts)
      e.exact.push_back({grown(p, rng.point(rank, 0, 2), c.extent), p, device()});
    const int replicas = whole.empty() ? 0 : static_cast<int>(rng.uniform(0, 3));
    for (int r = 0; r < replicas; ++r) {
      Rect b = rng.box(rank, 0, 14).intersection(whole);
      if (!b.empty()) e.exact.push_back(Chunk::replica(b, device()));
    }
    std::shuffle(e.exact.begin(), e.exact.end(), rng.engine());
    c.dist = dist::user_defined(e.exact);
    return c;
  }
  if (!subset.empty()) c.dist = c.dist.with_devices(subset);
  c.placed = subset;
  if (c.placed.empty())
    for (const DeviceInfo& d : c.cluster.devices()) c.placed.push_back(d.id);
  return c;
}

// Invariants of every layout, element by element.
void check_invariants(const DataLayout& layout, const Point& extent, const DeviceSet& cluster) {
  const Rect whole = Rect::from_extent(extent);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const Chunk& c = layout[i];
    ASSERT_FALSE(c.box.empty()) << "chunk " << i;
    ASSERT_TRUE(whole.contains(c.box)) << "chunk " << i << " " << c.to_string();
    ASSERT_TRUE(c.box.contains(c.owned)) << "chunk " << i << " " << c.to_string();
    ASSERT_TRUE(cluster.contains(c.device)) << "chunk " << i << " " << c.to_string();
    ASSERT_EQ(c.is_primary(), !c.is_replica());
  }
  whole.for_each_point([&](const Point& p) {
    int owners = 0, holders = 0;
    for (const Chunk& c : layout.chunks()) {
      owners += c.owned.contains(p);
      holders += c.box.contains(p);
    }
    ASSERT_EQ(owners, 1) << "element " << p.to_string();
    ASSERT_GE(holders, 1) << "element " << p.to_string();
  });
}

void check_grid(const DataLayout& layout, const Case& c) {
  const Expectation& e = c.expect;
  const int rank = c.extent.rank();
  if (Rect::from_extent(c.extent).empty()) {
    ASSERT_EQ(layout.size(), 0u);
    return;
  }
  uint64_t count = 1;
  for (int a = 0; a < rank; ++a)
    count *= static_cast<uint64_t>((c.extent[a] + e.shape[a] - 1) / e.shape[a]);
  ASSERT_EQ(layout.size(), count);
  std::map<DeviceId, int> per_device;
  std::size_t last_position = 0;
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const Chunk& ch = layout[i];
    // Alignment: the owned box is a grid cell anchored at 0, smaller only at the array's end.
    for (int a = 0; a < rank; ++a) {
      ASSERT_EQ(ch.owned.lo()[a] % e.shape[a], 0) << ch.to_string();
      ASSERT_EQ(ch.owned.hi()[a], std::min(ch.owned.lo()[a] + e.shape[a], c.extent[a]))
          << ch.to_string();
    }
    // Halo widths: exactly `halo` around the owned box, clipped at the array's edges.
    ASSERT_EQ(ch.box, grown(ch.owned, e.halo, c.extent)) << ch.to_string();
    // Row-major numbering.
    if (i > 0) {
      ASSERT_LT(layout[i - 1].owned.lo(), ch.owned.lo());
    }
    const auto pos = static_cast<std::size_t>(
        std::find(c.placed.begin(), c.placed.end(), ch.device) - c.placed.begin());
    ASSERT_LT(pos, c.placed.size()) << ch.device << " is not among the placed devices";
    if (e.placement == Placement::kRoundRobin) {
      ASSERT_EQ(pos, i % c.placed.size()) << "chunk " << i;
    } else {
      ASSERT_GE(pos, last_position) << "chunk " << i << ": runs must be contiguous";
      last_position = pos;
    }
    ++per_device[ch.device];
  }
  if (e.placement == Placement::kContiguous && layout.size() > 0) {
    int lo = static_cast<int>(layout.size()), hi = 0;
    for (DeviceId d : c.placed) {
      lo = std::min(lo, per_device[d]);
      hi = std::max(hi, per_device[d]);
    }
    EXPECT_LE(hi - lo, 1) << "contiguous runs must be balanced";
  }
}

void check_replicated(const DataLayout& layout, const Case& c) {
  const Rect whole = Rect::from_extent(c.extent);
  std::vector<DeviceId> expect;
  if (!whole.empty()) {
    for (DeviceId d : c.placed) {
      const WorkerId w = c.cluster.worker_of(d);
      const bool seen = std::any_of(expect.begin(), expect.end(),
                                    [&](DeviceId x) { return c.cluster.worker_of(x) == w; });
      if (c.expect.scope == ReplicaScope::kPerDevice || !seen) expect.push_back(d);
    }
  }
  ASSERT_EQ(layout.size(), expect.size());
  for (std::size_t i = 0; i < layout.size(); ++i) {
    EXPECT_EQ(layout[i].device, expect[i]);
    EXPECT_EQ(layout[i].box, whole);
    EXPECT_EQ(layout[i].is_primary(), i == 0);
  }
}

// The queries, each against a scan of every chunk.
void check_queries(const DataLayout& layout, CaseRng& rng) {
  const int rank = layout.rank();
  const Point& extent = layout.extent();
  std::vector<std::size_t> out, expect;
  out.reserve(layout.size());
  for (int q = 0; q < 30; ++q) {
    const Point p = rng.point(rank, -2, 16);
    std::optional<std::size_t> home;
    for (std::size_t i = 0; i < layout.size(); ++i)
      if (layout[i].owned.contains(p)) home = i;
    ASSERT_EQ(layout.home_of(p), home) << "home_of " << p.to_string();

    Rect region = rng.box(rank, -2, 16);
    if (rng.chance(0.5)) region = region.intersection(Rect::from_extent(extent));
    if (rng.chance(0.3) && layout.size() > 0) {  // a region inside some chunk's box
      const Rect& b =
          layout[static_cast<std::size_t>(rng.uniform(0, static_cast<int64_t>(layout.size()) - 1))]
              .box;
      Point lo = b.lo(), hi = b.hi();
      for (int a = 0; a < rank; ++a) {
        lo[a] = rng.uniform(b.lo()[a], b.hi()[a] - 1);
        hi[a] = rng.uniform(lo[a] + 1, b.hi()[a]);
      }
      region = Rect(lo, hi);
    }
    SCOPED_TRACE("region " + region.to_string());

    const auto* data = out.data();
    const std::size_t capacity = out.capacity();
    layout.copies_of(region, out);
    EXPECT_EQ(out.data(), data) << "copies_of reallocated a buffer with enough capacity";
    EXPECT_EQ(out.capacity(), capacity);
    expect.clear();
    for (std::size_t i = 0; i < layout.size(); ++i)
      if (layout[i].box.intersects(region)) expect.push_back(i);
    ASSERT_EQ(out, expect) << "copies_of";

    layout.homes_of(region, out);
    EXPECT_EQ(out.data(), data) << "homes_of reallocated a buffer with enough capacity";
    expect.clear();
    int64_t pieces = 0;
    for (std::size_t i = 0; i < layout.size(); ++i)
      if (layout[i].owned.intersects(region)) {
        expect.push_back(i);
        pieces += layout[i].owned.intersection(region).volume();
      }
    ASSERT_EQ(out, expect) << "homes_of";
    ASSERT_EQ(pieces, region.intersection(Rect::from_extent(extent)).volume());

    // find_containing with each kind of preference, against the documented order.
    const DeviceId device(
        static_cast<uint64_t>(rng.uniform(0, static_cast<int64_t>(layout.devices().size()) - 1)));
    const WorkerId worker = layout.devices().worker_of(device);
    auto brute = [&](bool by_device, bool by_worker) {
      std::optional<std::size_t> best;
      std::tuple<bool, bool, bool, std::size_t> best_key;
      for (std::size_t i = 0; i < layout.size(); ++i) {
        const Chunk& ch = layout[i];
        if (region.empty() || !ch.box.contains(region)) continue;
        const auto key = std::make_tuple(
            !(by_device && ch.device == device),
            !(by_worker && layout.devices().worker_of(ch.device) == worker), !ch.is_primary(), i);
        if (!best || key < best_key) {
          best = i;
          best_key = key;
        }
      }
      return best;
    };
    ASSERT_EQ(layout.find_containing(region, device), brute(true, true)) << "prefer " << device;
    ASSERT_EQ(layout.find_containing(region, worker), brute(false, true)) << "prefer " << worker;
    ASSERT_EQ(layout.find_containing(region), brute(false, false));
  }
}

TEST(DataLayoutProperty, RandomDistributionsKeepInvariantsAndAnswerQueriesExactly) {
  const uint64_t seed0 = testing::property_seed();
  const int cases = testing::property_cases(2000);
  for (int n = 0; n < cases; ++n) {
    const uint64_t seed = seed0 + static_cast<uint64_t>(n);
    SCOPED_TRACE(testing::case_name(n, seed));
    CaseRng rng(seed);
    const Case c = random_case(rng);
    SCOPED_TRACE(c.dist.to_string() + " over extent " + c.extent.to_string() + " on " +
                 c.cluster.describe());
    const DataLayout layout = c.dist.layout(c.extent, c.cluster);
    ASSERT_EQ(layout.extent(), c.extent);
    ASSERT_EQ(layout.devices(), c.cluster);
    ASSERT_NO_FATAL_FAILURE(check_invariants(layout, c.extent, c.cluster));
    if (c.expect.grid) {
      ASSERT_NO_FATAL_FAILURE(check_grid(layout, c));
    } else if (c.expect.replicated) {
      ASSERT_NO_FATAL_FAILURE(check_replicated(layout, c));
    } else {
      ASSERT_EQ(layout.chunks(), c.expect.exact);
    }
    ASSERT_NO_FATAL_FAILURE(check_queries(layout, rng));
  }
}

// Damaged user-defined layouts are rejected, with a message naming what is wrong.
TEST(DataLayoutProperty, DamagedUserLayoutsAreRejected) {
  const uint64_t seed0 = testing::property_seed();
  const int cases = testing::property_cases(1000);
  for (int n = 0; n < cases; ++n) {
    const uint64_t seed = seed0 + static_cast<uint64_t>(n);
    SCOPED_TRACE(testing::case_name(n, seed));
    CaseRng rng(seed);
    const DeviceSet cluster = random_cluster(rng);
    const int rank = static_cast<int>(rng.uniform(1, 3));
    const Point extent = rng.point(rank, 1, 10);
    std::vector<Rect> parts;
    random_partition(rng, Rect::from_extent(extent), parts, 0.35);
    std::vector<Chunk> chunks;
    for (const Rect& p : parts) chunks.push_back(Chunk::primary(p, DeviceId(0)));
    std::string expect;
    switch (rng.uniform(0, 3)) {
      case 0: {  // drop a chunk: a gap
        if (chunks.size() < 2) continue;
        const auto i =
            static_cast<std::size_t>(rng.uniform(0, static_cast<int64_t>(chunks.size()) - 1));
        chunks.erase(chunks.begin() + static_cast<std::ptrdiff_t>(i));
        expect = "is owned by no chunk";
        break;
      }
      case 1: {  // a second owner
        const Rect b = rng.box(rank, 0, 10).intersection(Rect::from_extent(extent));
        if (b.empty()) continue;
        chunks.push_back(Chunk::primary(b, DeviceId(0)));
        expect = "both own";
        break;
      }
      case 2:  // a device beyond the cluster
        chunks.back().device = DeviceId(cluster.size() + static_cast<uint64_t>(rng.uniform(0, 5)));
        expect = "but the cluster has devices";
        break;
      default:  // reaching outside
        chunks.back().box =
            Rect(chunks.back().box.lo(), chunks.back().box.hi() + Point::filled(rank, 1));
        expect = "reaches outside the array";
        break;
    }
    try {
      dist::user_defined(chunks).layout(extent, cluster);
      FAIL() << "expected an error containing '" << expect << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kDistribution);
      EXPECT_NE(e.message().find(expect), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace lightning
