// Kokkos' array reductions (value_type T[] with value_count) and functor reductions whose
// init, join and final are ordinary members reading the functor's scalars, on
// lightning::Distributed against the same functors on Kokkos' host space: random sizes,
// counts and distributions, range and MD-range launches; into pointers and host Views; on
// GPUs the init and join inside LIGHTNING_KERNEL, outside it refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kokkos_test_kernels.hpp"

namespace lk_array_reduction {

using lk_test::Exec;
using lk_test::Host;
using lk_test::KView;
using lk_test::LView;
using lk_test::uniform;

// Kokkos 3 joins through volatile references; Kokkos 4 takes plain ones.
#if KOKKOS_VERSION < 40000
#define LK_TEST_JOIN_CV volatile
#else
#define LK_TEST_JOIN_CV
#endif

/// An array reduction's result over a vector: Kokkos 4 takes only Views there (Kokkos 3 also
/// took a plain pointer, deprecated in 3.7 and removed in 4.0).
template <class T>
Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> result_in(std::vector<T>& v) {
  return Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size());
}

/// The sums of each column of x, as the Kokkos documentation's array reduction: its own init
/// and join, both members reading value_count.
template <class X>
struct ColumnSums {
  using value_type = double[];
  X x;
  int value_count = 0;
  LIGHTNING_KERNEL(
      ColumnSums, "global i => read x[i, :]", (x, value_count),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, double* sums) const {
        for (int j = 0; j < value_count; ++j) sums[j] += x(i, j);
      })
  KOKKOS_INLINE_FUNCTION void init(double* sums) const {
    for (int j = 0; j < value_count; ++j) sums[j] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(LK_TEST_JOIN_CV double* dst,
                                   const LK_TEST_JOIN_CV double* src) const {
    for (int j = 0; j < value_count; ++j) dst[j] += src[j];
  }
};

/// The largest x(i) above a floor the functor holds: a scalar reduction whose init and join
/// are members (init reads `floor`).
template <class X>
struct MaxAbove {
  using value_type = double;
  X x;
  double floor = 0;
  LIGHTNING_KERNEL(
      MaxAbove, "global i => read x[i]", (x, floor),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, double& m) const {
        if (x(i) > m) m = x(i);
      })
  KOKKOS_INLINE_FUNCTION void init(double& m) const { m = floor; }
  KOKKOS_INLINE_FUNCTION void join(LK_TEST_JOIN_CV double& dst,
                                   const LK_TEST_JOIN_CV double& src) const {
    if (src > dst) dst = src;
  }
};

/// Whether a functor whose init and join are outside LIGHTNING_KERNEL is refused here (GPU
/// code cannot call them).
bool gpus_refuse(const std::string& error) {
  if (!lk_test::on_gpus()) return false;
  EXPECT_NE(error.find("its init/join are not inside LIGHTNING_KERNEL"), std::string::npos)
      << error;
  return true;
}

TEST(KokkosArrayReduction, ColumnSumsMatchTheHostSpace) {
  std::mt19937 rng(1701);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 700), m = uniform(rng, 1, 9);
    KView<double**> hx("x", n, m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) hx(i, j) = uniform(rng, -50, 50) * 0.5;  // exact sums
    LView<double**> x("x", n, m, lightning::dist::rows(uniform(rng, 1, n)));
    Kokkos::deep_copy(x, hx);

    std::vector<double> host(m, -1), got(m, -1);
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n), ColumnSums<KView<double**>>{hx, m},
                            result_in(host));
    const Exec space = lk_test::random_space(rng, n);
    const std::string error = lk_test::error_of([&] {
      Kokkos::parallel_reduce("column sums", Kokkos::RangePolicy<Exec>(space, 0, n),
                              ColumnSums<LView<double**>>{x, m}, result_in(got));
    });
    if (gpus_refuse(error)) return;
    ASSERT_EQ(error, "");
    EXPECT_EQ(got, host) << "n " << n << ", m " << m;

    // Into a host View of value_count elements.
    Kokkos::View<double*, Kokkos::HostSpace> into("sums", m);
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(space, 0, n),
                            ColumnSums<LView<double**>>{x, m}, into);
    for (int j = 0; j < m; ++j) EXPECT_EQ(into(j), host[j]) << "column " << j;
