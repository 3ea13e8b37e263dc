#include "annotation/region_evaluator.hpp"

#include <gtest/gtest.h>

#include "annotation/parser.hpp"
#include "error_matchers.hpp"

namespace lightning::annotation {
namespace {

using testing::annotation_error;

Rect box(Point lo, Point hi) {
  return Rect(lo, hi);
}

// Binds `text` to `sig` and evaluates it for the threads [lo, hi) with `block`.
class Regions {
 public:
  Regions(const char* text, KernelSignature sig, int launch_rank)
      : bound_(BoundAnnotation::bind(parse_annotation(text), sig, launch_rank)) {
    args_.scalars.assign(sig.params.size(), 0);
    args_.extents.assign(sig.params.size(), Point());
  }
  Regions& extent(int param, Point e) {
    args_.extents[param] = e;
    return *this;
  }
  Regions& scalar(int param, int64_t v) {
    args_.scalars[param] = v;
    return *this;
  }
  std::vector<AccessRegion> per_array(Rect threads, Point block) const {
    return evaluate_regions(bound_, {threads, block}, args_);
  }
  std::vector<AccessRegion> per_rule(Rect threads, Point block) const {
    return evaluate_rule_regions(bound_, {threads, block}, args_);
  }

 private:
  BoundAnnotation bound_;
  LaunchArguments args_;
};

KernelSignature arrays(std::initializer_list<std::pair<const char*, int>> list) {
  KernelSignature sig;
  for (const auto& [name, rank] : list) sig.add_array(name, DataType::kFloat32, rank);
  return sig;
}

TEST(Regions, PaperStencilReadsAHaloAndWritesExactly) {
  Regions r("global i => read A[i-1:i+1], write B[i]", arrays({{"A", 1}, {"B", 1}}), 1);
  r.extent(0, {100}).extent(1, {100});
  auto out = r.per_array(box({32}, {64}), {16});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].param, 0);
  EXPECT_EQ(out[0].mode, AccessMode::kRead);
  EXPECT_EQ(out[0].region, box({31}, {65}));
  EXPECT_TRUE(out[0].exact);
  EXPECT_EQ(out[1].mode, AccessMode::kWrite);
  EXPECT_EQ(out[1].region, box({32}, {64}));
  EXPECT_TRUE(out[1].exact);
  // At the domain's edges the halo is clamped to the array.
  EXPECT_EQ(r.per_array(box({0}, {10}), {16})[0].region, box({0}, {11}));
  EXPECT_EQ(r.per_array(box({90}, {100}), {16})[0].region, box({89}, {100}));
}

TEST(Regions, OverwriteKeepsItsModeAndIsExactOnlyWhereDense) {
  Regions r("global i => read A[i], overwrite B[2 * i], overwrite C[i]",
            arrays({{"A", 1}, {"B", 1}, {"C", 1}}), 1);
  r.extent(0, {100}).extent(1, {200}).extent(2, {100});
  auto out = r.per_array(box({32}, {64}), {16});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].mode, AccessMode::kOverwrite);
  EXPECT_EQ(out[1].region, box({64}, {127}));
  EXPECT_FALSE(out[1].exact);  // every other element: the planner keeps the old contents
  EXPECT_EQ(out[2].mode, AccessMode::kOverwrite);
  EXPECT_EQ(out[2].region, box({32}, {64}));
  EXPECT_TRUE(out[2].exact);
}

TEST(Regions, PaperMatmulReadsRowsAndColumns) {
  Regions r("global [i, j] => read A[i,:], read B[:,j], write C[i,j]",
            arrays({{"A", 2}, {"B", 2}, {"C", 2}}), 2);
  r.extent(0, {64, 32}).extent(1, {32, 48}).extent(2, {64, 48});
  auto out = r.per_array(box({16, 8}, {32, 24}), {8, 8});
  EXPECT_EQ(out[0].region, box({16, 0}, {32, 32}));
  EXPECT_EQ(out[1].region, box({0, 8}, {32, 24}));
  EXPECT_EQ(out[2].region, box({16, 8}, {32, 24}));
  for (const auto& a : out) EXPECT_TRUE(a.exact) << a.region.to_string();
}

