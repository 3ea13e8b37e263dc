// Work tags on lightning::Distributed: a functor's operators picked by the policy's tag, each
// with its own annotation, in parallel_for, parallel_reduce and parallel_scan over RangePolicy
// and MDRangePolicy, against the same launches on Kokkos' host space, over random sizes,
// data distributions and work distributions.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "kokkos_test_kernels.hpp"

namespace {

using lk_test::Exec;
using lk_test::Host;
using lk_test::KView;
using lk_test::LView;
using lk_test::random_space;
using lk_test::uniform;

/// The phases of lk_test::Phases on `Space`: fill, smooth, weighted sum, prefix, and the
/// untagged doubling; returns {weighted sum, prefix total} and leaves y as the prefix
/// (then doubled x) left it, in `smoothed` what the smoothing wrote.
template <class Space, class X, class Y>
std::pair<int64_t, int64_t> run_phases(const Space& space, const X& x, const Y& y, int64_t shift,
                                       const Y& smoothed) {
  using Functor = lk_test::Phases<X, Y>;
  const int64_t n = static_cast<int64_t>(x.extent(0));
  Kokkos::parallel_for("fill", Kokkos::RangePolicy<Space, lk_test::FillTag>(space, 0, n),
                       Functor{x, y, shift});
  Kokkos::parallel_for("smooth", Kokkos::RangePolicy<Space, lk_test::tags::Smooth>(space, 1, n - 1),
                       Functor{x, smoothed, shift});
  int64_t weighted = 0;
  Kokkos::parallel_reduce(
      "weighted", Kokkos::RangePolicy<Space, typename Functor::WeightedSum>(space, 1, n - 1),
      Functor{x, smoothed, shift}, weighted);
  int64_t total = 0;
  Kokkos::parallel_scan("prefix", Kokkos::RangePolicy<Space, typename Functor::Prefix>(space, 0, n),
                        Functor{x, y, shift}, total);
  return {weighted, total};
}

TEST(KokkosWorkTag, EachTagRunsItsOperatorUnderItsAnnotation) {
  std::mt19937 rng(71);
  for (int round = 0; round < 5; ++round) {
    const int n = uniform(rng, 3, 4000);
    const int64_t shift = uniform(rng, 0, 10);
    SCOPED_TRACE("n " + std::to_string(n));
    KView<int64_t*> hx("x", n), hy("y", n), hs("smoothed", n);
    const auto want = run_phases(Host(), hx, hy, shift, hs);

    LView<int64_t*> x("x", n, lightning::dist::block(uniform(rng, 1, n)));
    LView<int64_t*> y("y", n, lightning::dist::block_cyclic(uniform(rng, 1, n)));
    LView<int64_t*> s("smoothed", n, lightning::dist::block(uniform(rng, 1, n)));
    const auto got = run_phases(random_space(rng, n), x, y, shift, s);
    EXPECT_EQ(got.first, want.first) << "the weighted sum";
    EXPECT_EQ(got.second, want.second) << "the prefix's total";
    const auto gx = lk_test::to_host(x), gy = lk_test::to_host(y), gs = lk_test::to_host(s);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(gx(i), hx(i)) << "fill, at " << i;
      ASSERT_EQ(gy(i), hy(i)) << "prefix, at " << i;
      if (i > 0 && i < n - 1) {
        ASSERT_EQ(gs(i), hs(i)) << "smooth, at " << i;
      }
    }

    // The untagged operator of the same functor, under the kernel's own annotation.
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(random_space(rng, n), 0, n),
                         lk_test::Phases<LView<int64_t*>, LView<int64_t*>>{x, y, shift});
    const auto doubled = lk_test::to_host(y);
    for (int i = 0; i < n; ++i) ASSERT_EQ(doubled(i), 2 * hx(i)) << "untagged, at " << i;
  }
}

TEST(KokkosWorkTag, MDRangeTagsPickTheOperatorsOfTwoAxes) {
  std::mt19937 rng(73);
  for (int round = 0; round < 4; ++round) {
    const int rows = uniform(rng, 1, 90), cols = uniform(rng, 1, 90);
    const int64_t floor = uniform(rng, 0, 22);
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    using HostGrid = lk_test::GridPhases<KView<int64_t**>>;
    using Grid = lk_test::GridPhases<LView<int64_t**>>;
    KView<int64_t**> ha("a", rows, cols);
    Kokkos::parallel_for(
        Kokkos::MDRangePolicy<Host, Kokkos::Rank<2>, HostGrid::Mark>({0, 0}, {rows, cols}),
        HostGrid{ha, floor});
    int64_t want = 0;
    Kokkos::parallel_reduce(
        Kokkos::MDRangePolicy<Host, Kokkos::Rank<2>, HostGrid::CountAbove>({0, 0}, {rows, cols}),
        HostGrid{ha, floor}, want);

    LView<int64_t**> a("a", rows, cols, lightning::dist::rows(uniform(rng, 1, rows)));
    const Exec space = random_space(rng, rows);
    Kokkos::parallel_for(
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Grid::Mark>(space, {0, 0}, {rows, cols}),
        Grid{a, floor});
    int64_t got = 0;
    Kokkos::parallel_reduce(
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>, Grid::CountAbove>(space, {0, 0}, {rows, cols}),
        Grid{a, floor}, got);
    EXPECT_EQ(got, want);
    const auto ga = lk_test::to_host(a);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) ASSERT_EQ(ga(i, j), ha(i, j)) << i << ", " << j;
  }
}

TEST(KokkosWorkTag, EveryTagIsItsOwnKernelNamedAfterIt) {
  using Functor = lk_test::Phases<LView<int64_t*>, LView<int64_t*>>;
  const std::string fill = lightning::kernel_registration<Functor, lk_test::FillTag>().name;
  const std::string smooth = lightning::kernel_registration<Functor, lk_test::tags::Smooth>().name;
  const std::string untagged = lightning::kernel_registration<Functor>().name;
  EXPECT_EQ(fill, untagged + " [lk_test::FillTag]");
  EXPECT_EQ(smooth, untagged + " [lk_test::tags::Smooth]");
  const auto fill_id = lightning::kernel_registration<Functor, lk_test::FillTag>().id;
  EXPECT_FALSE(fill_id == lightning::kernel_registration<Functor>().id);
}

}  // namespace