#if KOKKOS_VERSION < 40000
    // Into a pointer to value_count elements, as Kokkos 3 allows.
    std::vector<double> by_pointer(m, -1);
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(space, 0, n),
                            ColumnSums<LView<double**>>{x, m}, by_pointer.data());
    EXPECT_EQ(by_pointer, host);
#endif
  }
}

TEST(KokkosArrayReduction, DefaultInitJoinAndFinalActElementWise) {
  std::mt19937 rng(4242);
  for (int round = 0; round < 6; ++round) {
    const int64_t n = uniform(rng, 1, 3000);
    const unsigned bins = static_cast<unsigned>(uniform(rng, 1, 12));
    const int64_t width = uniform(rng, 1, 20);
    KView<int64_t*> hx("x", n);
    for (int64_t i = 0; i < n; ++i) hx(i) = uniform(rng, 0, int(bins * width) - 1);
    LView<int64_t*> x("x", n, lightning::dist::block(uniform(rng, 1, int(n))));
    Kokkos::deep_copy(x, hx);

    std::vector<int64_t> host(bins, -1), got(bins, -1);
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n),
                            lk_test::Histogram<KView<int64_t*>>{hx, width, n, bins},
                            result_in(host));
    const std::string error = lk_test::error_of([&] {
      Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(lk_test::random_space(rng, int(n)), 0, n),
                              lk_test::Histogram<LView<int64_t*>>{x, width, n, bins},
                              result_in(got));
    });
    ASSERT_EQ(error, "");
    EXPECT_EQ(got, host) << "n " << n << ", bins " << bins;
    int64_t shares = 0;
    for (int64_t s : got) shares += s;
    EXPECT_LE(shares, 1000);  // final ran once, on the folded counts
    EXPECT_GT(shares, 1000 - int64_t(bins));
  }
}

TEST(KokkosArrayReduction, ZeroValueCountIsAnErrorNamingTheLaunch) {
  LView<double**> x("x", 10, 2);
  std::vector<double> sums(2, 0);
  const Exec space(lightning::work::block(4));
  const std::string error = lk_test::error_of([&] {
    Kokkos::parallel_reduce("empty sums", Kokkos::RangePolicy<Exec>(space, 0, 10),
                            ColumnSums<LView<double**>>{x, 0}, result_in(sums));
  });
  EXPECT_NE(error.find("'empty sums'"), std::string::npos) << error;
  EXPECT_NE(error.find("value_count 0"), std::string::npos) << error;
  // The runtime goes on.
  Kokkos::deep_copy(x, 1.5);
  std::vector<double> ranges(4, 0);
  Kokkos::parallel_reduce(Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(space, {0, 0}, {10, 2}),
                          lk_test::ColumnRanges<LView<double**>>{x, 4}, result_in(ranges));
  EXPECT_EQ(ranges, std::vector<double>({1.5, 1.5, 1.5, 1.5}));
}

// A result View shorter than value_count would be overrun (Kokkos writes value_count
// elements): the launch stops naming it and both sizes, and nothing past the View is written.
TEST(KokkosArrayReduction, AResultShorterThanValueCountIsAnErrorNamingTheLaunch) {
  LView<double**> x("x", 10, 2);
  Kokkos::deep_copy(x, 2.5);
  const Exec space(lightning::work::block(4));
  std::vector<double> storage(4, -1);
  const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> two(storage.data(), 2);
  const std::string error = lk_test::error_of([&] {
    Kokkos::parallel_reduce("short ranges",
                            Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(space, {0, 0}, {10, 2}),
                            lk_test::ColumnRanges<LView<double**>>{x, 4}, two);
  });
  EXPECT_NE(error.find("'short ranges'"), std::string::npos) << error;
  EXPECT_NE(error.find("value_count 4 into a result of 2 elements"), std::string::npos) << error;
  EXPECT_EQ(storage[2], -1);
  EXPECT_EQ(storage[3], -1);
  std::vector<double> ranges(4, 0);
  Kokkos::parallel_reduce(Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(space, {0, 0}, {10, 2}),
                          lk_test::ColumnRanges<LView<double**>>{x, 4}, result_in(ranges));
  EXPECT_EQ(ranges, std::vector<double>({2.5, 2.5, 2.5, 2.5}));
}