TEST(Regions, ReversedAxesGiveStorageOrderRegions) {
  // The matmul again with B stored column-major: the annotation is unchanged, B's extents and
  // region are in storage order (its columns first).
  KernelSignature sig;
  sig.add_array("A", DataType::kFloat32, 2)
      .add_array("B", DataType::kFloat32, 2, /*axes_reversed=*/true)
      .add_array("C", DataType::kFloat32, 2);
  Regions r("global [i, j] => read A[i,:], read B[:,j], write C[i,j]", sig, 2);
  r.extent(0, {64, 32}).extent(1, {48, 32}).extent(2, {64, 48});
  auto out = r.per_array(box({16, 8}, {32, 24}), {8, 8});
  EXPECT_EQ(out[0].region, box({16, 0}, {32, 32}));
  EXPECT_EQ(out[1].region, box({8, 0}, {24, 32}));
  EXPECT_EQ(out[2].region, box({16, 8}, {32, 24}));
  // Rank 3, with an offset on the (user's) middle axis.
  KernelSignature sig3;
  sig3.add_array("T", DataType::kFloat64, 3, true);
  Regions t("global [i, j, k] => read T[i, j+1, k]", sig3, 3);
  t.extent(0, {10, 10, 10});
  EXPECT_EQ(t.per_array(box({0, 2, 4}, {1, 3, 5}), {1, 1, 1})[0].region, box({4, 3, 0}, {5, 4, 1}));
}

TEST(Regions, PaperRowSumReducesIntoOneSlicePerRow) {
  KernelSignature sig = arrays({{"A", 2}, {"sum", 1}});
  Regions r("global [i, j] => read A[i,j], reduce(+) sum[i]", sig, 2);
  r.extent(0, {40, 1000}).extent(1, {40});
  auto out = r.per_array(box({8, 0}, {16, 500}), {4, 100});
  EXPECT_EQ(out[1].mode, AccessMode::kReduce);
  EXPECT_EQ(out[1].op, ReduceOp::kSum);
  EXPECT_EQ(out[1].region, box({8}, {16}));
  EXPECT_TRUE(out[1].exact);
}

TEST(Regions, KMeansReadsAllCentersAndReducesIntoAll) {
  KernelSignature sig = arrays({{"points", 2}, {"centers", 2}, {"label", 1}, {"sums", 2}});
  sig.add_array("counts", DataType::kInt64, 1).add_scalar("k", DataType::kInt32);
  Regions r(
      "global i => read points[i, :], read centers[0:k-1, :], write label[i], "
      "reduce(+) sums[:, :], reduce(+) counts[0:k-1]",
      sig, 1);
  r.extent(0, {1000, 4}).extent(1, {64, 4}).extent(2, {1000}).extent(3, {64, 4});
  r.extent(4, {64}).scalar(5, 40);
  auto out = r.per_array(box({250}, {500}), {128});
  EXPECT_EQ(out[0].region, box({250, 0}, {500, 4}));
  EXPECT_EQ(out[1].region, box({0, 0}, {40, 4}));
  EXPECT_EQ(out[2].region, box({250}, {500}));
  EXPECT_EQ(out[3].region, box({0, 0}, {64, 4}));
  EXPECT_EQ(out[4].region, box({0}, {40}));
  EXPECT_EQ(out[4].mode, AccessMode::kReduce);
}

TEST(Regions, ScalarReduceGetsTheRankZeroBox) {
  KernelSignature sig = arrays({{"A", 1}, {"total", 0}});
  Regions r("global i => read A[i], reduce(max) total", sig, 1);
  r.extent(0, {10}).extent(1, Point());
  auto out = r.per_array(box({0}, {10}), {4});
  EXPECT_EQ(out[1].region.rank(), 0);
  EXPECT_FALSE(out[1].region.empty());
  EXPECT_TRUE(out[1].exact);
  EXPECT_EQ(out[1].op, ReduceOp::kMax);
}

