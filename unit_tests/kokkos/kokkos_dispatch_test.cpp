// parallel_for on lightning::Distributed against the same functors on Kokkos' host space.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/error.hpp"
#include "driver/driver.hpp"
#include "kernel/kernel_registry.hpp"
#include "kokkos_test_kernels.hpp"

namespace {

using lk_test::Exec;
using lk_test::Host;
using lk_test::KView;
using lk_test::LView;

TEST(KokkosDispatch, SaxpyMatchesHost) {
  const int n = 1000;
  KView<float*> hx("hx", n), hy("hy", n);
  for (int i = 0; i < n; ++i) {
    hx(i) = static_cast<float>(i);
    hy(i) = static_cast<float>(n - i);
  }
  LView<float*> x("x", n), y("y", n);
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);

  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Host>(0, n),
                       lk_test::Saxpy<KView<const float*>, KView<float*>>{hx, hy, 2.0f});
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(0, n),
                       lk_test::Saxpy<LView<const float*>, LView<float*>>{x, y, 2.0f});
  Kokkos::fence();

  auto result = Kokkos::create_mirror_view(y);
  Kokkos::deep_copy(result, y);
  for (int i = 0; i < n; ++i) ASSERT_EQ(result(i), hy(i)) << i;
}

// A Kokkos range launch without a work distribution follows the chunks of its array wherever
// their edges are (here 1001 elements on two devices: 501 and 500), so no superblock spans
// two chunks, which would run through a temporary copy of its region: its creation, the
// copies in and out and their stagings. Each launch then stages at most its two superblocks'
// chunks (fewer when it is issued behind the launch before); through temporaries it was 7.
TEST(KokkosDispatch, ADefaultLaunchOverUnevenChunksRunsInPlace) {
  if (lightning::detail::runtime().devices().size() != 2) GTEST_SKIP() << "counts for 2 devices";
  const int n = 1001;
  LView<float*> x("x", n), y("y", n);
  Kokkos::deep_copy(x, 1.0f);
  Kokkos::deep_copy(y, 2.0f);
  const auto saxpy = lk_test::Saxpy<LView<const float*>, LView<float*>>{x, y, 2.0f};
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(0, n), saxpy);
  Kokkos::fence();
  auto stagings = [] {
    uint64_t count = 0;
    for (const auto& r : lightning::detail::runtime().memory_reports())
      count += r.counters.stagings;
    return count;
  };
  const uint64_t before = stagings();
  const int launches = 4;
  for (int launch = 0; launch < launches; ++launch)
    Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(0, n), saxpy);
  Kokkos::fence();
  EXPECT_LE(stagings() - before, uint64_t{2 * launches});
  auto result = Kokkos::create_mirror_view(y);
  Kokkos::deep_copy(result, y);
  for (int i = 0; i < n; ++i) ASSERT_EQ(result(i), 12.0f) << i;
}

TEST(KokkosDispatch, StencilWithWorkDistributionMatchesHost) {
  const int n = 1000;
  KView<float*> ha("ha", n), hb("hb", n);
  for (int i = 0; i < n; ++i) ha(i) = hb(i) = static_cast<float>((i * 7) % 13);
  LView<float*> a("a", n, lightning::dist::stencil(250, 1));
  LView<float*> b("b", n, lightning::dist::stencil(250, 1));
  Kokkos::deep_copy(a, ha);
  Kokkos::deep_copy(b, hb);

  Exec space(lightning::work::block(256));
  for (int it = 0; it < 6; ++it) {
    const bool even = it % 2 == 0;
    Kokkos::parallel_for(
        "stencil", Kokkos::RangePolicy<Host>(1, n - 1),
        lk_test::Stencil<KView<const float*>, KView<float*>>{even ? ha : hb, even ? hb : ha});
    Kokkos::parallel_for(
        "stencil", Kokkos::RangePolicy<Exec>(space, 1, n - 1),
        lk_test::Stencil<LView<const float*>, LView<float*>>{even ? a : b, even ? b : a});
  }
  auto result = Kokkos::create_mirror_view(a);
  Kokkos::deep_copy(result, a);
  for (int i = 0; i < n; ++i) ASSERT_EQ(result(i), ha(i)) << i;
}

