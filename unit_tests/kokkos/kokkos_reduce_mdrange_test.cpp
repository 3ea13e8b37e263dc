// parallel_reduce (scalars, Views, Kokkos reducers) and MDRangePolicy on lightning::Distributed
// against the same functors on Kokkos' host space.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <utility>

#include "core/error.hpp"
#include "kokkos_test_kernels.hpp"

namespace {

using lk_test::Exec;
using lk_test::Host;
using lk_test::KView;
using lk_test::LView;

template <class D>
LView<D> distributed_copy_1d(const KView<D>& h, const lightning::DataDistribution& dist) {
  LView<D> v(h.label(), h.extent(0), dist);
  Kokkos::deep_copy(v, h);
  return v;
}

TEST(KokkosReduce, DotToAScalarAndToAViewMatchesHost) {
  const int n = 3001;
  KView<double*> hx("x", n), hy("y", n);
  for (int i = 0; i < n; ++i) {
    hx(i) = (i % 17) * 0.5;
    hy(i) = (i % 5) - 2.0;
  }
  auto x = distributed_copy_1d(hx, lightning::dist::block(400));
  auto y = distributed_copy_1d(hy, lightning::dist::block(700));

  double expected = 0;
  Kokkos::parallel_reduce("dot", Kokkos::RangePolicy<Host>(0, n),
                          lk_test::Dot<KView<double*>, KView<double*>>{hx, hy}, expected);
  // Partial sums are exact here (halves of small integers), so any order gives one value.
  double got = -1;
  Kokkos::parallel_reduce("dot", Kokkos::RangePolicy<Exec>(0, n),
                          lk_test::Dot<LView<double*>, LView<double*>>{x, y}, got);
  EXPECT_EQ(got, expected);

  Kokkos::View<double, Kokkos::HostSpace> into_view("result");
  Exec space(lightning::work::block(128));
  Kokkos::parallel_reduce("dot", Kokkos::RangePolicy<Exec>(space, 0, n),
                          lk_test::Dot<LView<double*>, LView<double*>>{x, y}, into_view);
  EXPECT_EQ(into_view(), expected);

  double sum_reducer = -1;
  Kokkos::parallel_reduce("dot", Kokkos::RangePolicy<Exec>(0, n),
                          lk_test::Dot<LView<double*>, LView<double*>>{x, y},
                          Kokkos::Sum<double>(sum_reducer));
  EXPECT_EQ(sum_reducer, expected);
}

TEST(KokkosReduce, FunctorInitJoinAndFinalAreHonoured) {
  // 10! as a product, on both spaces: the functor's init (1) and join (*), not a sum from 0.
  const int n = 10;
  KView<double*> hx("x", n);
  for (int i = 0; i < n; ++i) hx(i) = i + 1;
  auto x = distributed_copy_1d(hx, lightning::dist::block(3));
  double host = 0, got = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n), lk_test::Product<KView<double*>>{hx},
                          host);
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, n), lk_test::Product<LView<double*>>{x},
                          got);
  EXPECT_EQ(host, 3628800.0);
  EXPECT_EQ(got, host);

  // A struct value, joined over many superblocks and devices, then final.
  const int m = 5000;
  KView<double*> hy("y", m);
  for (int i = 0; i < m; ++i) hy(i) = double((i * 7919) % 4001);
  hy(3333) = -1;
  hy(4444) = -1;  // a tie: the lower index wins
  auto y = distributed_copy_1d(hy, lightning::dist::block(300));
  lk_test::MinLoc host_min{}, got_min{};
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, m), lk_test::FindMin<KView<double*>>{hy},
                          host_min);
  const Exec space(lightning::work::block(256));
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(space, 0, m),
                          lk_test::FindMin<LView<double*>>{y}, got_min);
  EXPECT_EQ(host_min.value, -1);
  EXPECT_EQ(host_min.index, 3334);
  EXPECT_EQ(got_min.value, host_min.value);
  EXPECT_EQ(got_min.index, host_min.index);
}

TEST(KokkosReduce, OwnInitAndJoinInsideTheMacroMatchTheHostSpace) {
  // On host devices and GPUs alike: GPU code calls the functor's init and join.
  std::mt19937 rng(59);
  for (int round = 0; round < 5; ++round) {
    const int n = lk_test::uniform(rng, 1, 20000);
    KView<double*> hx("x", n);
    for (int i = 0; i < n; ++i) hx(i) = lk_test::uniform(rng, -100000, 100000) * 0.25;
    auto x = distributed_copy_1d(hx, lightning::dist::block(lk_test::uniform(rng, 1, n)));
    // A floor above every value in some rounds: init's floor is then the highest.
    const double floor = round % 2 ? 1e6 : lk_test::uniform(rng, -100000, 0);
    using Value = lk_test::Spread<LView<double*>>::value_type;
    lk_test::Spread<KView<double*>>::value_type host{};
    Value got{};
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n),
                            lk_test::Spread<KView<double*>>{hx, floor}, host);
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(lk_test::random_space(rng, n), 0, n),
                            lk_test::Spread<LView<double*>>{x, floor}, got);
    EXPECT_EQ(got.low, host.low) << "n " << n;
    EXPECT_EQ(got.high, host.high) << "n " << n << ", floor " << floor;
  }
}

