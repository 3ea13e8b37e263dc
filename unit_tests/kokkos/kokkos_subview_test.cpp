// Kokkos::subview of lightning::Views: inside kernels (functors and lambdas: integer indices
// that drop an axis, ranges, ALL, subviews of subviews, rank 0, LayoutLeft, a View copied in
// the kernel) against the same kernels on Kokkos' host space, over random shapes and
// distributions; deep_copy and mirrors of subviews that drop axes; and the mistakes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>

#include "kokkos_lambda_programs.hpp"
#include "kokkos_test_kernels.hpp"

namespace {

using lk_test::distributed_copy;
using lk_test::error_of;
using lk_test::Exec;
using lk_test::Host;
using lk_test::KView;
using lk_test::LView;
using lk_test::random_space;
using lk_test::to_host;
using lk_test::uniform;
using Left = Kokkos::LayoutLeft;

TEST(KokkosSubview, InsideFunctorsMatchesTheHostSpaceOverRandomShapes) {
  std::mt19937 rng(71);
  for (int round = 0; round < 5; ++round) {
    const int n = uniform(rng, 3, 700), cols = uniform(rng, 1, 30), depth = uniform(rng, 1, 6);
    SCOPED_TRACE("n " + std::to_string(n) + ", cols " + std::to_string(cols) + ", depth " +
                 std::to_string(depth));
    const auto dist = [&] { return lightning::dist::block(uniform(rng, 1, n)); };

    // A row (integer index) and a range of x.
    KView<double**> hm("m", n, cols);
    KView<double*> hx("x", cols + uniform(rng, 0, 5)), hy("y", n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < cols; ++j) hm(i, j) = (i * 7 + j * 3) % 17 - 8;
    for (std::size_t j = 0; j < hx.extent(0); ++j) hx(j) = 0.5 * (static_cast<int>(j) % 9);
    const auto m = distributed_copy(hm, dist());
    const auto x = distributed_copy(hx, lightning::dist::block(uniform(rng, 1, cols)));
    LView<double*> y("y", n, dist());
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Exec>(random_space(rng, n), 0, n),
        lk_test::RowDot<LView<const double**>, LView<const double*>, LView<double*>>{m, x, y,
                                                                                     cols});
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Host>(0, n),
        lk_test::RowDot<KView<const double**>, KView<const double*>, KView<double*>>{hm, hx, hy,
                                                                                     cols});
    const auto y_back = to_host(y);
    for (int i = 0; i < n; ++i) ASSERT_EQ(y_back(i), hy(i)) << i;

    // A window at an offset, through a copy of the View made inside the kernel.
    KView<int64_t*> hin("in", n), hout("out", n);
    for (int i = 0; i < n; ++i) hin(i) = (i * 13) % 29 - 14;
    const auto in = distributed_copy(hin, dist());
    LView<int64_t*> out("out", n, dist());
    Kokkos::deep_copy(out, int64_t{0});
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(random_space(rng, n), 1, n - 1),
                         lk_test::Window<LView<const int64_t*>, LView<int64_t*>>{in, out});
    Kokkos::parallel_for(Kokkos::RangePolicy<Host>(1, n - 1),
                         lk_test::Window<KView<const int64_t*>, KView<int64_t*>>{hin, hout});
    const auto out_back = to_host(out);
    for (int i = 0; i < n; ++i) ASSERT_EQ(out_back(i), hout(i)) << i;

    // Rank 3 to 2 to 1, and rank 0, writing through a subview.
    KView<int64_t***> ht("t", n, depth, cols);
    KView<int64_t**> hp("p", n, cols);
    for (int i = 0; i < n; ++i)
      for (int d = 0; d < depth; ++d)
        for (int j = 0; j < cols; ++j) ht(i, d, j) = i - 3 * d + j * j;
    const auto t = distributed_copy(ht, dist());
    LView<int64_t**> p("p", n, cols, dist());
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(random_space(rng, n), 0, n),
                         lk_test::PlaneColumns<LView<const int64_t***>, LView<int64_t**>>{t, p});
    Kokkos::parallel_for(Kokkos::RangePolicy<Host>(0, n),
                         lk_test::PlaneColumns<KView<const int64_t***>, KView<int64_t**>>{ht, hp});
    const auto p_back = to_host(p);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < cols; ++j) ASSERT_EQ(p_back(i, j), hp(i, j)) << i << ", " << j;

    // Columns of a LayoutLeft matrix (a range and an index).
    Kokkos::View<float**, Left, Kokkos::HostSpace> hl("l", n, cols);
    KView<float*> hs("s", cols);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < cols; ++j) hl(i, j) = static_cast<float>((i + 2 * j) % 7);
    const auto l = distributed_copy<float**, Left>(
        hl, lightning::dist::block(uniform(rng, 1, cols)));  // blocks of columns
    LView<float*> s("s", cols, lightning::dist::block(uniform(rng, 1, cols)));
    const int64_t first = uniform(rng, 0, n - 1), last = uniform(rng, static_cast<int>(first), n);
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(random_space(rng, cols), 0, cols),
                         lk_test::ColumnSums<lightning::View<const float**, Left>, LView<float*>>{
                             l, s, first, last});
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Host>(0, cols),
        lk_test::ColumnSums<Kokkos::View<const float**, Left, Kokkos::HostSpace>, KView<float*>>{
            hl, hs, first, last});
    const auto s_back = to_host(s);
    for (int j = 0; j < cols; ++j) ASSERT_EQ(s_back(j), hs(j)) << j;
  }
}