// A kernel may leave alone elements its `write` rule names: they keep their values wherever
// the superblocks fall, also where a superblock spans chunks and writes through a temporary
// (chunks that are not a multiple of the 256-thread blocks, or a work distribution of its
// own). This once came back as zeros there.
TEST(KokkosDispatch, AConditionalWriteLeavesTheOtherElementsAsTheyWere) {
  std::mt19937 rng(2026);
  for (int round = 0; round < 12; ++round) {
    const int n = std::uniform_int_distribution<int>(1, 3000)(rng);
    const int64_t chunk = std::uniform_int_distribution<int64_t>(1, n)(rng);
    KView<float*> hx("hx", n), hy("hy", n);
    for (int i = 0; i < n; ++i) {
      hx(i) = static_cast<float>(i % 3 == 0 ? i + 1 : -i);
      hy(i) = static_cast<float>(5000 + i);
    }
    LView<float*> x("x", n, lightning::dist::block(chunk)),
        y("y", n, lightning::dist::block(chunk));
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y, hy);
    Kokkos::parallel_for("masked", Kokkos::RangePolicy<Host>(0, n),
                         lk_test::MaskedCopy<KView<const float*>, KView<float*>>{hx, hy});
    const auto kernel = lk_test::MaskedCopy<LView<const float*>, LView<float*>>{x, y};
    if (round % 2 == 0) {
      Kokkos::parallel_for("masked", Kokkos::RangePolicy<Exec>(0, n), kernel);
    } else {
      const int64_t work = std::uniform_int_distribution<int64_t>(1, n)(rng);
      Kokkos::parallel_for(
          "masked", Kokkos::RangePolicy<Exec>(Exec(lightning::work::block(work)), 0, n), kernel);
    }
    auto result = Kokkos::create_mirror_view(y);
    Kokkos::deep_copy(result, y);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(result(i), hy(i)) << "element " << i << " of " << n << ", chunks of " << chunk;
  }
}

TEST(KokkosDispatch, RowSumOfRank2WithScalarsMatchesHost) {
  const int rows = 97, cols = 13;
  KView<double**> hm("hm", rows, cols);
  KView<double*> hs("hs", rows);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) hm(i, j) = i * 100 + j;
  LView<double**> m("m", rows, cols, lightning::dist::rows(10));
  LView<double*> s("s", rows);
  Kokkos::deep_copy(m, hm);

  Kokkos::parallel_for("rowsum", Kokkos::RangePolicy<Host>(0, rows),
                       lk_test::RowSum<KView<const double**>, KView<double*>>{hm, hs, cols, 0.5});
  Kokkos::parallel_for("rowsum", Kokkos::RangePolicy<Exec>(0, rows),
                       lk_test::RowSum<LView<const double**>, LView<double*>>{m, s, cols, 0.5});
  KView<double*> result("result", rows);
  Kokkos::deep_copy(result, s);
  for (int i = 0; i < rows; ++i) ASSERT_EQ(result(i), hs(i)) << i;
}

TEST(KokkosDispatch, Rank3MatchesHost) {
  const int n0 = 9, n1 = 4, n2 = 5;
  KView<float***> hin("hin", n0, n1, n2), hout("hout", n0, n1, n2);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j)
      for (int k = 0; k < n2; ++k) hin(i, j, k) = static_cast<float>(i * 100 + j * 10 + k);
  LView<float***> in("in", n0, n1, n2), out("out", n0, n1, n2);
  Kokkos::deep_copy(in, hin);
  Kokkos::parallel_for("twice", Kokkos::RangePolicy<Host>(0, n0),
                       lk_test::Twice3<KView<const float***>, KView<float***>>{hin, hout});
  // A 1-D launch cannot follow a 3-D array's chunks (the default): give superblocks.
  Exec space(lightning::work::block(4));
  Kokkos::parallel_for("twice", Kokkos::RangePolicy<Exec>(space, 0, n0),
                       lk_test::Twice3<LView<const float***>, LView<float***>>{in, out});
  KView<float***> result("result", n0, n1, n2);
  Kokkos::deep_copy(result, out);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < n1; ++j)
      for (int k = 0; k < n2; ++k) ASSERT_EQ(result(i, j, k), hout(i, j, k));
}