TEST(KokkosArrayReduction, InitAndJoinInsideTheMacroFoldOverMDRangesAsTheHostSpace) {
  std::mt19937 rng(2718);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 300), m = uniform(rng, 1, round % 2 ? 9 : 300);
    SCOPED_TRACE("n " + std::to_string(n) + ", m " + std::to_string(m));
    KView<double**> hx("x", n, m);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) hx(i, j) = uniform(rng, -5000, 5000) * 0.25;
    LView<double**> x("x", n, m, lightning::dist::rows(uniform(rng, 1, n)));
    Kokkos::deep_copy(x, hx);
    std::vector<double> host(2 * m, 0), got(2 * m, 0);
    Kokkos::parallel_reduce(Kokkos::MDRangePolicy<Host, Kokkos::Rank<2>>({0, 0}, {n, m}),
                            lk_test::ColumnRanges<KView<double**>>{hx, 2 * m}, result_in(host));
    const Exec space = lk_test::random_space(rng, n);
    Kokkos::parallel_reduce("column ranges",
                            Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(space, {0, 0}, {n, m}),
                            lk_test::ColumnRanges<LView<double**>>{x, 2 * m}, result_in(got));
    EXPECT_EQ(got, host);
  }
}

// On GPUs each thread keeps its value in the block's shared memory: large values run in
// blocks of fewer threads (not whole warps below 32), and one larger than a block's shared
// memory is refused naming the sizes, the runtime usable after it. Host devices run any.
TEST(KokkosArrayReduction, LargeValuesRunInSmallerBlocksOrStopWithAnErrorOnGpus) {
  std::mt19937 rng(1123);
  const int64_t n = 5000;
  KView<int64_t*> hx("x", n);
  LView<int64_t*> x("x", n, lightning::dist::block(uniform(rng, 1000, 4000)));
  for (const unsigned bins : {3000u, 30000u}) {
    SCOPED_TRACE(std::to_string(bins) + " bins");
    for (int64_t i = 0; i < n; ++i) hx(i) = uniform(rng, 0, int(bins) - 1);
    Kokkos::deep_copy(x, hx);
    std::vector<int64_t> host(bins, -1), got(bins, -1);
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n),
                            lk_test::Histogram<KView<int64_t*>>{hx, 1, 1000, bins},
                            result_in(host));
    const std::string error = lk_test::error_of([&] {
      Kokkos::parallel_reduce("bins", Kokkos::RangePolicy<Exec>(0, n),
                              lk_test::Histogram<LView<int64_t*>>{x, 1, 1000, bins},
                              result_in(got));
    });
    if (lk_test::on_gpus() && bins == 30000u) {
      EXPECT_NE(error.find("an array reduction's value of 234.4 KiB"), std::string::npos) << error;
      EXPECT_NE(error.find("shared memory"), std::string::npos) << error;
      EXPECT_NE(error.find("'bins'"), std::string::npos) << error;
      continue;
    }
    ASSERT_EQ(error, "");
    EXPECT_EQ(got, host);
  }
  // The runtime goes on.
  std::vector<int64_t> small(4, -1);
  Kokkos::deep_copy(x, int64_t{2});
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, n),
                          lk_test::Histogram<LView<int64_t*>>{x, 1, 1000, 4}, result_in(small));
  EXPECT_EQ(small, std::vector<int64_t>({0, 0, 5000, 0}));
}

TEST(KokkosArrayReduction, MemberInitAndJoinReadTheFunctorsScalars) {
  std::mt19937 rng(77);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 2000);
    KView<double*> hx("x", n);
    for (int i = 0; i < n; ++i) hx(i) = uniform(rng, -1000, 1000);
    LView<double*> x("x", n, lightning::dist::block(uniform(rng, 1, n)));
    Kokkos::deep_copy(x, hx);
    // A floor above every value in half the rounds: init's floor is the answer.
    const double floor = round % 2 ? 5000 : uniform(rng, -1000, 1000);
    double host = 0, got = 0;
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n), MaxAbove<KView<double*>>{hx, floor},
                            host);
    const std::string error = lk_test::error_of([&] {
      Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(lk_test::random_space(rng, n), 0, n),
                              MaxAbove<LView<double*>>{x, floor}, got);
    });
    if (lk_test::on_gpus()) {  // its init and join are outside LIGHTNING_KERNEL: not in GPU code
      EXPECT_NE(error.find("its init/join are not inside LIGHTNING_KERNEL"), std::string::npos)
          << error;
      return;
    }
    ASSERT_EQ(error, "");
    EXPECT_EQ(got, host) << "n " << n << ", floor " << floor;
  }
}

}  // namespace lk_array_reduction
