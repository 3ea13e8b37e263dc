// What the binding checks at a launch and how it names it: a kernel's bytes must not hold
// host addresses that cannot travel (a plain Kokkos::View, a reference, a pointer to a
// local), and errors name the launch by its Kokkos label first. In one process and under
// mpirun (np 2, 3): the same errors on every rank count, and the runtime stays usable.
#include <gtest/gtest.h>

#include <cstring>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kokkos_test_kernels.hpp"
#include "kokkos_test_tool.hpp"

namespace {

using lk_test::error_of;
using lk_test::Exec;
using lk_test::KView;
using lk_test::LView;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// After an error: a correct launch runs and gives the right values.
void expect_runtime_usable() {
  const int n = 64;
  LView<float*> x("x", n), y("y", n);
  Kokkos::deep_copy(x, 1.0f);
  Kokkos::deep_copy(y, 1.0f);
  Kokkos::parallel_for("saxpy", Kokkos::RangePolicy<Exec>(0, n),
                       lk_test::Saxpy<LView<const float*>, LView<float*>>{x, y, 3.0f});
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  EXPECT_EQ(h(0), 4.0f);
  EXPECT_EQ(h(n - 1), 4.0f);
}

/// A functor with a plain Kokkos::View it does not list (listing one does not compile).
struct ReadsHostView {
  LView<double*> out;
  KView<double*> table;
  LIGHTNING_KERNEL(
      ReadsHostView, "global i => write out[i]", (out),
      void operator()(const int64_t i) const { out(i) = table(i); })
};

TEST(KokkosLaunchCheck, ALambdaCapturingAPlainKokkosViewIsRefusedNamingIt) {
  const int n = 32;
  LView<double*> out("out", n);
  KView<double*> weights("weights", n);
  Kokkos::deep_copy(weights, 2.0);
  const std::string e = error_of([&] {
    Kokkos::parallel_for(
        "scale", Kokkos::RangePolicy<Exec>(0, n),
        lightning::annotate(
            "global i => write out[i]", KOKKOS_LAMBDA(const int i) { out(i) = weights(i); }));
  });
  ASSERT_FALSE(e.empty()) << "a captured Kokkos::View passed";
  EXPECT_TRUE(has(e, "launch 'scale' (kernel '")) << e;
  EXPECT_TRUE(has(e, "holds an address inside Kokkos::View 'weights'")) << e;
  EXPECT_TRUE(has(e, "make it a lightning::View")) << e;
  // A pointer into it, too.
  const double* w = weights.data() + 3;
  const std::string p = error_of([&] {
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Exec>(0, n),
        lightning::annotate(
            "global i => write out[i]", KOKKOS_LAMBDA(const int i) { out(i) = w[0] * i; }));
  });
  EXPECT_TRUE(has(p, "inside Kokkos::View 'weights'")) << p;
  expect_runtime_usable();
}

TEST(KokkosLaunchCheck, AFunctorHoldingAPlainKokkosViewIsRefusedNamingIt) {
  const int n = 32;
  ReadsHostView f{LView<double*>("out", n), KView<double*>("lookup", n)};
  const std::string e =
      error_of([&] { Kokkos::parallel_for("lookup", Kokkos::RangePolicy<Exec>(0, n), f); });
  EXPECT_TRUE(has(e, "launch 'lookup' (kernel '")) << e;
  EXPECT_TRUE(has(e, "ReadsHostView")) << e;
  EXPECT_TRUE(has(e, "inside Kokkos::View 'lookup'")) << e;
  expect_runtime_usable();
}

