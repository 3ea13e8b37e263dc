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

// Every field a binding depends on, varied one at a time from a base case: each variant is a
// binding of its own, and an equal copy held elsewhere finds it again. With all hashes equal,
// only the comparison of the fields tells the variants apart.
struct BindCase {
  std::string text = "global [i, j] => read A[i, j], write B[i + K]";
  KernelSignature signature;
  int launch_rank = 2;
  LaunchKind kind = LaunchKind::kThreads;
};

BindCase base_case() {
  BindCase c;
  c.signature.add_array("A", DataType::kFloat32, 2).add_array("B", DataType::kFloat32, 1);
  c.signature.add_scalar("n", DataType::kInt64).add_constant("K", 3);
  return c;
}

std::vector<BindCase> bind_variants() {
  std::vector<BindCase> v{base_case()};
  auto vary = [&v](auto&& change) {
    BindCase c = base_case();
    change(c);
    v.push_back(std::move(c));
  };
  vary([](BindCase& c) { c.text = "global [i, j] => read A[i, j], write B[i + K] "; });
  vary([](BindCase& c) { c.signature.params[2].name = "m"; });
  vary([](BindCase& c) { c.signature.params[2].type = DataType::kInt32; });
  vary([](BindCase& c) { c.signature.params[0].type = DataType::kFloat64; });
  vary([](BindCase& c) { c.signature.params[0].axes_reversed = true; });
  vary([](BindCase& c) {  // B a scalar of the same type, the array called C
    c.signature.params[1] = {"B", false, DataType::kInt64, 0};
    c.signature.params.push_back({"C", true, DataType::kFloat32, 1});
    c.text = "global [i, j] => read A[i, j], write C[i + B + K]";
  });
  vary([](BindCase& c) { c.signature.params.push_back({"C", true, DataType::kFloat32, 1}); });
  vary([](BindCase& c) {
    c.signature.constants[0].name = "L";
    c.signature.add_constant("K", 3);
  });
  vary([](BindCase& c) { c.signature.constants[0].value = 4; });
  vary([](BindCase& c) { c.signature.arrays_shared = true; });
  vary([](BindCase& c) {
    c.launch_rank = 3;
    c.text = "global [i, j, k] => read A[i, j], write B[i + K]";
  });
  vary([](BindCase& c) {
    c.kind = LaunchKind::kTeams;
    c.launch_rank = 1;
    c.text = "block b => read A[b, :], write B[b + K]";
  });
  return v;
}

void expect_one_binding_per_variant(AnnotationCache& cache) {
  const std::vector<BindCase> variants = bind_variants();
  std::vector<const BoundAnnotation*> bound;
  for (const BindCase& c : variants) {
    bound.push_back(&cache.bind(c.text, c.signature, c.launch_rank, c.kind));
    EXPECT_EQ(bound.back()->text(), c.text);
    EXPECT_EQ(bound.back()->signature(), c.signature);
    EXPECT_EQ(bound.back()->launch_rank(), c.launch_rank);
    EXPECT_EQ(bound.back()->launch_kind(), c.kind);
  }
  EXPECT_EQ(cache.bound_count(), variants.size());
  const std::vector<BindCase> copies = bind_variants();  // equal, held elsewhere
  for (size_t i = 0; i < copies.size(); ++i) {
    const BindCase& c = copies[i];
    EXPECT_EQ(&cache.bind(c.text, c.signature, c.launch_rank, c.kind), bound[i]) << "variant " << i;
  }
  EXPECT_EQ(cache.bound_count(), variants.size());
}

TEST(AnnotationCache, EveryFieldOfTheBindingTellsBindingsApart) {
  AnnotationCache cache;
  expect_one_binding_per_variant(cache);
}

TEST(AnnotationCache, BindingsWithEqualHashesAreToldApartByTheirFields) {
  AnnotationCache cache = AnnotationCache::with_colliding_hashes_for_testing();
  expect_one_binding_per_variant(cache);
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
