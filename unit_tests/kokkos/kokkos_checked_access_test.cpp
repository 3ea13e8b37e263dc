// Checked mode (the test suite runs with LIGHTNING_CHECK_ACCESS=on): kernels whose
// annotations under-declare what they touch fail at the next fence with an error naming the
// kernel, the View, the element and the annotation rule, and the runtime stays usable. Runs
// in one process and under mpirun (np 2, 3): every rank checks its own superblocks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kokkos_test_kernels.hpp"
#include "lightning_kokkos/cuda_kernel.hpp"

namespace {

using lk_test::Exec;
using lk_test::KView;
using lk_test::LView;
using lk_test::on_gpus;

/// The error the next fence throws, or "" when it throws none.
std::string fence_error() {
  try {
    Kokkos::fence();
  } catch (const lightning::Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Reads in(i + 1) under `read in[i]`: one element past the declared region at every
/// superblock's last thread.
template <class In, class Out>
struct ReadsAhead {
  In in;
  Out out;
  LIGHTNING_KERNEL(
      ReadsAhead, "global i => read in[i], write out[i]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int i)
          const { out(i) = in(i) + (i + 1 < static_cast<int>(in.extent(0)) ? in(i + 1) : 0); })
};

/// Writes `in`, which its annotation declares read-only.
template <class In, class Out>
struct WritesItsInput {
  In in;
  Out out;
  LIGHTNING_KERNEL(
      WritesItsInput, "global i => read in[i], write out[i]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
        out(i) = in(i);
        in(i) = -1;
      })
};

/// Writes out(i + 1) under `write out[i]`.
template <class Out>
struct WritesAhead {
  Out out;
  LIGHTNING_KERNEL(
      WritesAhead, "global i => write out[i]", (out),
      KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
        out(i) = 1;
        if (i + 1 < static_cast<int>(out.extent(0))) out(i + 1) = 1;
      })
};

/// Reads row i of m through a subview, one column past what `read m[i, 0:cols-2]` declares.
template <class M, class S>
struct ReadsPastThroughASubview {
  M m;
  S s;
  int64_t cols = 0;
  LIGHTNING_KERNEL(
      ReadsPastThroughASubview, "global i => read m[i, 0:cols-2], write s[i]", (m, s, cols),
      KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
        const auto row = Kokkos::subview(m, i, Kokkos::ALL);
        double sum = 0;
        for (int64_t j = 0; j < cols; ++j) sum += row(j);
        s(i) = sum;
      })
};

// (Ported kernels in checked mode: kokkos_ported_blocks_test.cpp.)

TEST(KokkosCheckedAccess, ReadPastTheDeclaredRegionNamesViewElementAndRule) {
  const int n = 1024;
  LView<float*> in("signal", n), out("result", n);
  Kokkos::deep_copy(in, 1.0f);
  const Exec space(lightning::work::block(256));  // four superblocks
  Kokkos::parallel_for("reads ahead", Kokkos::RangePolicy<Exec>(space, 0, n),
                       ReadsAhead<LView<float*>, LView<float*>>{in, out});
  const std::string e = fence_error();
  ASSERT_FALSE(e.empty()) << "an under-declared read passed in checked mode";
  EXPECT_TRUE(has(e, "launch 'reads ahead' (kernel '(anonymous namespace)::ReadsAhead<")) << e;
  EXPECT_TRUE(has(e, "View 'signal' (parameter 'in')")) << e;
  EXPECT_TRUE(has(e, "that the annotation declares to read")) << e;
  // The rule, with a caret under it.
  EXPECT_TRUE(has(e,
                  "annotation:1:13: the rule for 'in'\nglobal i => read in[i], write out[i]\n"
                  "            ^"))
      << e;

  // The runtime stays usable, and the next fence has nothing stale to report. `result` was
  // written by the failed launch: it must be overwritten before it is read again.
  Kokkos::deep_copy(out, 0.0f);
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(0, n),
                       lk_test::Saxpy<LView<const float*>, LView<float*>>{in, out, 2.0f});
  EXPECT_EQ(fence_error(), "");
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  EXPECT_EQ(h(0), 2.0f);
}

TEST(KokkosCheckedAccess, ReadPastTheDeclaredRegionThroughASubviewNamesTheView) {
  const int n = 64, cols = 8;
  LView<double**> m("grid", n, cols);
  LView<double*> s("sums", n);
  Kokkos::deep_copy(m, 1.0);
  Kokkos::parallel_for("row past its columns", Kokkos::RangePolicy<Exec>(0, n),
                       ReadsPastThroughASubview<LView<const double**>, LView<double*>>{m, s, cols});
  const std::string e = fence_error();
  ASSERT_FALSE(e.empty()) << "an under-declared read through a subview passed in checked mode";
  EXPECT_TRUE(has(e, "View 'grid' (parameter 'm')")) << e;
  EXPECT_TRUE(has(e, "that the annotation declares to read")) << e;
  Kokkos::deep_copy(s, 0.0);  // written by the failed launch
  EXPECT_EQ(fence_error(), "");
}