TEST(Regions, BlockAndLocalIndicesCoupleExactlyOnUnalignedSuperblocks) {
  // b * 4 + l is the global index when the block size is 4: exact and dense.
  Regions r("block b, local l => write A[b * 4 + l], read B[l], read C[b]",
            arrays({{"A", 1}, {"B", 1}, {"C", 1}}), 1);
  r.extent(0, {100}).extent(1, {100}).extent(2, {100});
  auto out = r.per_array(box({6}, {13}), {4});  // blocks 1 (locals 2-3), 2 (0-3), 3 (0)
  EXPECT_EQ(out[0].region, box({6}, {13}));
  EXPECT_TRUE(out[0].exact);
  EXPECT_EQ(out[1].region, box({0}, {4}));
  EXPECT_TRUE(out[1].exact);
  EXPECT_EQ(out[2].region, box({1}, {4}));
  EXPECT_TRUE(out[2].exact);
  // Locals {3} and {0}: the box [0, 4) is a superset with holes.
  auto two = r.per_array(box({7}, {9}), {4});
  EXPECT_EQ(two[1].region, box({0}, {4}));
  EXPECT_FALSE(two[1].exact);
}

TEST(Regions, StridedAndDiagonalPatternsAreNotExact) {
  Regions r("global [i, j] => write A[2 * i], read B[i, i], read C[i, j / 2]",
            arrays({{"A", 1}, {"B", 2}, {"C", 2}}), 2);
  r.extent(0, {100}).extent(1, {100, 100}).extent(2, {100, 100});
  auto out = r.per_array(box({4, 0}, {8, 6}), {4, 4});
  EXPECT_EQ(out[0].region, box({8}, {15}));
  EXPECT_FALSE(out[0].exact);
  EXPECT_EQ(out[1].region, box({4, 4}, {8, 8}));
  EXPECT_FALSE(out[1].exact);
  EXPECT_EQ(out[2].region, box({4, 0}, {8, 3}));
  EXPECT_TRUE(out[2].exact);
}

TEST(Regions, DivisionFloorsTowardMinusInfinity) {
  Regions r("global i => read A[(i - 10) / 4 + 10]", arrays({{"A", 1}}), 1);
  r.extent(0, {100});
  // i in [0, 3]: (i - 10) / 4 in {-3, -2} -> 7..8.
  auto out = r.per_array(box({0}, {4}), {4});
  EXPECT_EQ(out[0].region, box({7}, {9}));
  EXPECT_TRUE(out[0].exact);
}

TEST(Regions, FlattenedIndicesAreDenseWhenRowsAreCovered) {
  KernelSignature sig = arrays({{"A", 1}});
  sig.add_scalar("n", DataType::kInt64);
  Regions r("global [i, j] => write A[i * n + j]", sig, 2);
  r.extent(0, {1000}).scalar(1, 10);
  auto full = r.per_array(box({2, 0}, {5, 10}), {1, 10});
  EXPECT_EQ(full[0].region, box({20}, {50}));
  EXPECT_TRUE(full[0].exact);
  auto part = r.per_array(box({2, 0}, {5, 5}), {1, 5});
  EXPECT_EQ(part[0].region, box({20}, {45}));
  EXPECT_FALSE(part[0].exact);
}

TEST(Regions, RowSlicesOfAFlattenedMatrixAreDense) {
  KernelSignature sig = arrays({{"A", 1}});
  sig.add_scalar("n", DataType::kInt64);
  Regions r("global i => read A[i * n : i * n + n - 1]", sig, 1);
  r.extent(0, {1000}).scalar(1, 7);
  auto out = r.per_array(box({3}, {9}), {4});
  EXPECT_EQ(out[0].region, box({21}, {63}));
  EXPECT_TRUE(out[0].exact);
}

TEST(Regions, EmptyRegionsAreRepresented) {
  Regions r("global i => read A[i + 200], read B[i:i-1], write C[:]",
            arrays({{"A", 1}, {"B", 1}, {"C", 1}}), 1);
  r.extent(0, {100}).extent(1, {100}).extent(2, {0});
  auto out = r.per_array(box({0}, {50}), {10});
  for (const auto& a : out) {
    EXPECT_TRUE(a.region.empty()) << a.region.to_string();
    EXPECT_EQ(a.region, Rect::empty_of_rank(1));
    EXPECT_TRUE(a.exact);
  }
}

