// Overlapping chunks (halos, replicas) stay coherent: a write reaches every copy before
// anything reads it.
#include "graph_test_fixture.hpp"

namespace lightning::planner::testing {
namespace {

class GraphCoherence : public GraphTest {
 protected:
  LaunchRequest stencil(ArrayId in, ArrayId out, int64_t n, int64_t chunk_size) {
    return launch("global i => read in[i-1:i+1], write out[i]", {"in", "out"}, {in, out},
                  Rect(Point{1}, Point{n - 1}), Point{2}, work::block(chunk_size));
  }
};

TEST_F(GraphCoherence, AStencilWriteUpdatesTheNeighboursHalos) {
  use_cluster(2, 2);  // four chunks, one per device, two per worker
  const int64_t n = 16;
  const ArrayId in = array("in", Point{n}, dist::stencil(4, 1));
  const ArrayId out = array("out", Point{n}, dist::stencil(4, 1));
  const Plan& p = submit(stencil(in, out, n, 4));
  PlanQuery q(p);
  EXPECT_EQ(q.count(creates_temporary()), 0u) << "every read fits its chunk with its halo";
  // Chunk 1 ([4, 8), stored [3, 9)) is written by its superblock, then its edge elements 4 and
  // 7 go to the halos of chunks 0 (same worker: a Copy) and 2 (other worker: Send/Recv).
  const auto writer = q.select_all(kind<ExecuteTask>(), with_superblock(Rect(Point{4}, Point{8})));
  const Task& to_left =
      q.select_unique(kind<CopyTask>(), reads_from(chunk(out, 1)), writes_to(chunk(out, 0)));
  EXPECT_EQ(std::get<CopyTask>(to_left.kind).region, Rect(Point{4}, Point{5}));
  const Task& to_right = q.select_unique(kind<SendTask>(), reads_from(chunk(out, 1)));
  EXPECT_EQ(std::get<SendTask>(to_right.kind).region, Rect(Point{7}, Point{8}));
  EXPECT_EQ(std::get<SendTask>(to_right.kind).to, WorkerId(1));
  EXPECT_TRUE(writer.precedes(q.select_all(with_id(to_left.id))));
  EXPECT_TRUE(writer.precedes(q.select_all(with_id(to_right.id))));
  // Two inner seams inside workers (Copy each way), one between workers (Send each way).
  EXPECT_EQ(q.count(kind<CopyTask>()), 4u);
  EXPECT_EQ(q.count(kind<SendTask>()), 2u);
  EXPECT_EQ(q.count(kind<RecvTask>()), 2u);
}

TEST_F(GraphCoherence, TheNextIterationReadsTheHaloOnlyAfterItArrived) {
  use_cluster(2, 1);
  const int64_t n = 8;
  const ArrayId a = array("a", Point{n}, dist::stencil(4, 1));
  const ArrayId b = array("b", Point{n}, dist::stencil(4, 1));
  submit(stencil(a, b, n, 4));
  const Plan& second = submit(stencil(b, a, n, 4));
  PlanQuery q = query();
  // Element 4 (written on worker 1) lands in the halo of b's chunk 0 on worker 0.
  const auto halo = q.select_all(kind<RecvTask>(), writes_to(chunk(b, 0)));
  ASSERT_EQ(halo.count(), 1u);
  const auto reader =
      q.select_all(kind<ExecuteTask>(), of_launch(second.request), on_worker(WorkerId(0)));
  EXPECT_TRUE(halo.precedes(reader));
}

TEST_F(GraphCoherence, AWriteToAReplicatedArrayUpdatesEveryReplica) {
  use_cluster(2, 2);
  const ArrayId src = array("src", Point{8}, dist::centralized(DeviceId(0)));
  const ArrayId rep = array("rep", Point{8}, dist::replicated(ReplicaScope::kPerDevice));
  const Plan& p = submit(launch("global i => read src[i], write rep[i]", {"src", "rep"}, {src, rep},
                                Rect(Point{0}, Point{8}), Point{8},
                                work::explicit_list({{Rect(Point{0}, Point{8}), DeviceId(0)}})));
  PlanQuery q(p);
  // Written in place on D0's replica, then copied to D1 (same worker) and sent to W1's two.
  EXPECT_EQ(q.count(kind<CopyTask>()), 1u) << q.all().to_string();
  EXPECT_EQ(q.count(kind<SendTask>()), 2u);
  for (size_t r = 1; r < 4; ++r)
    EXPECT_EQ(q.count(writes_to(chunk(rep, r)), kind<CopyTask>()) +
                  q.count(writes_to(chunk(rep, r)), kind<RecvTask>()),
              1u);
}

TEST_F(GraphCoherence, AFillWritesEveryCopyWithoutTransfers) {
  use_cluster(2, 2);
  const ArrayId a = array("a", Point{16}, dist::stencil(4, 2));
  const Plan& p = keep(planner->fill(a, Rect(Point{0}, Point{16}), {0, 0, 0, 0, 0, 0, 0, 0}));
  PlanQuery q(p);
  EXPECT_EQ(q.count(kind<FillTask>()), 4u);
  EXPECT_EQ(q.all().count(), 4u);
  const auto& last = std::get<FillTask>(q.select_unique(writes_to(chunk(a, 3))).kind);
  EXPECT_EQ(last.region, Rect(Point{10}, Point{16}));  // stored box with its halo
}

TEST_F(GraphCoherence, AHostWriteReachesEveryCopyAndAHostReadEachHomeOnce) {
  use_cluster(2, 1);
  const ArrayId a = array("a", Point{8}, dist::stencil(4, 1));
  const Plan& w = keep(planner->write_from_host(a, Rect(Point{0}, Point{8}), HostBufferId{7}));
  PlanQuery qw(w);
  EXPECT_EQ(qw.count(kind<HostWriteTask>()), 1u);  // chunk 0 is on the driver
  const Task& send = qw.select_unique(kind<SendTask>());
  EXPECT_EQ(std::get<SendTask>(send.kind).region, Rect(Point{3}, Point{8}));  // with halo
  EXPECT_EQ(w.completion.size(), 2u);

  const Plan& r = keep(planner->read_to_host(a, Rect(Point{2}, Point{6}), HostBufferId{8}));
  PlanQuery qr(r);
  // [2, 4) is owned on the driver. [4, 6) is owned by chunk 1 on worker 1; the driver's halo
  // holds only element 4, not the whole piece, so the piece comes from its home.
  EXPECT_EQ(qr.count(kind<HostReadTask>()), 1u) << qr.all().to_string();
  EXPECT_EQ(qr.count(kind<RecvTask>()), 1u);
  EXPECT_EQ(std::get<RecvTask>(qr.select_unique(kind<RecvTask>()).kind).region,
            Rect(Point{4}, Point{6}));
  // The read comes after the write that filled the chunks.
  const PlanQuery q = query();
  const auto read_tasks = q.select_all(kind<RecvTask>(), receives_from(WorkerId(1)));
  EXPECT_TRUE(q.select_all(with_id(send.id)).precedes(read_tasks));
}

}  // namespace
}  // namespace lightning::planner::testing