TEST(KokkosReduce, MinAndMaxReducersMatchHost) {
  const int n = 2000;
  KView<int64_t*> hx("x", n);
  for (int i = 0; i < n; ++i) hx(i) = (int64_t(i) * 7919) % 3001 - 1500;
  auto x = distributed_copy_1d(hx, lightning::dist::block(300));

  int64_t host_max = 0, host_min = 0, got_max = 0, got_min = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n), lk_test::Extreme<KView<int64_t*>>{hx, 1},
                          Kokkos::Max<int64_t>(host_max));
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n), lk_test::Extreme<KView<int64_t*>>{hx, 0},
                          Kokkos::Min<int64_t>(host_min));
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, n), lk_test::Extreme<LView<int64_t*>>{x, 1},
                          Kokkos::Max<int64_t>(got_max));
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, n), lk_test::Extreme<LView<int64_t*>>{x, 0},
                          Kokkos::Min<int64_t>(got_min));
  EXPECT_EQ(got_max, host_max);
  EXPECT_EQ(got_min, host_min);
  EXPECT_LT(got_min, 0);
  EXPECT_GT(got_max, 0);

  // An empty range gives the reducer's identity, as in Kokkos.
  int64_t empty = 5;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(10, 10),
                          lk_test::Extreme<LView<int64_t*>>{x, 1}, Kokkos::Max<int64_t>(empty));
  EXPECT_EQ(empty, Kokkos::reduction_identity<int64_t>::max());
}

TEST(KokkosMDRange, Rank2WithATransposedReadMatchesHost) {
  const int n = 45, m = 45;  // square: b is read transposed
  KView<float**> ha("a", n, m), hb("b", n, m), hc("c", n, m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      ha(i, j) = float(i * m + j);
      hb(i, j) = float((i * 3 + j * 5) % 11);
    }
  LView<float**> a("a", n, m, lightning::dist::tiles({16, 16}));
  LView<float**> b("b", n, m, lightning::dist::rows(10));
  LView<float**> c("c", n, m, lightning::dist::columns(8));
  Kokkos::deep_copy(a, ha);
  Kokkos::deep_copy(b, hb);

  using KPolicy = Kokkos::MDRangePolicy<Host, Kokkos::Rank<2>>;
  using LPolicy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>;
  Kokkos::parallel_for("sat", KPolicy({0, 0}, {n, m}),
                       lk_test::ScaleAddTransposed<KView<float**>, KView<float**>>{ha, hb, hc, 3});
  Kokkos::parallel_for("sat", LPolicy({0, 0}, {n, m}),
                       lk_test::ScaleAddTransposed<LView<float**>, LView<float**>>{a, b, c, 3});
  auto result = Kokkos::create_mirror_view(c);
  Kokkos::deep_copy(result, c);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) ASSERT_EQ(result(i, j), hc(i, j)) << i << ", " << j;

  // A sub-box: only its elements change.
  Kokkos::deep_copy(c, 0.0f);
  Kokkos::parallel_for("sat", LPolicy({5, 7}, {20, 30}),
                       lk_test::ScaleAddTransposed<LView<float**>, LView<float**>>{a, b, c, 3});
  Kokkos::deep_copy(result, c);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const bool inside = i >= 5 && i < 20 && j >= 7 && j < 30;
      ASSERT_EQ(result(i, j), inside ? hc(i, j) : 0.0f) << i << ", " << j;
    }
}