TEST(KokkosCheckedAccess, AViewAFailedLaunchWroteIsRefusedUntilOverwritten) {
  const int n = 1024;
  LView<float*> in("signal", n), out("partial", n);
  Kokkos::deep_copy(in, 1.0f);
  const Exec space(lightning::work::block(256));
  Kokkos::parallel_for("reads ahead", Kokkos::RangePolicy<Exec>(space, 0, n),
                       ReadsAhead<LView<float*>, LView<float*>>{in, out});
  EXPECT_FALSE(fence_error().empty());
  auto h = Kokkos::create_mirror_view(out);
  const auto refused = [&](auto&& use, const std::string& told) {
    try {
      use();
      ADD_FAILURE() << "a poisoned View was used";
    } catch (const lightning::Error& e) {
      EXPECT_TRUE(has(e.what(), "View 'partial' holds no valid data in [")) << e.what();
      EXPECT_TRUE(has(e.what(), "which writes it, failed")) << e.what();
      EXPECT_TRUE(has(e.what(), told)) << e.what();
    }
  };
  refused([&] { Kokkos::deep_copy(h, out); }, "before reading it");
  refused(
      [&] {
        Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(0, n),
                             lk_test::Saxpy<LView<const float*>, LView<float*>>{in, out, 2.0f});
      },
      "reads it");
  // A fill of part of it does not renew it; a launch that writes every element does.
  Kokkos::deep_copy(Kokkos::subview(out, std::make_pair(0, 10)), 5.0f);
  refused([&] { Kokkos::deep_copy(h, out); }, "before reading it");
  Kokkos::parallel_for("copy", Kokkos::RangePolicy<Exec>(space, 0, n),
                       lightning::annotate(
                           "global i => read signal[i], write partial[i]",
                           KOKKOS_LAMBDA(const int i) { out(i) = 3 * in(i); }));
  Kokkos::deep_copy(h, out);
  EXPECT_EQ(h(0), 3.0f);
  EXPECT_EQ(h(n - 1), 3.0f);
}

// The second launch is served from the plan cache (same kernel, same layouts): its failure
// poisons its own View, which the cached plan's tasks name after remapping.
TEST(KokkosCheckedAccess, AFailedLaunchFromThePlanCachePoisonsItsOwnViews) {
  const int n = 1024;
  LView<float*> in("signal", n), first("first", n), second("second", n);
  Kokkos::deep_copy(in, 1.0f);
  const Exec space(lightning::work::block(256));
  for (LView<float*>* out : {&first, &second}) {
    Kokkos::parallel_for("reads ahead", Kokkos::RangePolicy<Exec>(space, 0, n),
                         ReadsAhead<LView<float*>, LView<float*>>{in, *out});
    EXPECT_FALSE(fence_error().empty());
  }
  Kokkos::deep_copy(first, 2.0f);  // renews all of it
  auto h = Kokkos::create_mirror_view(first);
  Kokkos::deep_copy(h, first);
  EXPECT_EQ(h(n - 1), 2.0f);
  try {
    Kokkos::deep_copy(h, second);
    ADD_FAILURE() << "the View the cached launch failed to write was read";
  } catch (const lightning::Error& e) {
    EXPECT_TRUE(has(e.what(), "View 'second' holds no valid data in [")) << e.what();
  }
  EXPECT_FALSE(has(fence_error(), "first"));
}

/// Writes y(i) only where x(i) > 0 under `overwrite y[i]`, which promises every y(i).
template <class X, class Y>
struct MaskedOverwrite {
  X x;
  Y y;
  LIGHTNING_KERNEL(
      MaskedOverwrite, "global i => read x[i], overwrite y[i]", (x, y),
      KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
        if (x(i) > 0) y(i) = x(i);
      })
};

