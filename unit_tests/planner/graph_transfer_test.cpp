// Where a superblock's data comes from: its own chunk, a chunk elsewhere on its worker, a
// chunk on another worker, or several chunks.
#include "graph_test_fixture.hpp"

namespace lightning::planner::testing {
namespace {

class GraphTransfer : public GraphTest {};

TEST_F(GraphTransfer, AlignedWorkUsesTheLocalChunksAndMovesNothing) {
  use_cluster(2, 2);
  const ArrayId a = array("a", Point{16}, dist::block(4));
  const ArrayId b = array("b", Point{16}, dist::block(4));
  const Plan& p = submit(launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                                Rect(Point{0}, Point{16}), Point{2}, work::block(4)));
  PlanQuery q(p);
  EXPECT_EQ(q.count(kind<ExecuteTask>()), 4u);
  EXPECT_EQ(q.count(kind<CopyTask>()) + q.count(kind<SendTask>()) + q.count(kind<RecvTask>()), 0u)
      << q.all().to_string();
  EXPECT_EQ(q.count(creates_temporary()), 0u);
  for (size_t i = 0; i < 4; ++i) {
    const auto& exec = std::get<ExecuteTask>(
        q.select_unique(kind<ExecuteTask>(),
                        with_superblock(Rect(Point{int64_t(4 * i)}, Point{int64_t(4 * i + 4)})))
            .kind);
    ASSERT_EQ(exec.bindings.size(), 2u);
    EXPECT_EQ(exec.bindings[0].chunk, chunk(a, i));
    EXPECT_EQ(exec.bindings[1].chunk, chunk(b, i));
    EXPECT_EQ(exec.device, DeviceId(i));
  }
  EXPECT_TRUE(q.select_all(kind<ExecuteTask>()).all_concurrent());
}

TEST_F(GraphTransfer, AChunkOnAnotherDeviceOfTheWorkerIsUsedInPlace) {
  // Moving data between the devices of one worker is the memory manager's job.
  use_cluster(1, 2);
  const ArrayId a = array("a", Point{8}, dist::centralized(DeviceId(0)));
  const ArrayId b = array("b", Point{8}, dist::block(4));
  const Plan& p = submit(launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                                Rect(Point{0}, Point{8}), Point{4}, work::block(4)));
  PlanQuery q(p);
  const Task& on_d1 = q.select_unique(kind<ExecuteTask>(), on_device(DeviceId(1)));
  EXPECT_EQ(std::get<ExecuteTask>(on_d1.kind).bindings[0].chunk, chunk(a, 0));
  EXPECT_EQ(q.count(kind<CopyTask>()), 0u);
}

TEST_F(GraphTransfer, ARemoteRegionArrivesInATemporaryThroughSendAndRecv) {
  use_cluster(2, 1);
  const ArrayId a = array("a", Point{8}, dist::centralized(DeviceId(0)));
  const ArrayId b = array("b", Point{8}, dist::block(4));
  const Plan& p = submit(launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                                Rect(Point{0}, Point{8}), Point{4}, work::block(4)));
  PlanQuery q(p);
  const Task& temp = q.select_unique(creates_temporary());
  EXPECT_EQ(temp.worker, WorkerId(1));
  const ChunkId t = std::get<CreateChunkTask>(temp.kind).chunk;
  EXPECT_EQ(std::get<CreateChunkTask>(temp.kind).box, Rect(Point{4}, Point{8}));
  const Task& send = q.select_unique(kind<SendTask>());
  const Task& recv = q.select_unique(kind<RecvTask>(), writes_to(t));
  EXPECT_EQ(send.worker, WorkerId(0));
  EXPECT_EQ(std::get<SendTask>(send.kind).src, chunk(a, 0));
  EXPECT_EQ(std::get<SendTask>(send.kind).tag, std::get<RecvTask>(recv.kind).tag);
  const auto exec = q.select_all(kind<ExecuteTask>(), on_worker(WorkerId(1)));
  EXPECT_EQ(std::get<ExecuteTask>(exec.unique().kind).bindings[0].chunk, t);
  EXPECT_TRUE(q.select_all(with_id(recv.id)).precedes(exec));
  // The temporary goes away after its last use, in the same plan.
  const auto del = q.select_all(kind<DeleteChunkTask>(), touches(t));
  EXPECT_EQ(del.count(), 1u);
  EXPECT_TRUE(exec.precedes(del));
}