TEST(KokkosMDRange, Rank3ForAndReduceMatchHost) {
  const int n0 = 9, n1 = 7, n2 = 11;
  KView<int64_t***> hin("in", n0, n1, n2), hout("out", n0, n1, n2);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j)
      for (int k = 0; k < n2; ++k) hin(i, j, k) = i * 1000 + j * 100 + k;
  LView<int64_t***> in("in", n0, n1, n2, lightning::dist::tiles({4, 4, 4}));
  LView<int64_t***> out("out", n0, n1, n2);
  Kokkos::deep_copy(in, hin);

  using KPolicy = Kokkos::MDRangePolicy<Host, Kokkos::Rank<3>>;
  using LPolicy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3>>;
  Kokkos::parallel_for(KPolicy({0, 0, 0}, {n0, n1, n2}),
                       lk_test::Rank3<KView<int64_t***>, KView<int64_t***>>{hin, hout});
  Kokkos::parallel_for(LPolicy({0, 0, 0}, {n0, n1, n2}),
                       lk_test::Rank3<LView<int64_t***>, LView<int64_t***>>{in, out});
  auto result = Kokkos::create_mirror(out);
  Kokkos::deep_copy(result, out);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j)
      for (int k = 0; k < n2; ++k) ASSERT_EQ(result(i, j, k), hout(i, j, k));

  int64_t host_sum = 0, got_sum = 0;
  Kokkos::parallel_reduce(KPolicy({1, 0, 2}, {n0, n1 - 1, n2}),
                          lk_test::Rank3Sum<KView<int64_t***>>{hout}, host_sum);
  Kokkos::parallel_reduce(LPolicy({1, 0, 2}, {n0, n1 - 1, n2}),
                          lk_test::Rank3Sum<LView<int64_t***>>{out}, got_sum);
  EXPECT_EQ(got_sum, host_sum);
  EXPECT_NE(got_sum, 0);
}

TEST(KokkosLayoutLeft, ColumnMajorViewsInKernelsCopiesAndRanges) {
  using Left = Kokkos::LayoutLeft;
  const int n = 37, m = 37;
  Kokkos::View<float**, Left, Kokkos::HostSpace> ha("a", n, m), hb("b", n, m);
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> hc("c", n, m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      ha(i, j) = float(i * m + j);
      hb(i, j) = float((i * 3 + j * 5) % 11);
    }
  // Distributions name the View's axes: rows of a LayoutLeft View are rows.
  lightning::View<float**, Left> a("a", n, m, lightning::dist::rows(8));
  lightning::View<float**, Left> b("b", n, m, lightning::dist::tiles({10, 16}));
  lightning::View<float**> c("c", n, m, lightning::dist::columns(9));
  EXPECT_EQ(a.extent(0), std::size_t(n));
  EXPECT_EQ(a.stride(0), 1u);
  EXPECT_EQ(a.stride(1), std::size_t(n));
  static_assert(std::is_same_v<decltype(Kokkos::create_mirror_view(a))::array_layout, Left>);
  Kokkos::deep_copy(a, ha);  // column-major host memory: copied as is
  Kokkos::deep_copy(b, hb);

  using KPolicy = Kokkos::MDRangePolicy<Host, Kokkos::Rank<2>>;
  using LPolicy = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>;
  Kokkos::parallel_for(KPolicy({0, 0}, {n, m}),
                       lk_test::ScaleAddTransposed<decltype(ha), decltype(hc)>{ha, hb, hc, 2});
  Kokkos::parallel_for(LPolicy({0, 0}, {n, m}),
                       lk_test::ScaleAddTransposed<decltype(a), decltype(c)>{a, b, c, 2});
  auto result = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) ASSERT_EQ(result(i, j), hc(i, j)) << i << ", " << j;

  // A range of a LayoutLeft View, into a row-major host view (through a temporary).
  Kokkos::View<float**, Kokkos::HostSpace> part("part", 5, 3);
  Kokkos::deep_copy(part, Kokkos::subview(a, std::make_pair(30, 35), std::make_pair(2, 5)));
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) ASSERT_EQ(part(i, j), ha(30 + i, 2 + j));
  Kokkos::deep_copy(Kokkos::subview(a, Kokkos::ALL, std::make_pair(0, 1)), -1.0f);
  auto back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) ASSERT_EQ(back(i, j), j == 0 ? -1.0f : ha(i, j));

  // Rank 3, and a reduction over it.
  Kokkos::View<int64_t***, Left, Kokkos::HostSpace> hin("in", 5, 6, 7), hout("out", 5, 6, 7);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 7; ++k) hin(i, j, k) = i * 100 + j * 10 + k;
  lightning::View<int64_t***, Left> in("in", 5, 6, 7, lightning::dist::block(1, 2));
  lightning::View<int64_t***, Left> out("out", 5, 6, 7);
  Kokkos::deep_copy(in, hin);
  using KPolicy3 = Kokkos::MDRangePolicy<Host, Kokkos::Rank<3>>;
  using LPolicy3 = Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3>>;
  Kokkos::parallel_for(KPolicy3({0, 0, 0}, {5, 6, 7}),
                       lk_test::Rank3<decltype(hin), decltype(hout)>{hin, hout});
  Kokkos::parallel_for(LPolicy3({0, 0, 0}, {5, 6, 7}),
                       lk_test::Rank3<decltype(in), decltype(out)>{in, out});
  int64_t host_sum = 0, got_sum = 0;
  Kokkos::parallel_reduce(KPolicy3({0, 1, 2}, {5, 6, 7}), lk_test::Rank3Sum<decltype(hout)>{hout},
                          host_sum);
  Kokkos::parallel_reduce(LPolicy3({0, 1, 2}, {5, 6, 7}), lk_test::Rank3Sum<decltype(out)>{out},
                          got_sum);
  EXPECT_EQ(got_sum, host_sum);
  auto out_back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 7; ++k)
        ASSERT_EQ(out_back(i, j, k), hout(i, j, k)) << i << ", " << j << ", " << k;
}