TEST(KokkosCheckedAccess, AnOverwriteThatLeavesElementsAloneIsFound) {
  const int n = 600;
  LView<float*> x("mask", n), y("masked", n);
  auto hx = Kokkos::create_mirror_view(x);
  for (int i = 0; i < n; ++i) hx(i) = i == 250 ? -1.0f : 1.0f;  // one element left alone
  Kokkos::deep_copy(x, hx);
  const Exec space(lightning::work::block(200));
  Kokkos::parallel_for("masked", Kokkos::RangePolicy<Exec>(space, 0, n),
                       MaskedOverwrite<LView<const float*>, LView<float*>>{x, y});
  const std::string e = fence_error();
  EXPECT_TRUE(has(e, "kernel")) << e;
  EXPECT_TRUE(has(e, "superblock [200, 400)")) << e;
  EXPECT_TRUE(has(e,
                  "View 'masked' (parameter 'y'): element (250) was not written, but the "
                  "annotation declares that the kernel overwrites all of [200, 400)"))
      << e;
  EXPECT_TRUE(has(e, "overwrite y[i]")) << e;  // the rule, with its caret
  // Where every element is written, the same kernel passes and the runtime goes on.
  Kokkos::deep_copy(x, 2.0f);
  Kokkos::parallel_for("masked", Kokkos::RangePolicy<Exec>(space, 0, n),
                       MaskedOverwrite<LView<const float*>, LView<float*>>{x, y});
  EXPECT_EQ(fence_error(), "");
  auto hy = Kokkos::create_mirror_view(y);
  Kokkos::deep_copy(hy, y);
  for (int i = 0; i < n; ++i) ASSERT_EQ(hy(i), 2.0f) << i;
}

/// Copies bytes, counts each index's runs and sums what it wrote.
template <class X, class Y, class R>
struct CopyBytes {
  X x;
  Y y;
  R runs;
  LIGHTNING_KERNEL(
      CopyBytes, "global i => read x[i], overwrite y[i], readwrite runs[i]", (x, y, runs),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, int64_t& sum) const {
        y(i) = x(i);
        runs(i) += 1;
        sum += y(i);
      })
};

// Checked mode marks an overwritten region with bytes 0xA5 and looks for them after the run:
// a uint8 kernel writes 165 (those bytes) as a value. Such an element is told from one left
// alone by a second run over the same input, which must leave the program's results as one
// run would: every value, the read-write counts, the reduction.
TEST(KokkosCheckedAccess, AnElementWrittenWithTheMarkersBytesIsNoUnwrittenOne) {
  const int n = 1000;
  LView<uint8_t*> x("bytes", n), y("copied", n);
  LView<int32_t*> runs("runs", n);
  auto hx = Kokkos::create_mirror_view(x);
  int64_t expected = 0;
  for (int i = 0; i < n; ++i) {
    hx(i) = static_cast<uint8_t>(i % 3 == 0 ? 165 : i % 256);
    expected += hx(i);
  }
  Kokkos::deep_copy(x, hx);
  const Exec space(lightning::work::block(300));
  using Kernel = CopyBytes<LView<const uint8_t*>, LView<uint8_t*>, LView<int32_t*>>;
  for (int launch = 1; launch <= 2; ++launch) {
    int64_t sum = 0;
    Kokkos::parallel_reduce("bytes", Kokkos::RangePolicy<Exec>(space, 0, n), Kernel{x, y, runs},
                            sum);
    EXPECT_EQ(fence_error(), "");
    EXPECT_EQ(sum, expected);
    auto hy = Kokkos::create_mirror_view(y);
    auto hr = Kokkos::create_mirror_view(runs);
    Kokkos::deep_copy(hy, y);
    Kokkos::deep_copy(hr, runs);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(hy(i), hx(i)) << i;
      ASSERT_EQ(hr(i), launch) << i;  // each launch counted once, second runs or not
    }
  }
  // An element left alone is still found among the ones written with the marker's bytes.
  for (int i = 0; i < n; ++i) hx(i) = i == 450 ? 0 : 165;
  Kokkos::deep_copy(x, hx);
  Kokkos::parallel_for("masked bytes", Kokkos::RangePolicy<Exec>(space, 0, n),
                       MaskedOverwrite<LView<const uint8_t*>, LView<uint8_t*>>{x, y});
  const std::string e = fence_error();
  EXPECT_TRUE(has(e, "View 'copied' (parameter 'y'): element (450) was not written")) << e;
}

TEST(KokkosCheckedAccess, WriteToAReadOnlyViewIsFound) {
  const int n = 100;
  LView<float*> in("input", n), out("output", n);
  Kokkos::deep_copy(in, 3.0f);
  Kokkos::parallel_for("writes input", Kokkos::RangePolicy<Exec>(0, n),
                       WritesItsInput<LView<float*>, LView<float*>>{in, out});
  const std::string e = fence_error();
  EXPECT_TRUE(has(e, "View 'input' (parameter 'in'): element (")) << e;
  EXPECT_TRUE(has(e, "was written, but the annotation declares")) << e;
  EXPECT_TRUE(has(e, "only to read it")) << e;
}

