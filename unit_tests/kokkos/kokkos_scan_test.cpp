// parallel_scan on lightning::Distributed, on host devices and GPUs, against the same scans
// on Kokkos' host space: exclusive and inclusive prefix sums of every arithmetic type, with
// and without the total, a stream compaction, a scan of many GPU tiles, and (on host devices)
// a functor with its own init and join whose join does not commute (so the carry's order
// across superblocks, devices and ranks shows), over random sizes, data distributions and
// work distributions (blocks and cyclic ones).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

#include "kokkos_lambda_programs.hpp"
#include "kokkos_test_kernels.hpp"

namespace lk_scan {

template <class Space, class T>
using ViewOf = lightning::ViewOf<Space, T>;

/// The same exclusive sum without asking for the total.
template <class Space, class T>
void exclusive_sum(const ViewOf<Space, const T*>& x, const ViewOf<Space, T*>& excl) {
  Kokkos::parallel_scan(Kokkos::RangePolicy<Space>(0, static_cast<int64_t>(x.extent(0))),
                        LIGHTNING_LAMBDA(
                            "global i => read x[i], write excl[i]", (x, excl),
                            (const int i, T& update, const bool final) {
                              if (final) excl(i) = update;
                              update += x(i);
                            }));
}

/// An affine map v -> a v + b on integers modulo 2^64.
struct Affine {
  uint64_t a, b;
};

/// y(i) = the composition of the maps of 0..i applied to 0: a scan whose join does not
/// commute (later maps apply after earlier ones), with its own identity (the map v -> v).
template <class M, class Y>
struct ComposeMaps {
  using value_type = Affine;
  M maps;  // maps(i, 0) = a, maps(i, 1) = b
  Y y;
  KOKKOS_INLINE_FUNCTION static void init(Affine& v) {
    v.a = 1;
    v.b = 0;
  }
  KOKKOS_INLINE_FUNCTION static void join(Affine& earlier, const Affine& later) {
    earlier.b = later.a * earlier.b + later.b;
    earlier.a = later.a * earlier.a;
  }
  LIGHTNING_KERNEL(
      ComposeMaps, "global i => read maps[i, :], write y[i]", (maps, y),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, Affine& v, const bool final) const {
        v.b = maps(i, 0) * v.b + maps(i, 1);
        v.a = maps(i, 0) * v.a;
        if (final) y(i) = v.b;
      })
};

/// Copies the x(i) above `floor` to the front of `out`, in order; returns how many.
template <class Space>
int64_t compact(const ViewOf<Space, const int64_t*>& x, const ViewOf<Space, int64_t*>& out,
                int64_t floor) {
  int64_t count = 0;
  Kokkos::parallel_scan(Kokkos::RangePolicy<Space>(0, static_cast<int64_t>(x.extent(0))),
                        LIGHTNING_LAMBDA(
                            "global i => read x[i], readwrite out[:]", (x, out, floor),
                            (const int64_t i, int64_t& next, const bool final) {
                              if (x(i) <= floor) return;
                              if (final) out(next) = x(i);
                              ++next;
                            }),
                        count);
  return count;
}

}  // namespace lk_scan

namespace {

using lk_test::error_of;
using lk_test::Exec;
using lk_test::Host;
using lk_test::KView;
using lk_test::LView;
using lk_test::random_space;
using lk_test::uniform;

template <class T>
void expect_prefix_sums_match(std::mt19937& rng, int n) {
  SCOPED_TRACE("n " + std::to_string(n));
  KView<T*> hx("x", n), hexcl("excl", n), hincl("incl", n);
  // Small integers: every order of additions gives the same sums, in floating point too.
  for (int i = 0; i < n; ++i) hx(i) = static_cast<T>(uniform(rng, 0, 9) - (i % 3 == 0 ? 4 : 0));
  const T want = lk_lambda::prefix_sums<Host, T>(Host(), hx, hexcl, hincl);

  LView<T*> x("x", n, lightning::dist::block(uniform(rng, 1, n)));
  LView<T*> excl("excl", n, lightning::dist::block(uniform(rng, 1, n)));
  LView<T*> incl("incl", n, lightning::dist::block_cyclic(uniform(rng, 1, n)));
  Kokkos::deep_copy(x, hx);
  const T got = lk_lambda::prefix_sums<Exec, T>(random_space(rng, n), x, excl, incl);
  EXPECT_EQ(got, want);
  const auto gexcl = lk_test::to_host(excl), gincl = lk_test::to_host(incl);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(gexcl(i), hexcl(i)) << "exclusive, at " << i;
    ASSERT_EQ(gincl(i), hincl(i)) << "inclusive, at " << i;
  }

