// LIGHTNING_LAMBDA: the lambda programs of kokkos_lambda_programs.hpp on Kokkos' host space
// and on lightning::Distributed, over random sizes and distributions; what the macro keeps for
// GPUs; and the mistakes it must refuse.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "core/error.hpp"
#include "kokkos_lambda_programs.hpp"
#include "kokkos_test_kernels.hpp"

namespace {

using lk_test::distributed_copy;
using lk_test::Exec;
using lk_test::Host;
using lk_test::KView;
using lk_test::LView;
using lk_test::to_host;
using lk_test::uniform;

TEST(KokkosKernelLambda, ForLoopsMatchTheHostSpaceOverRandomShapes) {
  std::mt19937 rng(17);
  for (int round = 0; round < 4; ++round) {
    const int n = uniform(rng, 1, 3000), cols = uniform(rng, 1, 40);
    SCOPED_TRACE("n " + std::to_string(n) + ", cols " + std::to_string(cols));
    const auto chunk = static_cast<int64_t>(uniform(rng, 1, n));
    const auto work = static_cast<int64_t>(uniform(rng, 1, n));
    const Exec space(lightning::work::block(work));

    KView<float*> hx("x", n), hy("y", n);
    KView<double**> hm("m", n, cols);
    for (int i = 0; i < n; ++i) {
      hx(i) = static_cast<float>(i % 11);
      hy(i) = static_cast<float>(i % 5) - 2;
      for (int j = 0; j < cols; ++j) hm(i, j) = (i * 7 + j) % 13 - 6;
    }
    auto x = distributed_copy(hx, lightning::dist::block(chunk));
    auto y = distributed_copy(hy, lightning::dist::block(uniform(rng, 1, n)));
    auto m = distributed_copy(hm, lightning::dist::block(chunk));
    lk_lambda::axpy<Exec>(space, x, y, 0.5f);
    lk_lambda::axpy<Host>(Host(), hx, hy, 0.5f);
    const auto y_back = to_host(y);
    for (int i = 0; i < n; ++i) ASSERT_EQ(y_back(i), hy(i)) << i;

    LView<double*> s("s", n, lightning::dist::block(uniform(rng, 1, n)));
    KView<double*> hs("s", n);
    lk_lambda::row_sums<Exec>(space, m, s, cols, 2.0);
    lk_lambda::row_sums<Host>(Host(), hm, hs, cols, 2.0);
    const auto s_back = to_host(s);
    for (int i = 0; i < n; ++i) ASSERT_EQ(s_back(i), hs(i)) << i;

    LView<double**> b("b", n, cols, lightning::dist::block(uniform(rng, 1, n)));
    KView<double**> hb("b", n, cols);
    lk_lambda::scale_2d<Exec>(m, b);
    lk_lambda::scale_2d<Host>(hm, hb);
    const auto b_back = to_host(b);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < cols; ++j) ASSERT_EQ(b_back(i, j), hb(i, j)) << i << ", " << j;

    lightning::ViewOf<Exec, double**, Kokkos::LayoutLeft> t(
        "t", cols, n, lightning::dist::block(uniform(rng, 1, cols)));
    lightning::ViewOf<Host, double**, Kokkos::LayoutLeft> ht("t", cols, n);
    lk_lambda::transpose<Exec>(m, t);
    lk_lambda::transpose<Host>(hm, ht);
    const auto t_back =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t);  // a LayoutLeft mirror
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < cols; ++j) ASSERT_EQ(t_back(j, i), ht(j, i)) << i << ", " << j;
  }
}

TEST(KokkosKernelLambda, ReductionsMatchTheHostSpaceOverRandomShapes) {
  std::mt19937 rng(23);
  for (int round = 0; round < 4; ++round) {
    const int n = uniform(rng, 1, 5000);
    SCOPED_TRACE("n " + std::to_string(n));
    const Exec space(lightning::work::block(uniform(rng, 1, n)));
    KView<double*> hx("x", n), hy("y", n);
    KView<int64_t*> hk("k", n);
    for (int i = 0; i < n; ++i) {
      hx(i) = (i % 17) * 0.5;  // halves of small integers: every order sums exactly
      hy(i) = (i % 5) - 2.0;
      hk(i) = (i * 7919) % 1009 - 500;
    }
    auto x = distributed_copy(hx, lightning::dist::block(uniform(rng, 1, n)));
    auto y = distributed_copy(hy, lightning::dist::block(uniform(rng, 1, n)));
    auto k = distributed_copy(hk, lightning::dist::block(uniform(rng, 1, n)));
    EXPECT_EQ(lk_lambda::dot<Exec>(space, x, y), lk_lambda::dot<Host>(Host(), hx, hy));
    EXPECT_EQ(lk_lambda::largest<Exec>(k, -3), lk_lambda::largest<Host>(hk, -3));
    EXPECT_EQ(lk_lambda::count_equal<Exec>(space, k, hk(n / 2)),
              lk_lambda::count_equal<Host>(Host(), hk, hk(n / 2)));
  }
}