TEST(KokkosLaunchCheck, ReferenceCapturesAndPointersToLocalsAreRefused) {
  const int n = 32;
  LView<float*> y("y", n);
  float scale = 2.0f;
  const std::string e = error_of([&] {
    Kokkos::parallel_for(
        "by reference", Kokkos::RangePolicy<Exec>(0, n),
        lightning::annotate("global i => write y[i]", [=, &scale](const int i) { y(i) = scale; }));
  });
  EXPECT_TRUE(has(e, "launch 'by reference' (kernel '")) << e;
  EXPECT_TRUE(has(e, "holds an address on this thread's stack")) << e;
  EXPECT_TRUE(has(e, "captures a variable by reference")) << e;
  const float* local = &scale;
  const std::string p = error_of([&] {
    Kokkos::parallel_for(
        Kokkos::RangePolicy<Exec>(0, n),
        lightning::annotate(
            "global i => write y[i]", KOKKOS_LAMBDA(const int i) { y(i) = *local; }));
  });
  EXPECT_TRUE(has(p, "holds an address on this thread's stack")) << p;
  // By value it runs.
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, n),
                       lightning::annotate(
                           "global i => write y[i]", KOKKOS_LAMBDA(const int i) { y(i) = scale; }));
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  EXPECT_EQ(h(n - 1), 2.0f);
}

/// An address in the stack's dead part, far below any frame a launch's checks run in: what
/// a closure's padding may hold by chance (bytes of an old frame).
__attribute__((noinline)) uintptr_t dead_stack_address(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  if (depth > 0) return dead_stack_address(depth - 1) + static_cast<uintptr_t>(frame[0] & 0);
  return reinterpret_cast<uintptr_t>(&frame[0]);
}

TEST(KokkosLaunchCheck, AnOldStackAddressInAClosureIsNoReference) {
  // An annotated lambda's captures are not listed, so every word of its closure is looked at;
  // one that holds a dead frame's address (as the padding after a captured float may, by
  // chance) must not be taken for a reference capture.
  const int n = 16;
  LView<int64_t*> y("y", n);
  const uintptr_t old_address = dead_stack_address(64);
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, n),
                       lightning::annotate(
                           "global i => write y[i]", KOKKOS_LAMBDA(const int i) {
                             y(i) = static_cast<int64_t>(old_address % 7);
                           }));
  EXPECT_EQ(lk_test::to_host(y)(n - 1), static_cast<int64_t>(old_address % 7));
}

/// Fills the stack below the caller's frame with `word`: the storage of what the caller
/// calls next (a launch's copies of a closure) holds it where nothing is written over it.
__attribute__((noinline)) void fill_stack_below(uintptr_t word) {
  volatile uintptr_t below[4096];
  for (volatile uintptr_t& w : below) w = word;
}

/// Launches `body` annotated to write y[i], i < n, from a frame below the caller's.
template <class Body>
__attribute__((noinline)) void launch_writing_y(const Body& body, int n) {
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, n),
                       lightning::annotate("global i => write y[i]", body));
}

TEST(KokkosLaunchCheck, PaddingThatReadsAsALiveStackAddressIsNoReference) {
  // The padding after a captured float keeps what the closure's storage held before. Here
  // the storage below this frame holds the address of a local of this frame, and the float's
  // bits are that address's lower half: the word of the float and its padding reads as the
  // address of a live local, as it may by chance (about one word in 10^5).
  const int n = 16;
  LView<int64_t*> y("y", n);
  int64_t local = 0;
  const auto address = reinterpret_cast<uintptr_t>(&local);
  const auto low = static_cast<uint32_t>(address);
  float bits = 0;
  std::memcpy(&bits, &low, sizeof bits);
  auto body = KOKKOS_LAMBDA(const int i) {
    uint32_t value = 0;
    std::memcpy(&value, &bits, sizeof value);
    y(i) = static_cast<int64_t>(value % 7);
  };
  // The closure is a View and a float: 4 bytes of it are padding, which a copy leaves alone.
  static_assert(sizeof(body) == sizeof(LView<int64_t*>) + 8);
  const lightning::detail::ByteRanges& padding = lightning::detail::closure_padding(body);
  ASSERT_EQ(padding.size(), 1u);
  EXPECT_EQ(padding[0].second - padding[0].first, 4u);
  fill_stack_below(address);
  launch_writing_y(body, n);
  EXPECT_EQ(lk_test::to_host(y)(n - 1), static_cast<int64_t>(low % 7));
  local = 1;
}