TEST(KokkosDispatch, KernelRegistrationDescribesTheFunctor) {
  using F = lk_test::RowSum<LView<const double**>, LView<double*>>;
  static_assert(std::is_standard_layout_v<F>);
  const auto& reg = lightning::kernel_registration<F>();
  EXPECT_NE(reg.name.find("lk_test::RowSum<"), std::string::npos) << reg.name;
  EXPECT_NE(reg.source.find("s(i) = scale * t;"), std::string::npos) << reg.source;
  const auto& info = lightning::kernel::KernelRegistry::get(reg.id);
  EXPECT_EQ(info.functor_size, sizeof(F));
  EXPECT_EQ(info.description.annotation, "global i => read m[i, 0:cols-1], write s[i]");
  lightning::annotation::KernelSignature expected;
  expected.add_array("m", lightning::DataType::kFloat64, 2)
      .add_array("s", lightning::DataType::kFloat64, 1)
      .add_scalar("cols", lightning::DataType::kInt64)
      .add_scalar("scale", lightning::DataType::kFloat64);
  EXPECT_EQ(info.description.signature, expected);
  ASSERT_EQ(info.description.arrays.size(), 2u);
  EXPECT_EQ(info.description.arrays[0].byte_offset, offsetof(F, m));
  EXPECT_EQ(info.description.arrays[0].rank, 2);
  EXPECT_EQ(info.description.arrays[1].byte_offset, offsetof(F, s));
  ASSERT_EQ(info.description.scalars.size(), 1u);  // only integers: annotations name those
  EXPECT_EQ(info.description.scalars[0].param, 2);
  EXPECT_EQ(info.description.scalars[0].byte_offset, offsetof(F, cols));
}

TEST(KokkosDispatch, TaskErrorSurfacesAtKokkosFence) {
  LView<float*> x("x", 100);
  Kokkos::parallel_for("cursed", Kokkos::RangePolicy<Exec>(0, 100), lk_test::Cursed{x, 42});
  try {
    Kokkos::fence();
    FAIL() << "Kokkos::fence() did not report the failed task";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("element is cursed"), std::string::npos) << e.what();
  }
  // The runtime stays usable.
  Kokkos::parallel_for("cursed", Kokkos::RangePolicy<Exec>(0, 100), lk_test::Cursed{x, -1});
  KView<float*> h("h", 100);
  Kokkos::deep_copy(h, x);
  EXPECT_EQ(h(42), 1.0f);
}

// CUDA's vector types as elements: the bytes round-trip, a fill writes every lane, and a
// kernel reads and writes them by lane, as Kokkos' host space does.
TEST(KokkosDispatch, VectorElementTypesRoundTripFillAndRunInKernels) {
  using lightning::float2;
  const int n = 777;
  KView<float2*> hx("hx", n), hy("hy", n), hz("hz", n);
  for (int i = 0; i < n; ++i) {
    hx(i) = float2{float(i % 7), float(-(i % 5))};
    hy(i) = float2{0.5f, float(i % 3)};
  }
  LView<float2*> x("x", n, lightning::dist::block(100)), y("y", n), z("z", n);
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);
  Kokkos::deep_copy(z, float2{9, 8});
  const auto filled = Kokkos::create_mirror_view(z);
  Kokkos::deep_copy(filled, z);
  EXPECT_EQ(filled(n - 1).x, 9.0f);
  EXPECT_EQ(filled(n - 1).y, 8.0f);

  using K = lk_test::ComplexMultiply<KView<const float2*>, KView<const float2*>, KView<float2*>>;
  using L = lk_test::ComplexMultiply<LView<const float2*>, LView<const float2*>, LView<float2*>>;
  Kokkos::parallel_for("cmul", Kokkos::RangePolicy<lk_test::Host>(0, n), K{hx, hy, hz, 1.0f});
  Kokkos::parallel_for("cmul", Kokkos::RangePolicy<Exec>(0, n), L{x, y, z, 1.0f});
  const auto got = Kokkos::create_mirror_view(z);
  Kokkos::deep_copy(got, z);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(got(i).x, hz(i).x) << i;
    ASSERT_EQ(got(i).y, hz(i).y) << i;
  }
  // Views of every vector type: the runtime's element size is CUDA's.
  EXPECT_EQ(sizeof(lightning::double3), 24u);
  LView<lightning::double3*> d("d", 10);
  Kokkos::deep_copy(d, lightning::double3{1, 2, 3});
  const auto hd = Kokkos::create_mirror_view(d);
  Kokkos::deep_copy(hd, d);
  EXPECT_EQ(hd(9).z, 3.0);
}

