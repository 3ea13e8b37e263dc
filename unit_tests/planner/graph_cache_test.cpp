// The plan cache: a launch shaped like an earlier one replays the same structure with fresh
// ids, and plans exactly as a planner without the cache would.
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "graph_test_fixture.hpp"
#include "planner/plan_format.hpp"

namespace lightning::planner::testing {
namespace {

// Plans a sequence (stencil ping-pong with halos, a remote read, a reduction, a scalar
// reduction) on a planner with or without the cache; returns every plan as JSON.
std::vector<std::string> plan_sequence(bool cached, PlanCacheStats* stats) {
  annotation::AnnotationCache annotations;
  Planner planner(DeviceSet::uniform(2, 2));
  planner.set_plan_cache_enabled(cached);
  std::vector<std::string> out;
  auto keep = [&](const Plan& p) { out.push_back(to_json(p, -1)); };
  auto make = [&](const char* name, const Point& extent, const DataDistribution& d) {
    auto [id, plan] = planner.create_array({name, DataType::kFloat64, extent, d});
    keep(plan);
    return id;
  };
  const ArrayId a = make("a", Point{40}, dist::stencil(10, 1));
  const ArrayId b = make("b", Point{40}, dist::stencil(10, 1));
  const ArrayId c = make("c", Point{40}, dist::centralized(DeviceId(3)));
  const ArrayId s = make("s", Point{4}, dist::replicated(ReplicaScope::kPerWorker));
  annotation::KernelSignature one_d;
  one_d.add_array("in", DataType::kFloat64, 1).add_array("out", DataType::kFloat64, 1);
  const auto& stencil = annotations.bind("global i => read in[i-1:i+1], write out[i]", one_d, 1);
  const auto& reduce = annotations.bind("global i => read in[i], reduce(+) out[i / 10]", one_d, 1);
  LaunchRequest r;
  r.kernel = KernelId(1);
  r.name = "stencil";
  r.annotation = &stencil;
  r.scalars = {0, 0};
  r.domain = Rect(Point{1}, Point{39});
  r.block_size = Point{5};
  r.work = work::block(10);
  for (int it = 0; it < 6; ++it) {
    r.arrays = it % 2 ? std::vector<ArrayId>{b, a} : std::vector<ArrayId>{a, b};
    if (it == 4) r.arrays = {c, a};  // another layout: a miss
    keep(planner.launch(r));
  }
  r.kernel = KernelId(2);
  r.annotation = &reduce;
  r.domain = Rect(Point{0}, Point{40});
  r.arrays = {a, s};
  for (uint64_t it = 0; it < 3; ++it) {
    r.scalar_reduction = ScalarReduction{Reduction::custom(8), HostBufferId{100 + it}};
    keep(planner.launch(r));
  }
  keep(planner.fence());
  if (stats) *stats = planner.cache_stats();
  return out;
}

TEST(GraphCache, CachedPlansEqualFreshOnes) {
  PlanCacheStats stats;
  const auto with_cache = plan_sequence(true, &stats);
  const auto without = plan_sequence(false, nullptr);
  ASSERT_EQ(with_cache.size(), without.size());
  for (size_t i = 0; i < with_cache.size(); ++i) EXPECT_EQ(with_cache[i], without[i]) << i;
  // Stencil: miss, hit (in/out swapped: same layouts), hit, hit, miss (c), hit... the
  // reduction: miss, hit, hit.
  EXPECT_EQ(stats.misses, 3u);
  EXPECT_EQ(stats.hits, 6u);
}

TEST(GraphCache, ReplayedScalarResultsGoToTheirOwnBuffer) {
  const auto plans = plan_sequence(true, nullptr);
  // The last three launches (before the fence) each fold into their own result buffer.
  for (uint64_t it = 0; it < 3; ++it) {
    const auto doc = nlohmann::json::parse(plans[plans.size() - 4 + it]);
    int reads = 0;
    for (const auto& w : doc["workers"])
      for (const auto& t : w["tasks"])
        if (t["kind"] == "HostRead") {
          EXPECT_EQ(t["host_buffer"], 100 + it);
          ++reads;
        }
    EXPECT_EQ(reads, 2);  // one per worker
  }
}

// A plan lists the deletions of its temporaries (what a fence need not wait for), fresh and
// replayed alike: exactly its DeleteChunk tasks of chunks it created as temporaries.
TEST(GraphCache, EveryPlanListsItsTemporariesDeletions) {
  size_t listed = 0;
  for (bool cached : {false, true})
    for (const std::string& text : plan_sequence(cached, nullptr)) {
      const auto doc = nlohmann::json::parse(text);
      std::set<uint64_t> temporaries, deletions;
      for (const auto& w : doc["workers"])
        for (const auto& t : w["tasks"])
          if (t["kind"] == "CreateChunk" && t["temporary"] == true)
            temporaries.insert(t["chunk"].get<uint64_t>());
      for (const auto& w : doc["workers"])
        for (const auto& t : w["tasks"])
          if (t["kind"] == "DeleteChunk" && temporaries.count(t["chunk"].get<uint64_t>()))
            deletions.insert(t["id"].get<uint64_t>());
      const auto list = doc["temporary_deletions"].get<std::vector<uint64_t>>();
      EXPECT_EQ(std::set<uint64_t>(list.begin(), list.end()), deletions) << text;
      EXPECT_EQ(list.size(), deletions.size()) << "listed twice: " << text;
      listed += list.size();
    }
  EXPECT_GT(listed, 0u);  // the reductions' partials
}

class GraphCacheKeys : public GraphTest {};

TEST_F(GraphCacheKeys, ADifferentScalarIsADifferentPlan) {
  use_cluster(1, 2);
  const ArrayId a = array("a", Point{16}, dist::block(8));
  const ArrayId b = array("b", Point{16}, dist::block(8));
  annotation::KernelSignature sig;
  sig.add_array("a", DataType::kFloat64, 1).add_array("b", DataType::kFloat64, 1);
  sig.add_scalar("k", DataType::kInt64);
  LaunchRequest r;
  r.kernel = KernelId(9);
  r.name = "shift";
  r.annotation = &annotations.bind("global i => read a[i + k], write b[i]", sig, 1);
  r.arrays = {a, b, ArrayId()};
  r.domain = Rect(Point{0}, Point{8});
  r.block_size = Point{4};
  r.work = work::block(4);
  r.scalars = {0, 0, 0};
  PlanQuery q0(submit(r));
  r.scalars = {0, 0, 8};
  PlanQuery q8(submit(r));
  EXPECT_EQ(planner->cache_stats().hits, 0u);
  // With k = 8 the superblocks read the second chunk.
  for (const Task* t : q8.select_all(kind<ExecuteTask>()).tasks())
    EXPECT_EQ(std::get<ExecuteTask>(t->kind).bindings[0].chunk, chunk(a, 1));
  for (const Task* t : q0.select_all(kind<ExecuteTask>()).tasks())
    EXPECT_EQ(std::get<ExecuteTask>(t->kind).bindings[0].chunk, chunk(a, 0));
}

}  // namespace
}  // namespace lightning::planner::testing