/// Listed numbers (a float with padding after it, an integer) and a pointer the functor
/// does not list.
struct PaddedScale {
  LView<int64_t*> y;
  float scale = 0;
  int64_t offset = 0;
  const float* unlisted = nullptr;
  LIGHTNING_KERNEL(
      PaddedScale, "global i => write y[i]", (y, scale, offset),
      void operator()(const int i) const { y(i) = static_cast<int64_t>(scale) + offset; })
};

TEST(KokkosLaunchCheck, AListedMembersWordIsNotTakenForAnAddressButAnUnlistedPointerIs) {
  const int n = 16;
  LView<int64_t*> y("y", n);
  // A listed number is a number, whatever its bits: here those of a stack address (and the
  // padding beside a listed float, which a copy leaves as it finds it, may be anything too).
  const float local = 0;
  PaddedScale f;
  f.y = y;
  f.scale = 3.0f;
  f.offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(&local));
  Kokkos::parallel_for("listed", Kokkos::RangePolicy<Exec>(0, n), f);
  EXPECT_EQ(lk_test::to_host(y)(n - 1), 3 + f.offset);
  // An address in a member the kernel does not list is still found.
  f.unlisted = &local;
  const std::string e =
      error_of([&] { Kokkos::parallel_for("unlisted", Kokkos::RangePolicy<Exec>(0, n), f); });
  EXPECT_TRUE(has(e, "launch 'unlisted'")) << e;
  EXPECT_TRUE(has(e, "holds an address on this thread's stack")) << e;
}

/// Lists a View its annotation has no rule for, and reads it.
template <class V>
struct ReadsAnUnnamedView {
  V x, y, z;
  LIGHTNING_KERNEL(
      ReadsAnUnnamedView, "global i => read x[i], write y[i]", (x, y, z),
      KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = x(i) + z(i); })
};

// The error of launch `label`, whose kernel reads its parameter `z`, View 'unnamed', without
// a rule for it: the parameter is named on every rank; the View's name is known where it was
// made, on rank 0, not on the other ranks. The runtime stays usable.
void expect_unnamed_view_error(const std::string& e, const std::string& label) {
  EXPECT_TRUE(has(e, "launch '" + label + "'")) << e;
  EXPECT_TRUE(has(e, "element access to")) << e;
  EXPECT_TRUE(has(e, "give the View a rule in the annotation")) << e;
  EXPECT_TRUE(has(e, "(parameter 'z')")) << e;
  if (!has(e, "(rank ") || has(e, "(rank 0,")) {
    EXPECT_TRUE(has(e, "lightning::View 'unnamed'")) << e;
  }
  expect_runtime_usable();
}

// Host devices run a kernel whose listed Views are all bound without their element checks
// (BoundCall); one the annotation does not name is unbound, and its access is still the
// clear error, with checked mode on or off (ctest runs this suite both ways).
TEST(KokkosLaunchCheck, AListedViewTheAnnotationDoesNotNameIsAClearErrorAtItsAccess) {
  if (lk_test::on_gpus()) GTEST_SKIP() << "host devices check element accesses";
  const int n = 64;
  LView<float*> x("x", n), y("y", n), z("unnamed", n);
  const std::string e = error_of([&] {
    Kokkos::parallel_for("reads z", Kokkos::RangePolicy<Exec>(0, n),
                         ReadsAnUnnamedView<LView<float*>>{x, y, z});
    Kokkos::fence();
  });
  expect_unnamed_view_error(e, "reads z");
}