TEST(KokkosDispatch, UnlistedViewInKernelIsAClearError) {
  LView<float*> x("x", 10), y("y", 10);
  Kokkos::parallel_for("unlisted", Kokkos::RangePolicy<Exec>(0, 10), lk_test::Unlisted{x, y});
  try {
    Kokkos::fence();
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("list it among the members"), std::string::npos)
        << e.what();
    // Where the superblock ran in this process, the error names the View; a worker rank
    // cannot (the View lives in rank 0's memory) and says "a lightning::View".
    const std::string what = e.what();
    EXPECT_TRUE(what.find("lightning::View 'y'") != std::string::npos ||
                (what.find("rank ") != std::string::npos &&
                 what.find("a lightning::View") != std::string::npos))
        << what;
  }
}

TEST(KokkosDispatch, LightningViewsOnAnotherSpaceAreAClearError) {
  LView<float*> x("x", 10), y("y", 10);
  try {
    Kokkos::parallel_for("saxpy on serial", Kokkos::RangePolicy<Kokkos::Serial>(0, 10),
                         lk_test::Saxpy<LView<const float*>, LView<float*>>{x, y, 3.0f});
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("lightning::View 'x' where its elements are not"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("not on Kokkos::Serial"), std::string::npos) << e.what();
  }
  // The runtime is still usable.
  Kokkos::deep_copy(x, 1.0f);
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(0, 10),
                       lk_test::Saxpy<LView<const float*>, LView<float*>>{x, y, 3.0f});
  KView<float*> h("h", 10);
  Kokkos::deep_copy(h, y);
  EXPECT_EQ(h(9), 3.0f);
}

TEST(KokkosDispatch, AnnotationNamingANonMemberIsAClearError) {
  LView<float*> x("x", 10);
  try {
    Kokkos::parallel_for("misnamed", Kokkos::RangePolicy<Exec>(0, 10), lk_test::Misnamed{x});
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("annotation:1:19: unknown array 'y' (kernel has: x)"), std::string::npos)
        << what;
    EXPECT_NE(what.find("^"), std::string::npos) << what;
  }
  Kokkos::fence();  // nothing was submitted; the runtime is usable
}

TEST(KokkosDispatch, EmptyViewMemberIsRefused) {
  LView<float*> x;
  EXPECT_THROW(
      Kokkos::parallel_for("empty", Kokkos::RangePolicy<Exec>(0, 10), lk_test::Cursed{x, -1}),
      lightning::Error);
}

TEST(KokkosDispatch, LaunchWithDroppedViewsStillRuns) {
  auto& d = lightning::detail::runtime();
  d.fence();
  const size_t before = d.array_count();
  {
    LView<float*> x("x", 1000), y("y", 1000);
    Kokkos::deep_copy(x, 1.0f);
    Kokkos::deep_copy(y, 2.0f);
    Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(0, 1000),
                         lk_test::Saxpy<LView<const float*>, LView<float*>>{x, y, 3.0f});
  }  // both arrays deleted while the launch may still run
  Kokkos::fence();
  EXPECT_EQ(d.array_count(), before);
}

}  // namespace