TEST(KokkosSubview, InsideLambdasMatchesTheHostSpace) {
  std::mt19937 rng(73);
  for (int round = 0; round < 3; ++round) {
    const int n = uniform(rng, 1, 900), cols = uniform(rng, 1, 25);
    KView<double**> hm("m", n, cols);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < cols; ++j) hm(i, j) = (i + j) % 5 - 2;
    const auto m = distributed_copy(hm, lightning::dist::block(uniform(rng, 1, n)));
    LView<double*> s("s", n, lightning::dist::block(uniform(rng, 1, n)));
    KView<double*> hs("s", n);
    lk_lambda::row_squares<Exec>(m, s, cols);
    lk_lambda::row_squares<Host>(hm, hs, cols);
    const auto s_back = to_host(s);
    for (int i = 0; i < n; ++i) ASSERT_EQ(s_back(i), hs(i)) << i;
  }
}

TEST(KokkosSubview, DeepCopiesSubviewsThatDropAxes) {
  std::mt19937 rng(79);
  for (int round = 0; round < 4; ++round) {
    const int n = uniform(rng, 2, 200), m = uniform(rng, 2, 20), k = uniform(rng, 1, 4);
    SCOPED_TRACE("n " + std::to_string(n) + ", m " + std::to_string(m));
    KView<int64_t**> ha("a", n, m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) ha(i, j) = i * 100 + j;
    const auto a = distributed_copy(ha, lightning::dist::block(uniform(rng, 1, n)));
    const int row = uniform(rng, 0, n - 1), col = uniform(rng, 0, m - 1);

    // A row and a column into host Views, and a mirror of a row.
    KView<int64_t*> hrow("row", m), hcol("col", n);
    Kokkos::deep_copy(hrow, Kokkos::subview(a, row, Kokkos::ALL));
    Kokkos::deep_copy(hcol, Kokkos::subview(a, Kokkos::ALL, col));
    for (int j = 0; j < m; ++j) ASSERT_EQ(hrow(j), ha(row, j)) << j;
    for (int i = 0; i < n; ++i) ASSERT_EQ(hcol(i), ha(i, col)) << i;
    const auto mirror = to_host(Kokkos::subview(a, row, Kokkos::make_pair(1, m)));
    static_assert(decltype(mirror)::rank == 1);
    ASSERT_EQ(mirror.extent(0), static_cast<std::size_t>(m - 1));
    for (int j = 1; j < m; ++j) ASSERT_EQ(mirror(j - 1), ha(row, j)) << j;

    // One element (rank 0), and a fill through an index.
    int64_t one = -1;
    Kokkos::deep_copy(one, Kokkos::subview(a, row, col));
    EXPECT_EQ(one, ha(row, col));
    LView<int64_t**> b("b", n, m, lightning::dist::block(uniform(rng, 1, n)));
    Kokkos::deep_copy(b, a);
    Kokkos::deep_copy(Kokkos::subview(b, Kokkos::ALL, col), int64_t{-7});
    Kokkos::deep_copy(Kokkos::subview(b, row, Kokkos::ALL), hrow);  // back into a row
    const auto b_back = to_host(b);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j)
        ASSERT_EQ(b_back(i, j), i == row ? ha(i, j) : j == col ? -7 : ha(i, j)) << i << ", " << j;

    // Between distributed Views: a row into a rank-1 View and a column into a row (through
    // the host), and a column into a column (a copy kernel).
    LView<int64_t*> v("v", m, lightning::dist::block(uniform(rng, 1, m)));
    Kokkos::deep_copy(v, Kokkos::subview(a, row, Kokkos::ALL));
    const auto v_back = to_host(v);
    for (int j = 0; j < m; ++j) ASSERT_EQ(v_back(j), ha(row, j)) << j;
    LView<int64_t**> c("c", m, n, lightning::dist::block(uniform(rng, 1, m)));
    Kokkos::deep_copy(c, int64_t{0});
    Kokkos::deep_copy(Kokkos::subview(c, 0, Kokkos::ALL), Kokkos::subview(a, Kokkos::ALL, col));
    Kokkos::deep_copy(Kokkos::subview(c, Kokkos::ALL, n - 1), Kokkos::subview(a, row, Kokkos::ALL));
    const auto c_back = to_host(c);
    for (int i = 0; i + 1 < n; ++i) ASSERT_EQ(c_back(0, i), ha(i, col)) << i;
    for (int j = 0; j < m; ++j) ASSERT_EQ(c_back(j, n - 1), ha(row, j)) << j;
    Kokkos::deep_copy(Kokkos::subview(b, Kokkos::ALL, 0), Kokkos::subview(a, Kokkos::ALL, col));
    const auto b_column = to_host(Kokkos::subview(b, Kokkos::ALL, 0));
    for (int i = 0; i < n; ++i) ASSERT_EQ(b_column(i), ha(i, col)) << i;

    // Rank 3: a plane of a LayoutLeft array into a host LayoutLeft matrix and back.
    Kokkos::View<float***, Left, Kokkos::HostSpace> ht("t", n, m, k);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j)
        for (int l = 0; l < k; ++l) ht(i, j, l) = static_cast<float>(i - j + 10 * l);
    const auto t = distributed_copy<float***, Left>(ht, lightning::dist::block(k));
    const int plane = uniform(rng, 0, m - 1);
    Kokkos::View<float**, Left, Kokkos::HostSpace> hplane("plane", n, k);
    Kokkos::deep_copy(hplane, Kokkos::subview(t, Kokkos::ALL, plane, Kokkos::ALL));
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < k; ++l) ASSERT_EQ(hplane(i, l), ht(i, plane, l)) << i << ", " << l;
    KView<float**> hright("right", n, k);  // a LayoutRight host View of the same plane
    Kokkos::deep_copy(hright, Kokkos::subview(t, Kokkos::ALL, plane, Kokkos::ALL));
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < k; ++l) ASSERT_EQ(hright(i, l), ht(i, plane, l)) << i << ", " << l;
  }
}

