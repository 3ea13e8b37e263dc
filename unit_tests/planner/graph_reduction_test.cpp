// Reductions: partials per superblock, folded per device, per worker, into the owners, then
// copied to the other copies; scalar results folded on the driver in a fixed order.
#include "graph_test_fixture.hpp"

#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "core/reduction.hpp"

namespace lightning::planner::testing {
namespace {

class GraphReduction : public GraphTest {
 protected:
  /// b = the scan of a, 12 elements in chunks of 4, in six superblocks of two (block size 2),
  /// its total into `total` when there is one.
  LaunchRequest scan_of_twelve(std::optional<HostBufferId> total) {
    const ArrayId a = array("a", Point{12}, dist::block(4));
    const ArrayId b = array("b", Point{12}, dist::block(4));
    LaunchRequest r = launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                             Rect(Point{0}, Point{12}), Point{2}, work::block(2));
    r.scan = ScanRequest{Reduction::custom(8), total};
    return r;
  }
};

TEST_F(GraphReduction, RowSumFoldsPerDeviceThenPerWorkerIntoTheOwner) {
  use_cluster(2, 2);
  const int64_t n = 8;
  const ArrayId A = array("A", Point{n, n}, dist::columns(2));  // a column block per device
  const ArrayId s = array("s", Point{n}, dist::replicated(ReplicaScope::kPerWorker));
  // Superblocks are column blocks of width 1: two per device.
  const Plan& p = submit(launch("global [i, j] => read A[i, j], reduce(+) s[i]", {"A", "s"}, {A, s},
                                Rect(Point{0, 0}, Point{n, n}), Point{8, 1}, work::block(1, 1)));
  PlanQuery q(p);
  const auto partials = q.select_all(kind<FillTask>());
  EXPECT_EQ(q.count(kind<ExecuteTask>()), 8u);
  // 8 partials + 4 device accumulators + 2 worker accumulators, each filled with 0.
  EXPECT_EQ(partials.count(), 8u + 4u + 2u) << q.all().to_string();
  for (const Task* t : partials.tasks())
    EXPECT_EQ(std::get<FillTask>(t->kind).value,
              Reduction::builtin(ReduceOp::kSum, DataType::kFloat64).identity());
  // Into the owner (worker 0's replica owns s): its own accumulator, and the one of worker 1
  // through a message; worker order fixes the order of the two folds.
  const auto into_owner = q.select_all(kind<FoldTask>(), writes_to(chunk(s, 0)));
  ASSERT_EQ(into_owner.count(), 2u);
  const auto folds = into_owner.tasks();
  EXPECT_TRUE(q.select_all(with_id(folds[0]->id)).precedes(q.select_all(with_id(folds[1]->id))));
  EXPECT_EQ(q.count(kind<SendTask>(), sends_to(WorkerId(0))), 1u);
  // Then the owner's new contents go to worker 1's replica.
  const auto update = q.select_all(kind<SendTask>(), reads_from(chunk(s, 0)));
  ASSERT_EQ(update.count(), 1u);
  EXPECT_TRUE(into_owner.precedes(update));
  EXPECT_TRUE(q.select_all(kind<ExecuteTask>()).all_concurrent());
}

TEST_F(GraphReduction, AScalarResultIsFoldedOnTheDriverInWorkerOrder) {
  use_cluster(3, 1);
  const ArrayId a = array("a", Point{12}, dist::block(4));
  LaunchRequest r = launch("global i => read a[i]", {"a"}, {a}, Rect(Point{0}, Point{12}), Point{2},
                           work::block(2));
  r.scalar_reduction = ScalarReduction{Reduction::custom(8), HostBufferId{42}};
  const Plan& p = submit(r);
  PlanQuery q(p);
  // Two superblocks per worker: one fold of the second partial into the first, per worker.
  EXPECT_EQ(q.count(kind<FoldTask>()), 3u);
  const auto to_host = q.select_all(kind<HostReadTask>());
  ASSERT_EQ(to_host.count(), 3u);
  const auto reads = to_host.tasks();
  for (const Task* t : reads) {
    EXPECT_EQ(t->worker, WorkerId(0));
    EXPECT_TRUE(std::get<HostReadTask>(t->kind).fold);
    EXPECT_EQ(std::get<HostReadTask>(t->kind).buffer.value, 42u);
  }
  EXPECT_TRUE(q.select_all(with_id(reads[0]->id)).precedes(q.select_all(with_id(reads[1]->id))));
  EXPECT_TRUE(q.select_all(with_id(reads[1]->id)).precedes(q.select_all(with_id(reads[2]->id))));
  EXPECT_EQ(p.completion, (std::vector<TaskId>{reads[0]->id, reads[1]->id, reads[2]->id}));
  EXPECT_EQ(q.count(kind<SendTask>()), 2u);
}

/// Execute tasks running scan pass `pass`.
TaskFilter scan_pass(ScanPass pass) {
  return [pass](const Task& t) {
    const auto* e = std::get_if<ExecuteTask>(&t.kind);
    return e && e->scan == pass;
  };
}

/// Execute tasks over the superblock that starts at index `lo` (rank 1).
TaskFilter superblock_from(int64_t lo) {
  return [lo](const Task& t) {
    const auto* e = std::get_if<ExecuteTask>(&t.kind);
    return e && e->superblock.lo()[0] == lo;
  };
}

TEST_F(GraphReduction, AScanCarriesPrefixesAcrossWorkersBetweenItsTwoPasses) {
  use_cluster(3, 1);
  LaunchRequest r = scan_of_twelve(std::nullopt);
  {
    PlanQuery q(submit(r));
    // Six superblocks, two per worker. The last two (worker 2's) are the last run: they need
    // no partial pass, the second starting where the first's final pass ends.
    const auto partials = q.select_all(scan_pass(ScanPass::kPartial));
    const auto finals = q.select_all(scan_pass(ScanPass::kFinal));
    EXPECT_EQ(partials.count(), 4u) << q.all().to_string();
    EXPECT_EQ(partials.select(on_worker(WorkerId(2))).count(), 0u);
    EXPECT_EQ(finals.count(), 6u);
    EXPECT_TRUE(partials.all_concurrent());
    // Each waits for its own prefix only, but for the last run's second.
    EXPECT_TRUE(finals
                    .select([](const Task& t) {
                      return std::get<ExecuteTask>(t.kind).superblock.lo()[0] < 10;
                    })
                    .all_concurrent());
    EXPECT_TRUE(finals.select(superblock_from(8)).precedes(finals.select(superblock_from(10))));
    // Worker 0's partials reach the later workers' final passes through the carry.
    EXPECT_TRUE(
        partials.select(on_worker(WorkerId(0))).precedes(finals.select(on_worker(WorkerId(1)))));
    EXPECT_TRUE(
        partials.select(on_worker(WorkerId(0))).precedes(finals.select(on_worker(WorkerId(2)))));
    // The carry crosses from worker 0 to 1 and from 1 to 2, once each.
    EXPECT_EQ(q.count(kind<SendTask>()), 2u);
    EXPECT_EQ(q.count(kind<SendTask>(), sends_to(WorkerId(1))), 1u);
    EXPECT_EQ(q.count(kind<SendTask>(), sends_to(WorkerId(2))), 1u);
    // The first superblock starts from the identity; each later one from a prefix. Only the
    // final pass another starts from leaves its end.
    for (const Task* t : finals.tasks()) {
      const auto& e = std::get<ExecuteTask>(t->kind);
      EXPECT_EQ(e.scan_prefix.valid(), e.superblock.lo()[0] != 0) << describe(*t);
      EXPECT_EQ(e.scalar_partial.valid(), e.superblock.lo()[0] == 8) << describe(*t);
    }
    EXPECT_EQ(q.count(kind<HostReadTask>()), 0u);
  }
  r.scan->total = HostBufferId{7};
  const Plan& p = submit(r);
  PlanQuery q(p);
  // The total is where the last superblock's final pass ends: no partial pass for it.
  EXPECT_EQ(q.select_all(scan_pass(ScanPass::kPartial)).count(), 4u);
  const auto finals = q.select_all(scan_pass(ScanPass::kFinal));
  for (const Task* t : finals.tasks())
    EXPECT_EQ(std::get<ExecuteTask>(t->kind).scalar_partial.valid(),
              std::get<ExecuteTask>(t->kind).superblock.lo()[0] >= 8)
        << describe(*t);
  const Task& total = q.select_unique(kind<HostReadTask>());
  EXPECT_EQ(total.worker, WorkerId(0));
  EXPECT_EQ(std::get<HostReadTask>(total.kind).buffer.value, 7u);
  EXPECT_EQ(p.completion, std::vector<TaskId>{total.id});
  EXPECT_EQ(q.count(kind<SendTask>()), 3u);  // the total comes back from worker 2
}

TEST_F(GraphReduction, AScanOnOneDeviceReadsItsInputOnce) {
  use_cluster(1, 1);
  LaunchRequest r = scan_of_twelve(HostBufferId{3});
  PlanQuery q(submit(r));
  // Six superblocks on the one device: no partial pass, no fold; each final pass starts
  // from the end of the one before it in index order, the last leaves the total.
  EXPECT_EQ(q.count(scan_pass(ScanPass::kPartial)), 0u) << q.all().to_string();
  EXPECT_EQ(q.count(kind<FoldTask>()), 0u);
  const auto finals = q.select_all(scan_pass(ScanPass::kFinal));
  ASSERT_EQ(finals.count(), 6u);
  for (int64_t lo = 0; lo + 2 < 12; lo += 2)
    EXPECT_TRUE(
        finals.select(superblock_from(lo)).precedes(finals.select(superblock_from(lo + 2))));
  for (const Task* t : finals.tasks()) {
    const auto& e = std::get<ExecuteTask>(t->kind);
    EXPECT_EQ(e.scan_prefix.valid(), e.superblock.lo()[0] != 0) << describe(*t);
    EXPECT_TRUE(e.scalar_partial.valid()) << describe(*t);
  }
  EXPECT_TRUE(finals.select(superblock_from(10)).precedes(q.select_all(kind<HostReadTask>())));
}

TEST_F(GraphReduction, AScanOverAnMDRangeOrWithAReduceRuleIsRefused) {
  use_cluster(1, 2);
  const ArrayId a = array("a", Point{8}, dist::block(4));
  const ArrayId s = array("s", Point{1}, dist::block(1));
  LaunchRequest r = launch("global i => read a[i], reduce(+) s[0]", {"a", "s"}, {a, s},
                           Rect(Point{0}, Point{8}), Point{2}, work::block(2));
  r.scan = ScanRequest{Reduction::custom(8), std::nullopt};
  try {
    planner->launch(r);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reduce(+) into an array"), std::string::npos)
        << e.what();
  }
  const ArrayId m = array("m", Point{4, 4}, dist::block(2));
  LaunchRequest r2 = launch("global [i, j] => read m[i, j]", {"m"}, {m},
                            Rect(Point{0, 0}, Point{4, 4}), Point{1, 2}, work::block(2));
  r2.scan = ScanRequest{Reduction::custom(8), std::nullopt};
  try {
    planner->launch(r2);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("RangePolicy (rank 1)"), std::string::npos) << e.what();
  }
}

TEST_F(GraphReduction, MinAndMaxStartFromTheExtremes) {
  int32_t v = 0;
  auto bytes = Reduction::builtin(ReduceOp::kMin, DataType::kInt32).identity();
  std::memcpy(&v, bytes.data(), 4);
  EXPECT_EQ(v, std::numeric_limits<int32_t>::max());
  bytes = Reduction::builtin(ReduceOp::kMax, DataType::kInt32).identity();
  std::memcpy(&v, bytes.data(), 4);
  EXPECT_EQ(v, std::numeric_limits<int32_t>::lowest());
  double d = 0;
  bytes = Reduction::builtin(ReduceOp::kMax, DataType::kFloat64).identity();
  std::memcpy(&d, bytes.data(), 8);
  EXPECT_EQ(d, -std::numeric_limits<double>::infinity());
  bytes = Reduction::builtin(ReduceOp::kProd, DataType::kFloat32).identity();
  float f = 0;
  std::memcpy(&f, bytes.data(), 4);
  EXPECT_EQ(f, 1.0f);
}

}  // namespace
}  // namespace lightning::planner::testing
