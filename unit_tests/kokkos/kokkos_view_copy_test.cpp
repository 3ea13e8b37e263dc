// deep_copy between lightning::Views (and boxes of them) of any two distributions and layouts,
// Kokkos::resize and Kokkos::realloc, against the same operations on Kokkos' host space, over
// random shapes and distributions; and the mistakes they refuse.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>

#include "kokkos_test_kernels.hpp"

namespace {

using lk_test::error_of;
using lk_test::KView;
using lk_test::LView;
using lk_test::to_host;
using Left = Kokkos::LayoutLeft;

using lk_test::uniform;

/// One of the distributions of an array whose first axis has `n` elements: blocks, rows (for
/// 2-D and 3-D), block-cyclic ones, or the default.
lightning::DataDistribution random_distribution(std::mt19937& rng, int rank, int n) {
  switch (uniform(rng, 0, 3)) {
    case 0:
      return lightning::dist::block(uniform(rng, 1, n));
    case 1:
      return rank > 1 ? lightning::dist::rows(uniform(rng, 1, n))
                      : lightning::dist::block_cyclic(uniform(rng, 1, n));
    case 2:
      return lightning::dist::block_cyclic(uniform(rng, 1, n));
    default:
      return lightning::dist::block(n);  // one chunk
  }
}

TEST(KokkosViewCopy, WholeViewsOfEveryRankLayoutAndDistribution) {
  std::mt19937 rng(83);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 300), m = uniform(rng, 1, 20), k = uniform(rng, 1, 5);
    SCOPED_TRACE("n " + std::to_string(n) + ", m " + std::to_string(m));
    // Rank 1, int64.
    KView<int64_t*> h1("h1", n);
    for (int i = 0; i < n; ++i) h1(i) = uniform(rng, -1000, 1000);
    LView<int64_t*> a1("a1", n, random_distribution(rng, 1, n)),
        b1("b1", n, random_distribution(rng, 1, n));
    Kokkos::deep_copy(a1, h1);
    Kokkos::deep_copy(b1, lightning::View<const int64_t*>(a1));  // from const elements
    const auto g1 = to_host(b1);
    for (int i = 0; i < n; ++i) ASSERT_EQ(g1(i), h1(i)) << i;

    // Rank 2, from row-major into column-major and back.
    KView<double**> h2("h2", n, m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) h2(i, j) = i * 1000 + j;
    LView<double**> a2("a2", n, m, random_distribution(rng, 2, n));
    lightning::View<double**, Left> left("left", n, m, random_distribution(rng, 2, n));
    LView<double**> b2("b2", n, m, random_distribution(rng, 2, n));
    Kokkos::deep_copy(a2, h2);
    Kokkos::deep_copy(left, a2);
    Kokkos::deep_copy(b2, left);
    const auto g2 = to_host(b2);
    const auto gl = to_host(left);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) {
        ASSERT_EQ(gl(i, j), h2(i, j)) << i << ", " << j;
        ASSERT_EQ(g2(i, j), h2(i, j)) << i << ", " << j;
      }

    // Rank 3, float.
    KView<float***> h3("h3", n, m, k);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j)
        for (int l = 0; l < k; ++l) h3(i, j, l) = static_cast<float>(i - j * l);
    LView<float***> a3("a3", n, m, k, random_distribution(rng, 3, n)),
        b3("b3", n, m, k, random_distribution(rng, 3, n));
    Kokkos::deep_copy(a3, h3);
    Kokkos::deep_copy(b3, a3);
    const auto g3 = to_host(b3);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j)
        for (int l = 0; l < k; ++l) ASSERT_EQ(g3(i, j, l), h3(i, j, l));
  }
}

/// A vector-type element (lightning::float2 ...) of random integer lanes, exact in any lane type.
template <class T>
T random_vector(std::mt19937& rng) {
  using Lane = decltype(T::x);
  Lane lanes[sizeof(T) / sizeof(Lane)];
  for (Lane& lane : lanes) lane = static_cast<Lane>(uniform(rng, -1000, 1000));
  T v;
  std::memcpy(static_cast<void*>(&v), lanes, sizeof v);
  return v;
}