TEST(KokkosSubview, AnIndexOutsideTheViewIsAnErrorNamingIt) {
  LView<double**> a("matrix", 10, 4);
  const std::string index = error_of([&] { (void)Kokkos::subview(a, 10, Kokkos::ALL); });
  EXPECT_NE(index.find("Kokkos::subview of lightning::View 'matrix': index 10 of axis 0 is "
                       "outside [0, 10)"),
            std::string::npos)
      << index;
  const std::string range =
      error_of([&] { (void)Kokkos::subview(a, Kokkos::ALL, Kokkos::make_pair(2, 5)); });
  EXPECT_NE(range.find("range [2, 5) of axis 1 is outside [0, 4)"), std::string::npos) << range;
  const auto row = Kokkos::subview(a, 3, Kokkos::ALL);
  const std::string inner = error_of([&] { (void)Kokkos::subview(row, Kokkos::make_pair(0, 5)); });
  EXPECT_NE(inner.find("range [0, 5) of axis 0 is outside [0, 4)"), std::string::npos) << inner;
  KView<double*> three("three", 3);
  const std::string copy =
      error_of([&] { Kokkos::deep_copy(three, Kokkos::subview(a, 1, Kokkos::ALL)); });
  EXPECT_NE(copy.find("matrix"), std::string::npos) << copy;
}

TEST(KokkosSubview, AnIndexOutsideTheViewInsideAKernelStopsTheLaunch) {
  if (lk_test::on_gpus()) GTEST_SKIP() << "GPU code does not check subviews, as Kokkos";
  const int n = 50;
  LView<int*> x("x", n, lightning::dist::block(7));
  const std::string error = error_of([&] {
    Kokkos::parallel_for("past the end", Kokkos::RangePolicy<Exec>(0, n),
                         lk_test::SubviewPastTheEnd<LView<int*>>{x});
  });
  EXPECT_NE(error.find("Kokkos::subview of"), std::string::npos) << error;
  EXPECT_NE(error.find("index 50 of axis 0 is outside [0, 50)"), std::string::npos) << error;
  // The runtime stays usable.
  Kokkos::deep_copy(x, 3);
  const auto back = to_host(x);
  for (int i = 0; i < n; ++i) ASSERT_EQ(back(i), 3) << i;
}

}  // namespace