  // Without the total: asynchronous, like any parallel_for.
  Kokkos::deep_copy(excl, T(-1));
  lk_scan::exclusive_sum<Exec, T>(x, excl);
  const auto again = lk_test::to_host(excl);
  for (int i = 0; i < n; ++i) ASSERT_EQ(again(i), hexcl(i)) << "without the total, at " << i;
}

TEST(KokkosScan, PrefixSumsOfEveryArithmeticTypeMatchTheHostSpace) {
  std::mt19937 rng(53);
  for (int round = 0; round < 4; ++round) {
    expect_prefix_sums_match<int>(rng, uniform(rng, 1, 3000));
    expect_prefix_sums_match<int64_t>(rng, uniform(rng, 1, 3000));
    expect_prefix_sums_match<uint8_t>(rng, uniform(rng, 1, 3000));  // wraps around, as Kokkos'
    expect_prefix_sums_match<float>(rng, uniform(rng, 1, 3000));
    expect_prefix_sums_match<double>(rng, uniform(rng, 1, 3000));
  }
  // The other integer types once each (the narrow ones wrap around, as in Kokkos).
  expect_prefix_sums_match<int8_t>(rng, uniform(rng, 1, 3000));
  expect_prefix_sums_match<int16_t>(rng, uniform(rng, 1, 3000));
  expect_prefix_sums_match<uint16_t>(rng, uniform(rng, 1, 3000));
  expect_prefix_sums_match<uint32_t>(rng, uniform(rng, 1, 3000));
  expect_prefix_sums_match<uint64_t>(rng, uniform(rng, 1, 3000));
}

TEST(KokkosScan, AnAnnotatedLambdaScansOnHostDevices) {
  if (lk_test::on_gpus()) GTEST_SKIP() << "lightning::annotate lambdas run on host devices";
  const int n = 777;
  LView<int64_t*> x("x", n, lightning::dist::block(100)), incl("incl", n);
  Kokkos::deep_copy(x, int64_t{3});
  int64_t total = 0;
  Kokkos::parallel_scan(Kokkos::RangePolicy<Exec>(Exec(lightning::work::cyclic(50)), 0, n),
                        lightning::annotate(
                            "global i => read x[i], write incl[i]",
                            KOKKOS_LAMBDA(const int i, int64_t& update, const bool final) {
                              update += x(i);
                              if (final) incl(i) = update;
                            }),
                        total);
  EXPECT_EQ(total, 3 * n);
  const auto h = lk_test::to_host(incl);
  for (int i = 0; i < n; ++i) ASSERT_EQ(h(i), 3 * (i + 1)) << "at " << i;
}

TEST(KokkosScan, AFunctorsOwnInitAndJoinCarryInIndexOrder) {
  if (lk_test::on_gpus()) GTEST_SKIP() << "a functor's own init/join scans on host devices";
  std::mt19937 rng(59);
  std::mt19937_64 values(61);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 2000);
    SCOPED_TRACE("n " + std::to_string(n));
    KView<uint64_t**> hmaps("maps", n, 2);
    for (int i = 0; i < n; ++i) {
      hmaps(i, 0) = values() | 1;
      hmaps(i, 1) = values();
    }
    KView<uint64_t*> hy("y", n);
    lk_scan::Affine want{};
    Kokkos::parallel_scan(
        Kokkos::RangePolicy<Host>(0, n),
        lk_scan::ComposeMaps<KView<const uint64_t**>, KView<uint64_t*>>{hmaps, hy}, want);

    LView<uint64_t**> maps("maps", n, 2, lightning::dist::rows(uniform(rng, 1, n)));
    LView<uint64_t*> y("y", n, lightning::dist::block(uniform(rng, 1, n)));
    Kokkos::deep_copy(maps, hmaps);
    lk_scan::Affine got{};
    Kokkos::parallel_scan(Kokkos::RangePolicy<Exec>(random_space(rng, n), 0, n),
                          lk_scan::ComposeMaps<LView<const uint64_t**>, LView<uint64_t*>>{maps, y},
                          got);
    EXPECT_EQ(got.a, want.a);
    EXPECT_EQ(got.b, want.b);
    const auto gy = lk_test::to_host(y);
    for (int i = 0; i < n; ++i) ASSERT_EQ(gy(i), hy(i)) << "at " << i;
  }
}