TEST(Regions, ReadAndWriteOfOneArrayMergeIntoReadWriteOverTheUnion) {
  Regions r("global i => write A[i], read A[i + 1]", arrays({{"A", 1}}), 1);
  r.extent(0, {100});
  auto merged = r.per_array(box({10}, {20}), {10});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].mode, AccessMode::kReadWrite);
  EXPECT_EQ(merged[0].region, box({10}, {21}));
  EXPECT_TRUE(merged[0].exact);
  auto rules = r.per_rule(box({10}, {20}), {10});
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].mode, AccessMode::kWrite);
  EXPECT_EQ(rules[0].region, box({10}, {20}));
  EXPECT_EQ(rules[1].mode, AccessMode::kRead);
  EXPECT_EQ(rules[1].region, box({11}, {21}));
}

TEST(Regions, UnionOfDisjointReadsHasAHole) {
  Regions r("global i => read A[i], read A[i + 50]", arrays({{"A", 1}}), 1);
  r.extent(0, {100});
  auto out = r.per_array(box({0}, {10}), {10});
  EXPECT_EQ(out[0].region, box({0}, {60}));
  EXPECT_FALSE(out[0].exact);
}

TEST(Regions, SuperblockFromBlocksIsCutToTheDomain) {
  const ThreadBox sb = ThreadBox::from_blocks(box({2, 0}, {4, 3}), {16, 8}, box({1, 1}, {50, 20}));
  EXPECT_EQ(sb.threads, box({32, 1}, {50, 20}));
  EXPECT_EQ(sb.block_size, (Point{16, 8}));
}

TEST(Regions, ParameterDivisorMustBePositive) {
  KernelSignature sig = arrays({{"A", 1}});
  sig.add_scalar("d", DataType::kInt32);
  Regions r("global i => read A[i / d]", sig, 1);
  r.extent(0, {10}).scalar(1, 0);
  EXPECT_EQ(annotation_error([&] { r.per_array(box({0}, {4}), {4}); }),
            "annotation:1:22: divisor evaluates to 0; divisors must be positive\n"
            "global i => read A[i / d]\n"
            "                     ^");
  r.scalar(1, 3);
  EXPECT_EQ(r.per_array(box({0}, {7}), {4})[0].region, box({0}, {3}));
}

TEST(Regions, OverflowIsAnErrorNotAWrongRegion) {
  KernelSignature sig = arrays({{"A", 1}});
  Regions r("global i => read A[i * 4611686018427387904]", sig, 1);
  r.extent(0, {10});
  const std::string msg = annotation_error([&] { r.per_array(box({0}, {4}), {4}); });
  EXPECT_EQ(msg.rfind("annotation:1:13: index arithmetic of this rule overflows", 0), 0u) << msg;
}

TEST(Regions, RejectsBadInputs) {
  Regions r("global i => read A[i]", arrays({{"A", 1}}), 1);
  r.extent(0, {10});
  auto kind = [&](Rect threads, Point block) {
    try {
      r.per_array(threads, block);
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::kInternal;
  };
  EXPECT_EQ(kind(box({0}, {0}), {4}), ErrorKind::kInvalidArgument);           // empty
  EXPECT_EQ(kind(box({0}, {4}), {0}), ErrorKind::kInvalidArgument);           // block size
  EXPECT_EQ(kind(box({0, 0}, {4, 4}), {4, 4}), ErrorKind::kInvalidArgument);  // rank
  EXPECT_EQ(kind(box({-4}, {4}), {4}), ErrorKind::kInvalidArgument);          // negative
  Regions wrong_extent("global i => read A[i]", arrays({{"A", 1}}), 1);
  wrong_extent.extent(0, {10, 10});
  EXPECT_THROW(wrong_extent.per_array(box({0}, {4}), {4}), Error);
}

}  // namespace
}  // namespace lightning::annotation