template <class T>
bool same_lanes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Vector elements through host mirrors and View-to-View copies between random distributions
/// and layouts.
template <class T>
void copy_vector_elements(std::mt19937& rng) {
  const int n = uniform(rng, 1, 300), m = uniform(rng, 1, 12);
  SCOPED_TRACE(std::to_string(sizeof(T)) + "-byte elements, n " + std::to_string(n) + ", m " +
               std::to_string(m));
  // Rank 1: host -> a -> b (another distribution) -> a host mirror; then a fill, copied on.
  KView<T*> h1("h1", n);
  for (int i = 0; i < n; ++i) h1(i) = random_vector<T>(rng);
  LView<T*> a1("a1", n, random_distribution(rng, 1, n)),
      b1("b1", n, random_distribution(rng, 1, n));
  Kokkos::deep_copy(a1, h1);
  Kokkos::deep_copy(b1, a1);
  const auto mirror = Kokkos::create_mirror_view(b1);
  Kokkos::deep_copy(mirror, b1);
  for (int i = 0; i < n; ++i) ASSERT_TRUE(same_lanes(mirror(i), h1(i))) << i;
  const T fill = random_vector<T>(rng);
  Kokkos::deep_copy(a1, fill);
  Kokkos::deep_copy(b1, a1);
  const auto filled = to_host(b1);
  for (int i = 0; i < n; ++i) ASSERT_TRUE(same_lanes(filled(i), fill)) << i;

  // Rank 2: row-major into column-major of another distribution and back, through a host
  // mirror of the column-major View that is changed and copied back.
  KView<T**> h2("h2", n, m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) h2(i, j) = random_vector<T>(rng);
  LView<T**> a2("a2", n, m, random_distribution(rng, 2, n));
  lightning::View<T**, Left> left("left", n, m, random_distribution(rng, 2, n));
  Kokkos::deep_copy(a2, h2);
  Kokkos::deep_copy(left, a2);
  auto left_mirror = Kokkos::create_mirror_view(left);
  Kokkos::deep_copy(left_mirror, left);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      ASSERT_TRUE(same_lanes(left_mirror(i, j), h2(i, j))) << i << ", " << j;
      h2(i, j) = left_mirror(i, j) = random_vector<T>(rng);
    }
  Kokkos::deep_copy(left, left_mirror);
  Kokkos::deep_copy(a2, left);
  const auto g2 = to_host(a2);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) ASSERT_TRUE(same_lanes(g2(i, j), h2(i, j))) << i << ", " << j;
}

TEST(KokkosViewCopy, VectorElementTypesOfEveryKindAcrossDistributionsAndMirrors) {
  std::mt19937 rng(101);
  for (int round = 0; round < 2; ++round) {
    copy_vector_elements<lightning::int2>(rng);
    copy_vector_elements<lightning::int4>(rng);
    copy_vector_elements<lightning::uint2>(rng);
    copy_vector_elements<lightning::uint4>(rng);
    copy_vector_elements<lightning::float2>(rng);
    copy_vector_elements<lightning::float3>(rng);
    copy_vector_elements<lightning::float4>(rng);
    copy_vector_elements<lightning::double2>(rng);
    copy_vector_elements<lightning::double3>(rng);
  }
}

TEST(KokkosViewCopy, BoxesOfViewsAndOfOneView) {
  std::mt19937 rng(89);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 2, 200), m = uniform(rng, 2, 30);
    KView<int**> h("h", n, m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) h(i, j) = i * 100 + j;
    LView<int**> a("a", n, m, random_distribution(rng, 2, n));
    lightning::View<int**, Left> b("b", n, m, random_distribution(rng, 2, n));
    Kokkos::deep_copy(a, h);
    Kokkos::deep_copy(b, -1);
    KView<int**> want("want", n, m);
    Kokkos::deep_copy(want, -1);

    // A box of a into another place of b, and a whole View into a box of the same extents.
    const int rows = uniform(rng, 1, n - 1), cols = uniform(rng, 1, m - 1);
    const int si = uniform(rng, 0, n - rows), sj = uniform(rng, 0, m - cols);
    const int di = uniform(rng, 0, n - rows), dj = uniform(rng, 0, m - cols);
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + " from (" +
                 std::to_string(si) + ", " + std::to_string(sj) + ") to (" + std::to_string(di) +
                 ", " + std::to_string(dj) + ")");
    Kokkos::deep_copy(
        Kokkos::subview(b, std::make_pair(di, di + rows), std::make_pair(dj, dj + cols)),
        Kokkos::subview(a, std::make_pair(si, si + rows), std::make_pair(sj, sj + cols)));
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) want(di + i, dj + j) = h(si + i, sj + j);
    const auto gb = to_host(b);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) ASSERT_EQ(gb(i, j), want(i, j)) << i << ", " << j;

    // Rows of one View to other rows of it (boxes that do not meet).
    const int half = n / 2;
    Kokkos::deep_copy(Kokkos::subview(a, std::make_pair(half, 2 * half), Kokkos::ALL),
                      Kokkos::subview(a, std::make_pair(0, half), Kokkos::ALL));
    const auto ga = to_host(a);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) {
        const int from = i >= half && i < 2 * half ? i - half : i;
        ASSERT_EQ(ga(i, j), h(from, j)) << i << ", " << j;
      }
    LView<int*> column("column", n);
    Kokkos::deep_copy(Kokkos::subview(column, std::make_pair(0, n)), column);  // the same box
  }
}

