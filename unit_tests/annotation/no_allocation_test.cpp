// Region evaluation runs for every superblock of every launch: it must not allocate (the
// binary counts allocations: support/allocation_count.cpp).
#include <gtest/gtest.h>

#include "../support/allocation_count.hpp"
#include "annotation/annotation_cache.hpp"
#include "annotation/parser.hpp"
#include "annotation/region_evaluator.hpp"

namespace lightning::annotation {
namespace {

TEST(RegionEvaluation, DoesNotAllocate) {
  KernelSignature sig;
  sig.add_array("A", DataType::kFloat32, 2)
      .add_array("B", DataType::kFloat32, 2)
      .add_array("s", DataType::kFloat64, 1)
      .add_scalar("n", DataType::kInt64);
  const BoundAnnotation bound = BoundAnnotation::bind(
      parse_annotation("global [i, j], block [bi, _] => read A[i-1:i+1, :], read A[:, j / n], "
                       "write B[bi * 4 + j, (i + j) / 2 - n], reduce(+) s[i]"),
      sig, 2);
  LaunchArguments args;
  args.scalars = {0, 0, 0, 3};
  args.extents = {Point{100, 100}, Point{100, 100}, Point{100}, Point()};
  ASSERT_EQ(bound.arrays().size(), 3u);
  ASSERT_EQ(bound.rules().size(), 4u);
  AccessRegion per_array[3], per_rule[4];
  ASSERT_TRUE(lightning::testing::allocations_are_counted());
  const long before = lightning::testing::allocations_on_this_thread();
  for (int64_t k = 0; k < 100; ++k) {
    const ThreadBox sb{Rect({5 + k, 7}, {37 + k, 61}), Point{8, 16}};
    evaluate_regions(bound, sb, args, per_array);
    evaluate_rule_regions(bound, sb, args, per_rule);
  }
  EXPECT_EQ(lightning::testing::allocations_on_this_thread(), before);
  // The last superblock: the halo rule falls outside A, the column rule gives [2, 21).
  EXPECT_EQ(per_array[0].region, Rect({0, 2}, {100, 21}));
}

// Every launch looks its binding up again (a lambda's description is rebuilt each time).
TEST(AnnotationCache, FindingABindingAgainDoesNotAllocate) {
  KernelSignature sig;
  sig.add_array("x", DataType::kFloat32, 1)
      .add_array("y", DataType::kFloat32, 1)
      .add_scalar("a_scalar_with_a_name_too_long_for_short_strings", DataType::kFloat32)
      .add_constant("K", 2);
  const std::string text =
      "global i => read x[i], read y[i * K / 2], write y[i * K / 2], read x[(i + 1) * K / 2]";
  AnnotationCache cache;
  const BoundAnnotation& first = cache.bind(text, sig, 1);
  ASSERT_TRUE(lightning::testing::allocations_are_counted());
  const long before = lightning::testing::allocations_on_this_thread();
  for (int k = 0; k < 100; ++k) EXPECT_EQ(&cache.bind(text, sig, 1), &first);
  EXPECT_EQ(lightning::testing::allocations_on_this_thread(), before);
}

}  // namespace
}  // namespace lightning::annotation