/// A team kernel that lists a View its annotation has no rule for, and reads it in a
/// nested reduction.
template <class V, class Member>
struct TeamReadsAnUnnamedView {
  V x, z;
  int w = 1;
  LIGHTNING_KERNEL(
      TeamReadsAnUnnamedView, "block b => read x[b*w : b*w+w-1]", (x, z, w),
      KOKKOS_INLINE_FUNCTION void operator()(const Member& team, double& s) const {
        const int first = team.league_rank() * w;
        double part = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, w),
            [&](const int k, double& inner) { inner += x(first + k) * z(first + k); }, part);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { s += part; });
      })
};

// Team kernels choose between BoundCall and the checked call as range kernels do.
TEST(KokkosLaunchCheck, ATeamKernelsViewTheAnnotationDoesNotNameIsAClearErrorAtItsAccess) {
  if (lk_test::on_gpus()) GTEST_SKIP() << "host devices check element accesses";
  using Team = Kokkos::TeamPolicy<Exec>;
  using Kernel = TeamReadsAnUnnamedView<LView<float*>, Team::member_type>;
  const int league = 16, w = 8;
  LView<float*> x("x", league * w), z("unnamed", league * w);
  Kokkos::deep_copy(x, 1.0f);
  double s = 0;
  const std::string e = error_of([&] {
    Kokkos::parallel_reduce("team reads z", Team(league, Kokkos::AUTO), Kernel{x, z, w}, s);
  });
  expect_unnamed_view_error(e, "team reads z");
}

TEST(KokkosLaunchLabel, AFailedKernelIsNamedByItsKokkosLabelFirst) {
  const int n = 1024;
  lk_test::Cursed cursed{LView<float*>("field", n), 700};
  const std::string e = error_of(
      [&] { Kokkos::parallel_for("cursed step", Kokkos::RangePolicy<Exec>(0, n), cursed); });
  EXPECT_EQ(
      e.find("lightning: task failed: launch 'cursed step' (kernel 'lk_test::Cursed') failed"), 0u)
      << e;
  EXPECT_TRUE(has(e, "element is cursed")) << e;
  // Without a label, Kokkos makes one up from the type: the error names the kernel alone.
  const std::string u =
      error_of([&] { Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, n), cursed); });
  EXPECT_EQ(u.find("lightning: task failed: kernel 'lk_test::Cursed' failed"), 0u) << u;
  // A reduction's label too, and an error found at the launch carries it as context.
  double s = 0;
  LView<double**> grid("grid", 8, 4);
  const std::string r = error_of([&] {
    Kokkos::parallel_reduce("row sums", Kokkos::RangePolicy<Exec>(0, 8),
                            lightning::annotate(
                                "global i => read grid[i, :]",
                                KOKKOS_LAMBDA(const int i, double& t) { t += grid(i, 0); }),
                            s);
  });
  EXPECT_TRUE(has(r, "\n  in Kokkos launch 'row sums'")) << r;
  expect_runtime_usable();
}

TEST(KokkosLaunchLabel, AToolLoadedBeforeTheRuntimeStillSeesEveryDispatch) {
  const int before = lk_test::tool_dispatches();
  const int n = 16;
  LView<float*> y("y", n);
  Kokkos::parallel_for("seen by the tool", Kokkos::RangePolicy<Exec>(0, n),
                       lightning::annotate(
                           "global i => write y[i]", KOKKOS_LAMBDA(const int i) { y(i) = 1; }));
  EXPECT_EQ(lk_test::tool_dispatches(), before + 1);
  EXPECT_EQ(lk_test::tool_last_label(), "seen by the tool");
  Kokkos::parallel_for("host loop", Kokkos::RangePolicy<lk_test::Host>(0, n),
                       KOKKOS_LAMBDA(const int){});
  EXPECT_EQ(lk_test::tool_dispatches(), before + 2);
  EXPECT_EQ(lk_test::tool_last_label(), "host loop");
}

}  // namespace