TEST(KokkosCheckedAccess, WritePastTheDeclaredRegionIsFound) {
  const int n = 1024;
  LView<float*> out("ahead", n);
  const Exec space(lightning::work::block(256));  // four superblocks
  Kokkos::parallel_for("writes ahead", Kokkos::RangePolicy<Exec>(space, 0, n),
                       WritesAhead<LView<float*>>{out});
  const std::string e = fence_error();
  EXPECT_TRUE(has(e, "View 'ahead' (parameter 'out'): element (")) << e;
  EXPECT_TRUE(has(e, "that the annotation declares to write")) << e;
}

TEST(KokkosCheckedAccess, LayoutLeftIndicesAreTheViewsOwn) {
  // A 4 x 6 column-major View read at (i, j + 1) under `read m[i, j]`: the element named is
  // (i, j + 1) in the View's order, not the stored order.
  using Left = lightning::View<double**, Kokkos::LayoutLeft>;
  Left m("columns", 4, 6), o("copy", 4, 6);
  Kokkos::parallel_for(Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>({0, 0}, {4, 5}),
                       lightning::annotate(
                           "global [i, j] => read columns[i, j], write copy[i, j]",
                           KOKKOS_LAMBDA(const int i, const int j) { o(i, j) = m(i, j + 1); }));
  const std::string e = fence_error();
  // Thread (i, j) reads column j + 1: in the View's order, the element's second index is
  // the region's end along the second axis, and its first index is inside the region.
  const std::regex told(
      R"(View 'columns' \(parameter 'columns'\): element \((\d+), (\d+)\) is outside the )"
      R"(region \[(\d+), (\d+)\) x \[(\d+), (\d+)\))");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(e, match, told)) << e;
  const auto at = [&](int k) { return std::stoi(match[k].str()); };
  EXPECT_EQ(at(2), at(6)) << e;
  EXPECT_TRUE(at(3) <= at(1) && at(1) < at(4)) << e;
}

// The mutation test: one stencil body under its right annotation and under annotations that
// each under-declare by one element or by mode, over every one-dimensional distribution.
struct Mutation {
  const char* annotation;
  const char* culprit;  // the View the error must name; null: no error
};

TEST(KokkosCheckedAccess, EveryUnderDeclarationIsCaughtOverEveryDistribution) {
  const int n = 300;
  const std::vector<Mutation> mutations = {
      {"global i => read in[i-1:i+1], write out[i]", nullptr},
      {"global i => read in[i:i+1], write out[i]", "in"},       // low halo short by one
      {"global i => read in[i-1:i], write out[i]", "in"},       // high halo short by one
      {"global i => read in[i], write out[i]", "in"},           // no halo
      {"global i => read in[i-1:i+1], write out[i+1]", "out"},  // write shifted
      {"global i => read in[i-1:i+1], read out[i]", "out"},     // a write declared read
  };
  const std::vector<std::pair<std::string, lightning::DataDistribution>> distributions = {
      {"block", lightning::dist::block(70)},
      {"block_cyclic", lightning::dist::block_cyclic(32)},
      {"stencil", lightning::dist::stencil(100, 1)},
      {"replicated", lightning::dist::replicated()},
      {"centralized", lightning::dist::centralized(lightning::DeviceId(0))},
  };
  KView<float*> expected("expected", n);
  for (int i = 1; i < n - 1; ++i) expected(i) = float(3 * i + 3);
  for (const auto& [name, distribution] : distributions) {
    LView<float*> in("in", n, distribution), out("out", n);
    auto h = Kokkos::create_mirror_view(in);
    for (int i = 0; i < n; ++i) h(i) = float(i + 1);
    Kokkos::deep_copy(in, h);
    for (const Mutation& m : mutations) {
      SCOPED_TRACE(name + ": " + m.annotation);
      Kokkos::deep_copy(out, 0.0f);
      // Superblocks as the chunks go: a kernel that writes what it declared read writes into a
      // private copy on host devices, not into a chunk another device may be copying.
      Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(1, n - 1),
                           lightning::annotate(
                               m.annotation, KOKKOS_LAMBDA(const int i) {
                                 out(i) = in(i - 1) + in(i) + in(i + 1);
                               }));
      const std::string e = fence_error();
      if (!m.culprit) {
        EXPECT_EQ(e, "");
        auto result = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
        for (int i = 1; i < n - 1; ++i) ASSERT_EQ(result(i), expected(i)) << i;
        continue;
      }
      EXPECT_TRUE(has(e, std::string("View '") + m.culprit + "'")) << e;
      EXPECT_TRUE(has(e, std::string("the rule for '") + m.culprit + "'")) << e;
    }
  }
}

}  // namespace