TEST(KokkosScan, AStreamCompactionWritesWhereTheScanSays) {
  std::mt19937 rng(67);
  for (int round = 0; round < 4; ++round) {
    const int n = uniform(rng, 1, 1500);
    KView<int64_t*> hx("x", n), hout("out", n);
    for (int i = 0; i < n; ++i) hx(i) = uniform(rng, -50, 50);
    const int64_t floor = uniform(rng, -60, 60);
    const int64_t want = lk_scan::compact<Host>(hx, hout, floor);

    LView<int64_t*> x("x", n, lightning::dist::block(uniform(rng, 1, n)));
    LView<int64_t*> out("out", n, lightning::dist::block(uniform(rng, 1, n)));
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(out, int64_t{0});
    const int64_t got = lk_scan::compact<Exec>(x, out, floor);
    ASSERT_EQ(got, want);
    const auto gout = lk_test::to_host(out);
    for (int64_t i = 0; i < want; ++i) ASSERT_EQ(gout(i), hout(i)) << "at " << i;
    for (int64_t i = want; i < n; ++i) ASSERT_EQ(gout(i), 0) << "past the end, at " << i;
  }
}

TEST(KokkosScan, AnEmptyRangeGivesTheIdentity) {
  LView<double*> x("x", 8), excl("excl", 8);
  Kokkos::deep_copy(excl, 5.0);
  double sum = 5.0;
  Kokkos::parallel_scan(Kokkos::RangePolicy<Exec>(4, 4),
                        LIGHTNING_LAMBDA(
                            "global i => read x[i], write excl[i]", (x, excl),
                            (const int i, double& update, const bool final) {
                              if (final) excl(i) = update;
                              update += x(i);
                            }),
                        sum);
  EXPECT_EQ(sum, 0.0);
  EXPECT_EQ(lk_test::to_host(excl)(4), 5.0);
  if (lk_test::on_gpus()) return;  // a functor's own init/join scans on host devices
  lk_scan::Affine total{7, 7};
  LView<uint64_t**> maps("maps", 8, 2);
  LView<uint64_t*> y("y", 8);
  Kokkos::parallel_scan(Kokkos::RangePolicy<Exec>(3, 3),
                        lk_scan::ComposeMaps<LView<const uint64_t**>, LView<uint64_t*>>{maps, y},
                        total);
  EXPECT_EQ(total.a, 1u);  // the functor's init
  EXPECT_EQ(total.b, 0u);
}

#if KOKKOS_VERSION >= 40000
TEST(KokkosScan, TheTotalGoesIntoAHostView) {
  const int n = 1000;
  LView<int*> x("x", n, lightning::dist::block(300)), excl("excl", n);
  Kokkos::deep_copy(x, 2);
  Kokkos::View<int, Kokkos::HostSpace> total("total");
  Kokkos::parallel_scan(Kokkos::RangePolicy<Exec>(0, n),
                        LIGHTNING_LAMBDA(
                            "global i => read x[i], write excl[i]", (x, excl),
                            (const int i, int& update, const bool final) {
                              if (final) excl(i) = update;
                              update += x(i);
                            }),
                        total);
  Kokkos::fence();
  EXPECT_EQ(total(), 2 * n);
  EXPECT_EQ(lk_test::to_host(excl)(n - 1), 2 * (n - 1));
}
#endif

TEST(KokkosScan, AScanThatReducesIntoAnArrayIsRefusedByName) {
  LView<double*> x("x", 100), sum("sum", 1);
  const std::string error = error_of([&] {
    Kokkos::parallel_scan("scan into", Kokkos::RangePolicy<Exec>(0, 100),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i], reduce(+) sum[0]", (x, sum),
                              (const int i, double& update, const bool final) {
                                update += x(i);
                                if (final) sum(0) += update;
                              }));
  });
  EXPECT_NE(error.find("scan into"), std::string::npos) << error;
  EXPECT_NE(error.find("cannot reduce(+) into an array"), std::string::npos) << error;
  // The runtime stays usable.
  Kokkos::deep_copy(x, 1.0);
  LView<double*> excl("excl", 100), incl("incl", 100);
  EXPECT_EQ((lk_lambda::prefix_sums<Exec, double>(Exec(), x, excl, incl)), 100.0);
  EXPECT_EQ(lk_test::to_host(incl)(99), 100.0);
}

