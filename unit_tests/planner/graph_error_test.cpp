// Bad requests: a clear error naming the culprit, and a planner that plans on as if the
// request had never come.
#include <nlohmann/json.hpp>

#include "graph_test_fixture.hpp"

#include "core/error.hpp"
#include "planner/plan_format.hpp"

namespace lightning::planner::testing {
namespace {

class GraphError : public GraphTest {
 protected:
  void SetUp() override {
    use_cluster(2, 1);
    a = array("a", Point{16}, dist::block(8));
    b = array("b", Point{16}, dist::block(8));
    good = launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                  Rect(Point{0}, Point{16}), Point{4}, work::block(8));
  }

  // The plan of `good` from this planner and from a twin that never saw the bad request.
  void expect_state_untouched() {
    PlanningSession twin;
    twin.use_cluster(2, 1);
    twin.array("a", Point{16}, dist::block(8));
    twin.array("b", Point{16}, dist::block(8));
    LaunchRequest r = good;
    r.annotation = &twin.annotations.bind("global i => read a[i], write b[i]",
                                          good.annotation->signature(), 1);
    const Plan& expected = twin.submit(r);
    // Ids differ by what the failed request consumed; the structure must not.
    const Plan& got = submit(good);
    ASSERT_EQ(got.task_count(), expected.task_count());
    for (size_t w = 0; w < got.fragments.size(); ++w)
      for (size_t i = 0; i < got.fragments[w].size(); ++i) {
        EXPECT_EQ(name_of(got.fragments[w][i].kind), name_of(expected.fragments[w][i].kind));
        EXPECT_EQ(got.fragments[w][i].deps.size(), expected.fragments[w][i].deps.size());
      }
  }

  ArrayId a, b;
  LaunchRequest good;
};

TEST_F(GraphError, AnArrayOfTheWrongRankIsNamed) {
  const ArrayId m = array("m", Point{4, 4}, dist::tiles(Point{2, 2}));
  LaunchRequest r = good;
  r.arrays = {m, b};
  try {
    planner->launch(r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(e.message(),
              "parameter 'a' of kernel '" + good.name +
                  "' expects a rank-1 array of double, but array 'm' (A2) is rank 2 of double");
  }
  expect_state_untouched();
}

// 2^31 x 2^31 doubles: 2^62 elements fit an int64, their 2^65 bytes do not. The array is
// refused naming it, rather than given chunks whose byte size wrapped to 0.
TEST_F(GraphError, AnArrayOfMoreBytesThanAnInt64HoldsIsRefused) {
  const int64_t side = int64_t{1} << 31;
  try {
    array("huge", Point{side, side}, dist::centralized(DeviceId(0)));
    FAIL() << "an array of 2^65 bytes was created";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(e.message(),
              "array 'huge' of extent (2147483648, 2147483648) and type double holds "
              "4611686018427387904 elements of 8 bytes: more than 2^63 - 1 bytes");
  }
  // One byte fewer per element still does not fit; 2^62 one-byte elements do.
  EXPECT_THROW(array("huge", Point{side, side}, dist::centralized(DeviceId(0)), DataType::kInt16),
               Error);
  EXPECT_NO_THROW(
      array("bytes", Point{side, side}, dist::centralized(DeviceId(0)), DataType::kUInt8));
  expect_state_untouched();
}

TEST_F(GraphError, ADeletedArrayIsNamed) {
  const ArrayId gone = array("gone", Point{16}, dist::block(8));
  keep(planner->delete_array(gone));
  LaunchRequest r = good;
  r.arrays = {gone, b};
  try {
    planner->launch(r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "parameter 'a' of kernel '" + good.name + "' names no live array (A2)");
  }
}

TEST_F(GraphError, SuperblocksThatDoNotCoverTheDomainLeaveNoTrace) {
  LaunchRequest r = good;
  r.work = work::explicit_list({{Rect(Point{0}, Point{8}), DeviceId(0)}});
  try {
    planner->launch(r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDistribution);
    ASSERT_FALSE(e.context().empty());
    EXPECT_EQ(e.context().back(), "while planning kernel '" + good.name + "'");
  }
  expect_state_untouched();
}

TEST_F(GraphError, HostTransfersOutsideTheArrayAreRejected) {
  EXPECT_THROW(planner->read_to_host(a, Rect(Point{8}, Point{17}), HostBufferId{1}), Error);
  EXPECT_THROW(planner->write_from_host(a, Rect(Point{0, 0}, Point{1, 1}), HostBufferId{1}), Error);
  EXPECT_THROW(planner->fill(a, Rect(Point{0}, Point{4}), {1, 2, 3}), Error);  // 3 bytes
  expect_state_untouched();
}

TEST(GraphFormat, DotAndJsonShowEveryTaskAndMessage) {
  PlanningSession t;
  t.use_cluster(2, 1);
  const ArrayId a = t.array("a", Point{8}, dist::centralized(DeviceId(0)));
  const ArrayId b = t.array("b", Point{8}, dist::block(4));
  const Plan& p = t.submit(t.launch("global i => read a[i], write b[i]", {"a", "b"}, {a, b},
                                    Rect(Point{0}, Point{8}), Point{4}, work::block(4)));
  const std::string dot = to_dot(p);
  EXPECT_NE(dot.find("subgraph cluster_w0"), std::string::npos);
  EXPECT_NE(dot.find("subgraph cluster_w1"), std::string::npos);
  EXPECT_NE(dot.find("[style=dashed]"), std::string::npos) << dot;  // Send -> Recv
  for (const auto& f : p.fragments)
    for (const Task& task : f) EXPECT_NE(dot.find(describe(task)), std::string::npos);
  const auto doc = nlohmann::json::parse(to_json(p));
  size_t tasks = 0;
  for (const auto& w : doc["workers"]) tasks += w["tasks"].size();
  EXPECT_EQ(tasks, p.task_count());
  EXPECT_EQ(doc["workers"][1]["tasks"][0]["kind"], "CreateChunk");
}

}  // namespace
}  // namespace lightning::planner::testing