TEST(KokkosViewCopy, MistakesAreErrorsThatNameTheViews) {
  LView<double*> a("a", 10), b("b", 11);
  Kokkos::deep_copy(a, 1.0);
  std::string error = error_of([&] { Kokkos::deep_copy(b, a); });
  EXPECT_NE(error.find("extents differ: lightning::View 'b' (11), lightning::View 'a' (10)"),
            std::string::npos)
      << error;
  error = error_of([&] {
    Kokkos::deep_copy(Kokkos::subview(a, std::make_pair(2, 6)),
                      Kokkos::subview(a, std::make_pair(4, 8)));
  });
  EXPECT_NE(error.find("deep_copy within lightning::View 'a': the boxes [2, 6) (destination) and "
                       "[4, 8) (source) overlap"),
            std::string::npos)
      << error;
  // The runtime stays usable.
  Kokkos::deep_copy(Kokkos::subview(b, std::make_pair(1, 11)), a);
  Kokkos::deep_copy(Kokkos::subview(b, std::make_pair(0, 1)), 3.0);
  const auto gb = to_host(b);
  EXPECT_EQ(gb(0), 3.0);
  EXPECT_EQ(gb(10), 1.0);
}

TEST(KokkosViewCopy, ResizeKeepsTheCommonElementsAndReallocDoesNot) {
  std::mt19937 rng(97);
  for (int round = 0; round < 5; ++round) {
    const int n = uniform(rng, 1, 200), m = uniform(rng, 1, 12);
    const int n2 = uniform(rng, 1, 250), m2 = uniform(rng, 1, 15);
    SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(m) + " to " + std::to_string(n2) +
                 " x " + std::to_string(m2));
    KView<double**> h("h", n, m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) h(i, j) = 1 + i * 100 + j;
    lightning::View<double**, Left> v("v", n, m, lightning::dist::rows(uniform(rng, 1, n)));
    Kokkos::deep_copy(v, h);
    const auto old = v;
    KView<double**> want = h;
    Kokkos::resize(want, n2, m2);
    Kokkos::resize(v, n2, m2);
    EXPECT_EQ(v.extent(0), static_cast<std::size_t>(n2));
    EXPECT_EQ(v.extent(1), static_cast<std::size_t>(m2));
    EXPECT_EQ(v.label(), "v");
    const auto got = to_host(v);
    for (int i = 0; i < n2; ++i)
      for (int j = 0; j < m2; ++j) ASSERT_EQ(got(i, j), want(i, j)) << i << ", " << j;
    EXPECT_EQ(to_host(old)(n - 1, m - 1), h(n - 1, m - 1)) << "other Views keep the old array";

    LView<int64_t*> r("r", n);
    Kokkos::deep_copy(r, int64_t{5});
    Kokkos::realloc(r, n2);
    const auto gr = to_host(r);
    ASSERT_EQ(gr.extent(0), static_cast<std::size_t>(n2));
    for (int i = 0; i < n2; ++i) ASSERT_EQ(gr(i), 0) << i;
    Kokkos::resize(Kokkos::WithoutInitializing, r, n2 + 3);
    Kokkos::deep_copy(Kokkos::subview(r, std::make_pair(n2, n2 + 3)), int64_t{7});
    EXPECT_EQ(to_host(r)(n2 + 2), 7);
  }
  LView<float*> unallocated;
  Kokkos::resize(unallocated, 4);
  Kokkos::deep_copy(unallocated, 2.0f);
  EXPECT_EQ(to_host(unallocated)(3), 2.0f);
}

}  // namespace