TEST(KokkosScan, AFailedScanLeavesItsViewsOverwritableAndTheRuntimeUsable) {
  if (lk_test::on_gpus()) GTEST_SKIP() << "a host kernel that throws";
  const int n = 600;
  LView<double*> x("x", n, lightning::dist::block(100)), excl("excl", n), incl("incl", n);
  Kokkos::deep_copy(x, 1.0);
  double total = 0;
  const std::string error = error_of([&] {
    Kokkos::parallel_scan("throwing scan", Kokkos::RangePolicy<Exec>(0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i], write excl[i]", (x, excl),
                              (const int i, double& update, const bool final) {
                                if (i == 350)
                                  throw std::runtime_error("no scan at 350");  // both passes
                                if (final) excl(i) = update;
                                update += x(i);
                              }),
                          total);
  });
  EXPECT_NE(error.find("throwing scan"), std::string::npos) << error;
  EXPECT_NE(error.find("no scan at 350"), std::string::npos) << error;
  // What it was to write is refused until overwritten; overwriting it works at once.
  EXPECT_NE(error_of([&] { lk_test::to_host(excl); }).find("holds no valid data"),
            std::string::npos);
  Kokkos::deep_copy(excl, 2.0);
  EXPECT_EQ(lk_test::to_host(excl)(350), 2.0);
  EXPECT_EQ((lk_lambda::prefix_sums<Exec, double>(Exec(), x, excl, incl)), double(n));
  EXPECT_EQ(lk_test::to_host(excl)(350), 350.0);
}

// Many tiles of a GPU's final pass (tiles of 48 int32 or 32 int64 indices a thread, 256
// threads: the one-word and the two-slot tile records) and an odd end, over one superblock
// and over five: prefixes pass between tiles, superblocks, devices and ranks.
template <class T>
void expect_large_scan_matches(int seed) {
  const int n = (1 << 21) + 1237;
  KView<T*> hx("x", n), hexcl("excl", n), hincl("incl", n);
  std::mt19937 rng(seed);
  for (int i = 0; i < n; ++i) hx(i) = static_cast<T>(uniform(rng, -100, 100));
  const T want = lk_lambda::prefix_sums<Host, T>(Host(), hx, hexcl, hincl);
  LView<T*> x("x", n, lightning::dist::block(n / 3 + 1)), excl("excl", n), incl("incl", n);
  Kokkos::deep_copy(x, hx);
  for (const Exec& space : {Exec(), Exec(lightning::work::block(n / 5 + 3))}) {
    Kokkos::deep_copy(excl, T(-1));
    EXPECT_EQ((lk_lambda::prefix_sums<Exec, T>(space, x, excl, incl)), want);
    const auto gexcl = lk_test::to_host(excl), gincl = lk_test::to_host(incl);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(gexcl(i), hexcl(i)) << "exclusive, at " << i;
      ASSERT_EQ(gincl(i), hincl(i)) << "inclusive, at " << i;
    }
  }
}

TEST(KokkosScan, ALargeScanPassesItsPrefixesOnThroughEveryTile) {
  expect_large_scan_matches<int64_t>(71);
  expect_large_scan_matches<int32_t>(73);
}

TEST(KokkosScan, OnGpusAFunctorsOwnInitAndJoinStopWithAnErrorThatSaysWhy) {
  if (!lk_test::on_gpus()) GTEST_SKIP() << "a GPU's refusal";
  LView<uint64_t**> maps("maps", 100, 2);
  LView<uint64_t*> y("y", 100);
  Kokkos::deep_copy(maps, uint64_t{1});
  lk_scan::Affine total{};
  const std::string error = error_of([&] {
    Kokkos::parallel_scan("compose", Kokkos::RangePolicy<Exec>(0, 100),
                          lk_scan::ComposeMaps<LView<const uint64_t**>, LView<uint64_t*>>{maps, y},
                          total);
  });
  EXPECT_NE(error.find("compose"), std::string::npos) << error;
  EXPECT_NE(error.find("own init/join runs on host devices only"), std::string::npos) << error;
  Kokkos::deep_copy(y, uint64_t{2});  // still usable
  EXPECT_EQ(lk_test::to_host(y)(5), 2u);
}

}  // namespace
