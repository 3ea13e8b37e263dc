// Dependencies across launches: per chunk region, so consecutive launches pipeline.
#include "graph_test_fixture.hpp"

namespace lightning::planner::testing {
namespace {

class GraphDependency : public GraphTest {};

TEST_F(GraphDependency, SuperblocksWritingDisjointPartsOfOneChunkRunConcurrently) {
  use_cluster(1, 1);
  const ArrayId a = array("a", Point{64}, dist::centralized(DeviceId(0)));
  const ArrayId b = array("b", Point{64}, dist::centralized(DeviceId(0)));
  const Plan& p = submit(launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                                Rect(Point{0}, Point{64}), Point{4}, work::block(8)));
  PlanQuery q(p);
  EXPECT_EQ(q.count(kind<ExecuteTask>()), 8u);
  EXPECT_TRUE(q.select_all(kind<ExecuteTask>()).all_concurrent());
}

TEST_F(GraphDependency, ALaunchWaitsOnlyWhereItsDataMeetsThePreviousOne) {
  use_cluster(1, 1);
  const ArrayId a = array("a", Point{64}, dist::centralized(DeviceId(0)));
  const ArrayId b = array("b", Point{64}, dist::centralized(DeviceId(0)));
  const ArrayId c = array("c", Point{64}, dist::centralized(DeviceId(0)));
  const Plan& first = submit(launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                                    Rect(Point{0}, Point{64}), Point{4}, work::block(16)));
  const Plan& second = submit(launch("global i => read b[i], write c[i]", {"b", "c"}, {b, c},
                                     Rect(Point{0}, Point{64}), Point{4}, work::block(16)));
  PlanQuery q = query();
  for (int64_t lo = 0; lo < 64; lo += 16) {
    const Rect sb(Point{lo}, Point{lo + 16});
    const auto producer = q.select_all(of_launch(first.request), with_superblock(sb));
    const auto consumer = q.select_all(of_launch(second.request), with_superblock(sb));
    EXPECT_TRUE(producer.precedes(consumer)) << sb.to_string();  // read-after-write
    const auto others = q.select_all(kind<ExecuteTask>(), of_launch(first.request)) - producer;
    EXPECT_TRUE(others.is_concurrent_with(consumer)) << sb.to_string();
  }
}

TEST_F(GraphDependency, AWriteWaitsForEarlierReadersAndWriters) {
  use_cluster(1, 1);
  const ArrayId a = array("a", Point{16}, dist::centralized(DeviceId(0)));
  const ArrayId b = array("b", Point{16}, dist::centralized(DeviceId(0)));
  const auto read_a = launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                             Rect(Point{0}, Point{16}), Point{4}, work::block(16));
  const auto write_a = launch("global i => read b[i], write a[i]", {"b", "a"}, {b, a},
                              Rect(Point{0}, Point{16}), Point{4}, work::block(16));
  const Plan& p1 = submit(read_a);
  const Plan& p2 = submit(write_a);
  const Plan& p3 = submit(write_a);
  PlanQuery q = query();
  const auto e1 = q.select_all(kind<ExecuteTask>(), of_launch(p1.request));
  const auto e2 = q.select_all(kind<ExecuteTask>(), of_launch(p2.request));
  const auto e3 = q.select_all(kind<ExecuteTask>(), of_launch(p3.request));
  EXPECT_TRUE(e1.precedes(e2));  // write-after-read on a, read-after-write on b
  EXPECT_TRUE(e2.precedes(e3));  // write-after-write on a
}

TEST_F(GraphDependency, AFenceWaitsForEverythingAndRetiringBoundsTheTracker) {
  use_cluster(2, 2);
  const ArrayId a = array("a", Point{32}, dist::stencil(8, 1));
  const ArrayId b = array("b", Point{32}, dist::stencil(8, 1));
  for (int it = 0; it < 4; ++it)
    submit(launch("global i => read in[i-1:i+1], write out[i]", {"in", "out"},
                  it % 2 ? std::vector<ArrayId>{b, a} : std::vector<ArrayId>{a, b},
                  Rect(Point{1}, Point{31}), Point{4}, work::block(8)));
  const Plan& fence = keep(planner->fence());
  PlanQuery q = query();
  const auto barriers = q.select_all(kind<BarrierTask>());
  ASSERT_EQ(barriers.count(), 2u);
  EXPECT_EQ(fence.completion, barriers.ids());
  for (WorkerId w : {WorkerId(0), WorkerId(1)}) {
    const auto work = q.select_all(on_worker(w)) - barriers;
    EXPECT_TRUE(work.precedes(barriers.select(on_worker(w))));
  }
  EXPECT_GT(planner->tracked_entries(), 0u);
  planner->retire_before(TaskId(fence.fragments[0].front().id.value() + 2));
  EXPECT_EQ(planner->tracked_entries(), 0u);
}

}  // namespace
}  // namespace lightning::planner::testing