TEST_F(GraphTransfer, ARegionSpanningChunksIsAssembledFromEachHome) {
  use_cluster(1, 1);
  const ArrayId a = array("a", Point{12}, dist::block(4));
  const ArrayId b = array("b", Point{12}, dist::centralized(DeviceId(0)));
  // One superblock reads everything: a[0:11] spans the three chunks of a.
  const Plan& p = submit(launch("global i => read a[:], write b[i]", {"a", "b"}, {a, b},
                                Rect(Point{0}, Point{12}), Point{4}, work::block(12)));
  PlanQuery q(p);
  const ChunkId t = std::get<CreateChunkTask>(q.select_unique(creates_temporary()).kind).chunk;
  const auto copies = q.select_all(kind<CopyTask>(), writes_to(t));
  ASSERT_EQ(copies.count(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(q.count(kind<CopyTask>(), reads_from(chunk(a, i)), writes_to(t)), 1u);
  EXPECT_TRUE(copies.all_concurrent());
  EXPECT_TRUE(copies.precedes(q.select_all(kind<ExecuteTask>())));
}

TEST_F(GraphTransfer, OneTemporaryPerArrayRegionAndWorkerServesTheWholeLaunch) {
  // Matrix product: the superblocks of one row of tiles read the same row block of A, which
  // lives on the other worker. It crosses the network once per worker, not once per tile.
  use_cluster(2, 1);
  const int64_t n = 8;
  const ArrayId A = array("A", Point{n, n}, dist::centralized(DeviceId(0)));
  const ArrayId B = array("B", Point{n, n}, dist::replicated(ReplicaScope::kPerDevice));
  const ArrayId C = array("C", Point{n, n}, dist::tiles(Point{4, 4}));
  const Plan& p = submit(launch("global [i, j] => read A[i, :], read B[:, j], write C[i, j]",
                                {"A", "B", "C"}, {A, B, C}, Rect(Point{0, 0}, Point{n, n}),
                                Point{2, 2}, work::like(*planner->array(C).layout)));
  PlanQuery q(p);
  EXPECT_EQ(q.count(kind<ExecuteTask>()), 4u);
  // Worker 1 runs the two tiles of the second row of tiles ([4, 8) x ...): one temporary
  // for A[4:7, :], one message.
  EXPECT_EQ(q.count(creates_temporary(), on_worker(WorkerId(1))), 1u) << q.all().to_string();
  EXPECT_EQ(q.count(kind<SendTask>()), 1u);
  // B is replicated: every read is served by the local copy.
  EXPECT_EQ(q.count(kind<CopyTask>()), 0u);
}

// Even a dense write pattern may skip elements (`if (c) b(i) = ...` under `write b[i]`), which
// must keep their values: the temporary holds the old contents before the kernel runs.
TEST_F(GraphTransfer, AWriteSpanningChunksGoesThroughATemporaryScatteredToEachChunk) {
  use_cluster(1, 1);
  const ArrayId a = array("a", Point{12}, dist::centralized(DeviceId(0)));
  const ArrayId b = array("b", Point{12}, dist::block(4));
  const Plan& p = submit(launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                                Rect(Point{0}, Point{12}), Point{4}, work::block(12)));
  PlanQuery q(p);
  const ChunkId t = std::get<CreateChunkTask>(q.select_unique(creates_temporary()).kind).chunk;
  const auto exec = q.select_all(kind<ExecuteTask>());
  const auto fetch = q.select_all(kind<CopyTask>(), writes_to(t));
  EXPECT_EQ(fetch.count(), 3u);
  EXPECT_TRUE(fetch.precedes(exec));
  const auto scatter = q.select_all(kind<CopyTask>(), reads_from(t));
  EXPECT_EQ(scatter.count(), 3u);
  EXPECT_TRUE(exec.precedes(scatter));
}

TEST_F(GraphTransfer, AWriteThatMaySkipElementsFetchesTheOldContentsFirst) {
  use_cluster(1, 1);
  const ArrayId a = array("a", Point{12}, dist::centralized(DeviceId(0)));
  const ArrayId b = array("b", Point{24}, dist::block(8));
  const Plan& p = submit(launch("global i => read a[i], write b[2 * i]", {"a", "b"}, {a, b},
                                Rect(Point{0}, Point{12}), Point{4}, work::block(12)));
  PlanQuery q(p);
  const ChunkId t = std::get<CreateChunkTask>(q.select_unique(creates_temporary()).kind).chunk;
  const auto fetch = q.select_all(kind<CopyTask>(), writes_to(t));
  EXPECT_EQ(fetch.count(), 3u);  // b[0:22] spans the three chunks of b
  EXPECT_TRUE(fetch.precedes(q.select_all(kind<ExecuteTask>())));
}

}  // namespace
}  // namespace lightning::planner::testing