TEST(KokkosLambda, AnnotatedLambdasMatchHost) {
  const int n = 1000;
  Kokkos::View<float*, Kokkos::HostSpace> hin("in", n), hout("out", n);
  for (int i = 0; i < n; ++i) hin(i) = float(i % 13);
  lightning::View<float*> in("in", n, lightning::dist::stencil(128, 1));
  lightning::View<float*> out("out", n, lightning::dist::block(100));
  Kokkos::deep_copy(in, hin);
  const float scale = 0.5f;  // a captured scalar (not named in the annotation)
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(1, n - 1),
      lightning::annotate(
          "global i => read in[i-1:i+1], write out[i]",
          KOKKOS_LAMBDA(const int i) { out(i) = scale * (in(i - 1) + in(i) + in(i + 1)); }));
  // The same wrapper runs on Kokkos' own spaces as the plain lambda.
  Kokkos::parallel_for(Kokkos::RangePolicy<Host>(1, n - 1),
                       lightning::annotate("ignored on host spaces", [=](const int i) {
                         hout(i) = scale * (hin(i - 1) + hin(i) + hin(i + 1));
                       }));
  auto result = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int i = 1; i < n - 1; ++i) ASSERT_EQ(result(i), hout(i)) << i;

  double sum = 0, host_sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Exec>(0, n),
      lightning::annotate(
          "global i => read in[i]", KOKKOS_LAMBDA(const int i, double& s) { s += in(i); }),
      sum);
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Host>(0, n),
                          lightning::annotate("", [=](const int i, double& s) { s += hin(i); }),
                          host_sum);
  EXPECT_EQ(sum, host_sum);
}

TEST(KokkosLambda, ReferenceCapturesAndRankMismatchesSayWhatIsWrong) {
  lightning::View<float*> y("y", 10);
  try {
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Exec>(0, 10),
        lightning::annotate("global i => write y[i]", [&](const int i) { y(i) = 1; }));
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds an address on this thread's stack: it captures a "
                                         "variable by reference ([&] or [&x])"),
              std::string::npos)
        << e.what();
  }
  // A 1-D reduction over a 2-D View without a work distribution: the ranks differ.
  lightning::View<double**> m("grid", 8, 4);
  Kokkos::deep_copy(m, 1.0);
  double s = 0;
  try {
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, 8),
                            lightning::annotate(
                                "global i => read grid[i, :]",
                                KOKKOS_LAMBDA(const int i, double& t) {
                                  for (int j = 0; j < 4; ++j) t += m(i, j);
                                }),
                            s);
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "the launch has 1 axis, but View 'grid' (parameter 'grid'), whose chunks a "
                  "launch follows when it has no work distribution, has 2"),
              std::string::npos)
        << e.what();
  }
  // With one, it runs.
  const Exec rows(lightning::work::block(4));
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(rows, 0, 8),
                          lightning::annotate(
                              "global i => read grid[i, :]",
                              KOKKOS_LAMBDA(const int i, double& t) {
                                for (int j = 0; j < 4; ++j) t += m(i, j);
                              }),
                          s);
  EXPECT_EQ(s, 32.0);
}

TEST(KokkosLambda, MistakesAreClearErrors) {
  lightning::View<float*> a("same", 10), b("same", 10), c("c", 10);
  try {
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Exec>(0, 10),
        lightning::annotate(
            "global i => write same[i]", KOKKOS_LAMBDA(const int i) { a(i) = b(i); }));
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("two arrays labelled 'same'"), std::string::npos)
        << e.what();
  }
  try {  // the annotation names a View the lambda does not capture
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, 10),
                         lightning::annotate(
                             "global i => write d[i]", KOKKOS_LAMBDA(const int i) { c(i) = 1; }));
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown array 'd'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("^"), std::string::npos) << e.what();
  }
  // The runtime is still usable.
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, 10),
      lightning::annotate(
          "global i => write c[i]", KOKKOS_LAMBDA(const int i) { c(i) = float(i); }));
  Kokkos::View<float*, Kokkos::HostSpace> h("h", 10);
  Kokkos::deep_copy(h, c);
  EXPECT_EQ(h(7), 7.0f);
}

}  // namespace
