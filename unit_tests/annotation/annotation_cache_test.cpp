#include "annotation/annotation_cache.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace lightning::annotation {
namespace {

KernelSignature sig(int rank_of_a) {
  KernelSignature s;
  s.add_array("A", DataType::kFloat32, rank_of_a);
  return s;
}

TEST(AnnotationCache, ParsesEachTextOnce) {
  AnnotationCache cache;
  const Annotation& a = cache.parse("global i => read A[i]");
  const Annotation& b = cache.parse("global i => read A[i]");
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(cache.parsed_count(), 1u);
  cache.parse("global i => write A[i]");
  EXPECT_EQ(cache.parsed_count(), 2u);
  EXPECT_EQ(&cache.parse("global i => read A[i]"), &a);  // stable across insertions
}

TEST(AnnotationCache, BindsPerSignatureAndLaunchRank) {
  AnnotationCache cache;
  const char* text = "global i => read A[i]";
  const BoundAnnotation& one = cache.bind(text, sig(1), 1);
  EXPECT_EQ(&cache.bind(text, sig(1), 1), &one);
  EXPECT_NE(&cache.bind(text, sig(1), 2), &one);
  EXPECT_EQ(cache.bound_count(), 2u);
  EXPECT_EQ(cache.parsed_count(), 1u);  // one parse serves both
  KernelSignature renamed;
  renamed.add_array("A", DataType::kFloat64, 1);
  EXPECT_NE(&cache.bind(text, renamed, 1), &one);
  EXPECT_EQ(cache.bound_count(), 3u);
  // The same names and types stored column-major bind differently (regions in storage order).
  KernelSignature matrix, column_major;
  matrix.add_array("A", DataType::kFloat64, 2);
  column_major.add_array("A", DataType::kFloat64, 2, /*axes_reversed=*/true);
  const char* text2 = "global [i, j] => read A[i, j]";
  EXPECT_NE(&cache.bind(text2, matrix, 2), &cache.bind(text2, column_major, 2));
  EXPECT_EQ(cache.bound_count(), 5u);
  // A team launch of the same rank is another binding.
  const char* teams = "block b => read A[b]";
  EXPECT_NE(&cache.bind(teams, sig(1), 1, LaunchKind::kTeams), &cache.bind(teams, sig(1), 1));
  EXPECT_EQ(cache.bind(teams, sig(1), 1, LaunchKind::kTeams).launch_kind(), LaunchKind::kTeams);
  EXPECT_EQ(cache.bound_count(), 7u);
}

TEST(AnnotationCache, DoesNotCacheFailures) {
  AnnotationCache cache;
  EXPECT_THROW(cache.parse("global i => read A[i"), Error);
  EXPECT_THROW(cache.bind("global i => read A[i]", sig(2), 1), Error);
  EXPECT_THROW(cache.bind("global i => read A[i]", sig(2), 1), Error);
  EXPECT_EQ(cache.bound_count(), 0u);
  EXPECT_EQ(cache.parsed_count(), 1u);  // the text parsed fine; binding failed
}

}  // namespace
}  // namespace lightning::annotation
