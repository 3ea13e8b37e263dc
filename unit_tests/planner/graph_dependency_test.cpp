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

// A chain of launches that all read x (y = a x + y, without a fence): each depends on the one
// before, so x's reader group keeps only the newest; the state does not grow with the chain.
TEST_F(GraphDependency, AChainReadingOneArrayKeepsItsReaderGroupAtOne) {
  use_cluster(1, 1);
  const ArrayId x = array("x", Point{64}, dist::centralized(DeviceId(0)));
  const ArrayId y = array("y", Point{64}, dist::centralized(DeviceId(0)));
  const auto saxpy = launch("global i => read x[i], readwrite y[i]", {"x", "y"}, {x, y},
                            Rect(Point{0}, Point{64}), Point{4}, work::block(64));
  submit(saxpy);
  const size_t entries = planner->tracked_entries();
  for (int k = 0; k < 1000; ++k) submit(saxpy);
  EXPECT_EQ(planner->largest_tracked_group(), 1u);
  EXPECT_EQ(planner->tracked_entries(), entries);
  // A write of x after the chain still follows every launch of it.
  const Plan& w = submit(launch("global i => write x[i]", {"x"}, {x}, Rect(Point{0}, Point{64}),
                                Point{4}, work::block(64)));
  PlanQuery q = query();
  const auto chain = q.select_all(kind<ExecuteTask>()) - q.select_all(of_launch(w.request));
  EXPECT_EQ(chain.count(), 1001u);
  EXPECT_TRUE(chain.precedes(q.select_all(kind<ExecuteTask>(), of_launch(w.request))));
}

// Readers that do not depend on each other all stay in the group: a write waits for each.
TEST_F(GraphDependency, AWriteAfterConcurrentReadersFollowsEachOfThem) {
  use_cluster(1, 1);
  const ArrayId x = array("x", Point{64}, dist::centralized(DeviceId(0)));
  std::vector<ArrayId> outs;
  for (int k = 0; k < 5; ++k) {
    outs.push_back(array("o" + std::to_string(k), Point{64}, dist::centralized(DeviceId(0))));
    submit(launch("global i => read x[i], write o[i]", {"x", "o"}, {x, outs.back()},
                  Rect(Point{0}, Point{64}), Point{4}, work::block(64)));
  }
  EXPECT_EQ(planner->largest_tracked_group(), 5u);
  const Plan& w = submit(launch("global i => write x[i]", {"x"}, {x}, Rect(Point{0}, Point{64}),
                                Point{4}, work::block(64)));
  PlanQuery q = query();
  const auto write = q.select_all(kind<ExecuteTask>(), of_launch(w.request));
  const auto readers = q.select_all(kind<ExecuteTask>()) - write;
  EXPECT_EQ(readers.count(), 5u);
  EXPECT_TRUE(readers.all_concurrent());
  EXPECT_TRUE(readers.precedes(write));
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