TEST(KokkosKernelLambda, YAxWithTeamsAndWithoutMatchesTheHostSpace) {
  std::mt19937 rng(29);
  for (const int team_size : {1, 3, 16, 64, 256}) {
    if (team_size > 16 && !lk_test::on_gpus()) continue;
    const int rows = uniform(rng, 1, 300), cols = uniform(rng, 1, 200);
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", team size " +
                 std::to_string(team_size));
    KView<double**> hA("A", rows, cols);
    KView<double*> hx("x", cols), hy("y", rows);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) hA(i, j) = (i + 2 * j) % 7 - 3;
    for (int j = 0; j < cols; ++j) hx(j) = j % 3;
    for (int i = 0; i < rows; ++i) hy(i) = i % 4 - 1;
    auto A = distributed_copy(hA, lightning::dist::block(uniform(rng, 1, rows)));
    auto x = distributed_copy(hx, lightning::dist::replicated());
    auto y = distributed_copy(hy, lightning::dist::block(uniform(rng, 1, rows)));
    EXPECT_EQ(lk_lambda::team_yax<Exec>(A, x, y, team_size),
              lk_lambda::team_yax<Host>(hA, hx, hy, 1));
    EXPECT_EQ(lk_lambda::yax<Exec>(A, x, y), lk_lambda::yax<Host>(hA, hx, hy));
  }
}

TEST(KokkosKernelLambda, KeepsItsBodyAndCapturesForGpuCode) {
  LView<float*> x("x", 8), y("y", 8);
  const float a = 2;
  const auto kernel = LIGHTNING_LAMBDA(
      "global i => read x[i], readwrite y[i]", (x, y, a),
      (const int64_t i) { y(i) = a * x(i) + y(i); });
  const auto& registration = lightning::kernel_registration<std::decay_t<decltype(kernel)>>();
  EXPECT_EQ(registration.source.rfind("KOKKOS_INLINE_FUNCTION auto operator()(const int64_t i) "
                                      "const { y(i) = a * x(i) + y(i); }",
                                      0),
            0u)
      << registration.source;
  const auto& info = lightning::kernel::KernelRegistry::get(registration.id);
  EXPECT_EQ(info.device.kind, lightning::kernel::DeviceCodeKind::kFunctorBody);
  ASSERT_EQ(info.description.signature.params.size(), 3u);
  EXPECT_EQ(info.description.signature.params[0].name, "x");
  EXPECT_EQ(info.description.signature.params[2].name, "a");
  EXPECT_FALSE(info.description.signature.params[2].is_array);
  // The captures sit where the list's order puts them: x, y (Views), then the float.
  EXPECT_EQ(info.device.param_offsets[0], 0u);
  EXPECT_EQ(info.device.param_offsets[1], sizeof(LView<float*>));
  EXPECT_EQ(info.device.param_offsets[2], 2 * sizeof(LView<float*>));
  EXPECT_EQ(info.functor_size, sizeof(kernel));
  // The kernel runs (as a launch through the same wrapper).
  Kokkos::deep_copy(x, 1.0f);
  Kokkos::deep_copy(y, 3.0f);
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, 8), kernel);
  EXPECT_EQ(to_host(y)(7), 5.0f);
}

TEST(KokkosKernelLambda, AnAnnotationMistakeNamesTheLaunchAndLeavesTheRuntimeUsable) {
  LView<float*> x("x", 16), y("y", 16);
  const float a = 1;
  std::string e;
  try {
    Kokkos::parallel_for(
        "misnamed", Kokkos::RangePolicy<Exec>(0, 16),
        LIGHTNING_LAMBDA(
            "global i => read x[i], write z[i]", (x, y, a), (const int i) { y(i) = a * x(i); }));
    lightning::fence();
  } catch (const lightning::Error& error) {
    e = error.what();
  }
  EXPECT_NE(e.find("unknown array 'z' (kernel has: x, y)"), std::string::npos) << e;
  EXPECT_NE(e.find("^"), std::string::npos) << e;
  Kokkos::deep_copy(y, 4.0f);
  EXPECT_EQ(to_host(y)(3), 4.0f);
}

TEST(KokkosKernelLambda, ALastArgumentThatIsNotParametersAndBodyIsAnError) {
  EXPECT_EQ(lightning::detail::lambda_operator_source(" (int i, double& s) { s += (i); }"),
            "KOKKOS_INLINE_FUNCTION auto operator()(int i, double& s) const { s += (i); }");
  try {
    lightning::detail::lambda_operator_source("{ y(i) = 0; }");
    ADD_FAILURE() << "no error";
  } catch (const lightning::Error& error) {
    EXPECT_NE(std::string(error.what()).find("the lambda's parameters and body"), std::string::npos)
        << error.what();
  }
}

}  // namespace
