// TeamPolicy on lightning::Distributed against the same kernels on Kokkos::Serial (teams of
// one thread there): league, team and vector sizes, scratch memory, nested ranges, team
// reductions, broadcasts and scans, reducers, work tags, and the launches that must be
// refused.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/kernel_registry.hpp"
#include "kokkos_team_kernels.hpp"
#include "kokkos_test_kernels.hpp"

namespace lk_team {

using lk_test::Exec;
using lk_test::KView;
using lk_test::LView;
using lk_test::on_gpus;
using lk_test::random_space;
using lk_test::to_host;
using lk_test::uniform;
using Serial = Kokkos::Serial;

}  // namespace lk_team

namespace {

using namespace lk_team;

/// A random matrix, on the host and as a lightning::View.
struct Matrix {
  KView<double**> host;
  LView<double**> dist;
  Matrix(int rows, int cols, std::mt19937& rng) : host("hA", rows, cols), dist("A", rows, cols) {
    std::uniform_int_distribution<int> value(-8, 8);
    for (int j = 0; j < rows; ++j)
      for (int i = 0; i < cols; ++i) host(j, i) = value(rng);
    Kokkos::deep_copy(dist, host);
  }
};

// The same tests on host devices and on GPUs (LIGHTNING_DEVICES=cuda), except where a test
// says which devices it is for.
class KokkosTeams : public ::testing::Test {
 protected:
  /// Team sizes to try: on GPUs also several warps, partial warps and whole blocks.
  static std::vector<int> team_sizes() {
    std::vector<int> sizes = {1, 2, 3, 4, 8, 16};
    if (on_gpus()) sizes.insert(sizes.end(), {33, 64, 100, 256, 1024});
    return sizes;
  }
};

TEST_F(KokkosTeams, YAxOverRandomLeaguesAndTeamsMatchesSerial) {
  std::mt19937 rng(7);
  const std::vector<int> sizes = team_sizes();
  for (size_t trial = 0; trial < 2 * sizes.size(); ++trial) {
    const int rows = std::uniform_int_distribution<int>(0, 40)(rng);
    const int cols = std::uniform_int_distribution<int>(1, 50)(rng);
    const int team = sizes[trial % sizes.size()];
    Matrix A(rows, cols, rng);
    Matrix xy(2, cols > rows ? cols : rows, rng);
    KView<double*> hx("hx", cols), hy("hy", rows);
    for (int i = 0; i < cols; ++i) hx(i) = xy.host(0, i);
    for (int j = 0; j < rows; ++j) hy(j) = xy.host(1, j);
    LView<double*> x("x", cols), y("y", rows);
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y, hy);

    double expected = 0, got = 0;
    Kokkos::parallel_reduce(
        "yAx", Kokkos::TeamPolicy<Serial>(rows, 1),
        TeamYAx<Serial, KView<const double**>, KView<const double*>>{A.host, hx, hy}, expected);
    Kokkos::parallel_reduce(
        "yAx", Kokkos::TeamPolicy<Exec>(rows, team),
        TeamYAx<Exec, LView<const double**>, LView<const double*>>{A.dist, x, y}, got);
    ASSERT_EQ(got, expected) << rows << "x" << cols << " teams of " << team;  // integers
  }
}

/// A TeamPolicy of `league` teams whose ScratchSmooth row (PerTeam) is at `row_level` and
/// whose per-thread sum (PerThread) at `mine_level`.
template <class Space>
Kokkos::TeamPolicy<Space> smooth_policy(int league, int team, int vector, int cols, int row_level,
                                        int mine_level) {
  const size_t row_bytes = ScratchRow<Space>::shmem_size(cols);
  const size_t one = ScratchRow<Space>::shmem_size(1);
  Kokkos::TeamPolicy<Space> policy(league, team, vector);
  if (row_level == mine_level)
    return policy.set_scratch_size(row_level, Kokkos::PerTeam(row_bytes), Kokkos::PerThread(one));
  return policy.set_scratch_size(row_level, Kokkos::PerTeam(row_bytes))
      .set_scratch_size(mine_level, Kokkos::PerThread(one));
}

TEST_F(KokkosTeams, ScratchOfBothLevelsAndVectorRangesMatchSerial) {
  std::mt19937 rng(11);
  std::vector<std::array<int, 3>> shapes = {
      {1, 1, 1}, {5, 4, 2}, {17, 3, 4}, {30, 8, 1}, {9, 16, 8}};
  if (on_gpus()) shapes.insert(shapes.end(), {{7, 40, 2}, {12, 8, 32}, {3, 128, 8}, {4, 1024, 1}});
  for (int r = 0; r < 3; ++r) {  // random shapes too: team x vector within the limit
    const int vector = 1 << uniform(rng, 0, 5);
    shapes.push_back(
        {uniform(rng, 0, 20), uniform(rng, 1, on_gpus() ? 1024 / vector : 12), vector});
  }
  // The row (PerTeam) and each thread's sum (PerThread) at either level, or both at one.
  const int levels[4][2] = {{0, 1}, {1, 0}, {1, 1}, {0, 0}};
  for (const auto& s : shapes)
    for (const auto& level : levels) {
      const int rows = s[0], team = s[1], vector = s[2];
      const int cols = uniform(rng, 1, 60);
      const int64_t width = uniform(rng, 1, 5);
      SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + ", teams of " +
                   std::to_string(team) + " x " + std::to_string(vector) + ", row at level " +
                   std::to_string(level[0]) + ", sums at level " + std::to_string(level[1]));
      Matrix A(rows, cols, rng);
      KView<double**> hb("hB", rows, cols);
      LView<double**> b("B", rows, cols);
      Kokkos::parallel_for("smooth", smooth_policy<Serial>(rows, 1, 1, cols, level[0], level[1]),
                           ScratchSmooth<Serial, KView<const double**>, KView<double**>>{
                               A.host, hb, width, level[0], level[1]});
      Kokkos::parallel_for("smooth",
                           smooth_policy<Exec>(rows, team, vector, cols, level[0], level[1]),
                           ScratchSmooth<Exec, LView<const double**>, LView<double**>>{
                               A.dist, b, width, level[0], level[1]});
      const auto got = to_host(b);
      for (int j = 0; j < rows; ++j)
        for (int i = 0; i < cols; ++i) ASSERT_EQ(got(j, i), hb(j, i)) << j << "," << i;
    }
}

TEST_F(KokkosTeams, CollectivesGiveEveryMemberTheTeamsValues) {
  std::vector<int> teams = {1, 2, 5, 8};
  if (on_gpus()) teams.insert(teams.end(), {31, 32, 33, 96, 250, 1024});
  for (const int team : teams) {
    const int league = 13, n = 29;
    LView<double**> S("S", league, 4);
    LView<int64_t**> R("R", league, n);
    Kokkos::parallel_for("collectives", Kokkos::TeamPolicy<Exec>(league, team),
                         Collectives<Exec, LView<double**>, LView<int64_t**>>{S, R});
    const auto s = to_host(S);
    const auto r = to_host(R);
    for (int b = 0; b < league; ++b) {
      EXPECT_EQ(s(b, 0), team * (team + 1) / 2) << "team_scan, team of " << team;
      EXPECT_EQ(s(b, 1), (team - 1) * 3 + b) << "team_reduce(Max), team of " << team;
      EXPECT_EQ(s(b, 2), 100 + b) << "team_broadcast, team of " << team;
      EXPECT_EQ(s(b, 3), team) << "single(PerTeam), team of " << team;
      for (int i = 0; i < n; ++i) ASSERT_EQ(r(b, i), (i + 1) * (i + 2) / 2) << b << "," << i;
    }
  }
}

TEST_F(KokkosTeams, SinglesClosureBroadcastsAndGlobalScansMatchASequentialReference) {
  std::mt19937 rng(13);
  const std::vector<int> sizes = team_sizes();
  for (size_t trial = 0; trial < sizes.size() + 3; ++trial) {
    const int team = trial < sizes.size() ? sizes[trial] : uniform(rng, 1, on_gpus() ? 300 : 12);
    int vector = 1 << uniform(rng, 0, 5);
    while (team * vector > 1024) vector /= 2;
    const int league = uniform(rng, 1, 25);
    SCOPED_TRACE(std::to_string(league) + " teams of " + std::to_string(team) + " x " +
                 std::to_string(vector));
    KView<int64_t*> g0("g0", league);
    for (int b = 0; b < league; ++b) g0(b) = uniform(rng, -1000, 1000);
    LView<int64_t***> M("M", league, team, 6);
    LView<int64_t*> G("G", league);
    Kokkos::deep_copy(G, g0);
    Kokkos::parallel_for("broadcasts",
                         Kokkos::TeamPolicy<Exec>(league, team, vector)
                             .set_scratch_size(0, Kokkos::PerTeam(sizeof(int) * 8)),
                         BroadcastsAndGlobalScans<Exec, LView<int64_t***>, LView<int64_t*>>{M, G});
    const auto m = to_host(M);
    const auto g = to_host(G);
    for (int b = 0; b < league; ++b) {
      const int root = b % team;
      int64_t weights = 0;
      for (int t = 0; t < team; ++t) weights += (t * 7 + b) % 5;
      int64_t before = 0;
      for (int t = 0; t < team; ++t) {
        ASSERT_EQ(m(b, t, 0), 7 * t + b) << "single(PerThread) value, " << b << "," << t;
        ASSERT_EQ(m(b, t, 1), team) << "single(PerThread) runs once per member, " << b;
        ASSERT_EQ(m(b, t, 2), (root + 1) * 10 + b) << "closure broadcast, " << b << "," << t;
        ASSERT_EQ(m(b, t, 3), 5 + 100 * b) << "single(PerTeam) value, " << b << "," << t;
        ASSERT_EQ(m(b, t, 4), g0(b) + before) << "team_scan into G, " << b << "," << t;
        ASSERT_EQ(m(b, t, 5), g0(b) + weights + t) << "second team_scan, " << b << "," << t;
        before += (t * 7 + b) % 5;
      }
      ASSERT_EQ(g(b), g0(b) + weights + team) << "the global total of team " << b;
    }
  }
}

TEST_F(KokkosTeams, KokkosAtomicsOfAllMembersAtOnceLoseNoUpdate) {
  // Team members run on threads of their own on host devices: a Kokkos whose atomics are
  // plain reads and writes (Kokkos 3 of the Serial back-end alone) loses updates here.
  for (const int team : {2, 8, 64}) {
    const int league = 4;
    const int64_t reps = 20000;
    LView<int64_t**> C("C", league, 2);
    Kokkos::parallel_for(
        "atomics", Kokkos::TeamPolicy<Exec>(league, team).set_scratch_size(0, Kokkos::PerTeam(64)),
        MemberAtomics<Exec, LView<int64_t**>>{C, reps});
    const auto c = to_host(C);
    for (int b = 0; b < league; ++b) {
      EXPECT_EQ(c(b, 0), team * reps) << "scratch counter of team " << b << " of " << team;
      EXPECT_EQ(c(b, 1), team * reps) << "element of team " << b << " of " << team;
    }
  }
}

TEST_F(KokkosTeams, ThreadVectorRangeForScanAndReduceMatchSerial) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 8; ++trial) {
    const int vector = 1 << uniform(rng, 1, 5);  // more than one lane
    const int team = uniform(rng, 1, on_gpus() ? 1024 / vector : 8);
    const int league = uniform(rng, 0, 12), m = uniform(rng, 1, 20), n = uniform(rng, 1, 70);
    SCOPED_TRACE(std::to_string(league) + " teams of " + std::to_string(team) + " x " +
                 std::to_string(vector) + ", slabs " + std::to_string(m) + "x" + std::to_string(n));
    KView<int64_t***> hx("hX", league, m, n), hf("hF", league, m, n), hp("hP", league, m, n);
    KView<int64_t**> hr("hR", league, m);
    for (int j = 0; j < league; ++j)
      for (int k = 0; k < m; ++k)
        for (int i = 0; i < n; ++i) hx(j, k, i) = uniform(rng, -50, 50);
    LView<int64_t***> X("X", league, m, n), F("F", league, m, n), P("P", league, m, n);
    LView<int64_t**> R("R", league, m);
    Kokkos::deep_copy(X, hx);
    using K = VectorRanges<Serial, KView<const int64_t***>, KView<int64_t***>, KView<int64_t**>>;
    using L = VectorRanges<Exec, LView<const int64_t***>, LView<int64_t***>, LView<int64_t**>>;
    Kokkos::parallel_for("vector ranges", Kokkos::TeamPolicy<Serial>(league, 1, 1),
                         K{hx, hf, hp, hr});
    Kokkos::parallel_for("vector ranges", Kokkos::TeamPolicy<Exec>(league, team, vector),
                         L{X, F, P, R});
    const auto f = to_host(F);
    const auto p = to_host(P);
    const auto r = to_host(R);
    for (int j = 0; j < league; ++j)
      for (int k = 0; k < m; ++k) {
        ASSERT_EQ(r(j, k), hr(j, k)) << "reduce of row " << j << "," << k;
        for (int i = 0; i < n; ++i) {
          ASSERT_EQ(f(j, k, i), hf(j, k, i)) << "parallel_for at " << j << "," << k << "," << i;
          ASSERT_EQ(p(j, k, i), hp(j, k, i)) << "parallel_scan at " << j << "," << k << "," << i;
        }
      }
  }
}

TEST_F(KokkosTeams, TeamVectorRangeForScanAndReducesMatchSerial) {
  std::mt19937 rng(19);
  for (int trial = 0; trial < 8; ++trial) {
    const int vector = 1 << uniform(rng, 0, 5);
    const int team = uniform(rng, 1, on_gpus() ? 1024 / vector : 8);
    const int league = uniform(rng, 0, 15), n = uniform(rng, 1, 90);
    SCOPED_TRACE(std::to_string(league) + " teams of " + std::to_string(team) + " x " +
                 std::to_string(vector) + ", rows of " + std::to_string(n));
    KView<int64_t**> hx("hX", league, n), hy("hY", league, n), hp("hP", league, n),
        hs("hS", league, 2);
    for (int j = 0; j < league; ++j)
      for (int i = 0; i < n; ++i) hx(j, i) = uniform(rng, -100, 100);
    LView<int64_t**> X("X", league, n), Y("Y", league, n), P("P", league, n), S("S", league, 2);
    Kokkos::deep_copy(X, hx);
    using K = TeamVectorRanges<Serial, KView<const int64_t**>, KView<int64_t**>, KView<int64_t**>>;
    using L = TeamVectorRanges<Exec, LView<const int64_t**>, LView<int64_t**>, LView<int64_t**>>;
    Kokkos::parallel_for("team vector ranges", Kokkos::TeamPolicy<Serial>(league, 1, 1),
                         K{hx, hy, hp, hs});
    Kokkos::parallel_for("team vector ranges", Kokkos::TeamPolicy<Exec>(league, team, vector),
                         L{X, Y, P, S});
    const auto y = to_host(Y);
    const auto p = to_host(P);
    const auto sums = to_host(S);
    for (int j = 0; j < league; ++j) {
      ASSERT_EQ(sums(j, 0), hs(j, 0)) << "sum of row " << j;
      ASSERT_EQ(sums(j, 1), hs(j, 1)) << "Max of row " << j;
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(y(j, i), hy(j, i)) << "parallel_for at " << j << "," << i;
        ASSERT_EQ(p(j, i), hp(j, i)) << "parallel_scan at " << j << "," << i;
      }
    }
  }
}

TEST_F(KokkosTeams, TeamsOfEveryAllowedSizeRunOnEveryDevice) {
  // Host devices allow what a GPU block does: team size x vector length up to 1024 (one host
  // thread per member).
  std::mt19937 rng(23);
  for (const auto& shape : {std::array<int, 2>{1024, 1}, {256, 4}, {32, 32}}) {
    const int league = 3, cols = uniform(rng, 1, 40);
    Matrix A(league, cols, rng);
    KView<double**> hb("hB", league, cols);
    LView<double**> b("B", league, cols);
    Kokkos::parallel_for(
        "smooth", smooth_policy<Serial>(league, 1, 1, cols, 0, 1),
        ScratchSmooth<Serial, KView<const double**>, KView<double**>>{A.host, hb, 2, 0, 1});
    Kokkos::parallel_for(
        "smooth", smooth_policy<Exec>(league, shape[0], shape[1], cols, 0, 1),
        ScratchSmooth<Exec, LView<const double**>, LView<double**>>{A.dist, b, 2, 0, 1});
    const auto got = to_host(b);
    for (int j = 0; j < league; ++j)
      for (int i = 0; i < cols; ++i)
        ASSERT_EQ(got(j, i), hb(j, i)) << shape[0] << " x " << shape[1] << " at " << j << "," << i;
  }
}

TEST_F(KokkosTeams, ReducersAndAutoTeamSizesMatchSerial) {
  std::mt19937 rng(3);
  Matrix A(23, 31, rng);
  double expected = 0, got = 0, with_auto = 0;
  Kokkos::parallel_reduce("max", Kokkos::TeamPolicy<Serial>(23, 1),
                          TeamMax<Serial, KView<const double**>>{A.host},
                          Kokkos::Max<double>(expected));
  Kokkos::parallel_reduce("max", Kokkos::TeamPolicy<Exec>(23, 4),
                          TeamMax<Exec, LView<const double**>>{A.dist}, Kokkos::Max<double>(got));
  Kokkos::parallel_reduce("max", Kokkos::TeamPolicy<Exec>(23, Kokkos::AUTO),
                          TeamMax<Exec, LView<const double**>>{A.dist},
                          Kokkos::Max<double>(with_auto));
  EXPECT_EQ(got, expected);
  EXPECT_EQ(with_auto, expected);

  const Kokkos::TeamPolicy<Exec> policy(23, Kokkos::AUTO, 4);
  const TeamMax<Exec, LView<const double**>> f{A.dist};
  EXPECT_EQ(policy.team_size_max(f, Kokkos::ParallelReduceTag()), 256);
  // Kokkos::AUTO: one thread on host devices, Kokkos' CUDA choice (128 threads) on GPUs.
  const int recommended = on_gpus() ? 32 : 1;
  EXPECT_EQ(policy.team_size_recommended(f, Kokkos::ParallelReduceTag()), recommended);
  EXPECT_EQ(policy.team_size(), recommended);
  EXPECT_EQ(policy.impl_vector_length(), 4);
  // The launch resolves it with the scratch sizes set last.
  Kokkos::TeamPolicy<Exec> with_scratch(23, Kokkos::AUTO);
  with_scratch.set_scratch_size(0, Kokkos::PerThread(1024));
  EXPECT_EQ(with_scratch.team_size(), on_gpus() ? 32 : 1);
  EXPECT_EQ(Kokkos::TeamPolicy<Exec>(23, Kokkos::AUTO).team_size(), on_gpus() ? 128 : 1);
}

/// The largest element of A above a floor, by teams, with the functor's own init (reading the
/// floor) and join written outside LIGHTNING_KERNEL: host devices call them, GPU code cannot.
template <class Space, class VA>
struct TeamMaxAbove {
  using member_type = Member<Space>;
  VA A;
  double floor = 0;
  LIGHTNING_KERNEL(
      TeamMaxAbove, "block j => read A[j, :]", (A, floor),
      void operator()(const member_type& team, double& m) const {
        const int j = team.league_rank();
        for (int c = team.team_rank(); c < static_cast<int>(A.extent(1)); c += team.team_size())
          if (A(j, c) > m) m = A(j, c);
      })
  void init(double& m) const { m = floor; }
  void join(double& dst, const double& src) const {
    if (src > dst) dst = src;
  }
};

TEST_F(KokkosTeams, AFunctorsOwnInitAndJoinFoldTheMembersAndTeamsAsOnSerial) {
  std::mt19937 rng(23);
  const std::vector<int> sizes = team_sizes();
  for (size_t trial = 0; trial < sizes.size(); ++trial) {
    const int rows = uniform(rng, 1, 50), cols = uniform(rng, 1, 40);
    const int team = sizes[trial];
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", teams of " +
                 std::to_string(team));
    Matrix A(rows, cols, rng);
    // A floor above every element in half the trials: init's floor is the answer.
    const double floor = trial % 2 ? 100 : uniform(rng, -8, 8);
    using Value = typename TeamSpread<Serial, KView<const double**>>::value_type;
    Value want{}, got{};
    Kokkos::parallel_reduce(Kokkos::TeamPolicy<Serial>(rows, 1),
                            TeamSpread<Serial, KView<const double**>>{A.host, floor}, want);
    const Exec space = uniform(rng, 0, 1) ? Exec() : random_space(rng, rows * team);
    Kokkos::parallel_reduce("spread", Kokkos::TeamPolicy<Exec>(space, rows, team),
                            TeamSpread<Exec, LView<const double**>>{A.dist, floor}, got);
    EXPECT_EQ(got.low, want.low);
    EXPECT_EQ(got.high, want.high);

    double host = 0, dist = 0;
    Kokkos::parallel_reduce(Kokkos::TeamPolicy<Serial>(rows, 1),
                            TeamMaxAbove<Serial, KView<const double**>>{A.host, floor}, host);
    const std::string error = lk_test::error_of([&] {
      Kokkos::parallel_reduce("max above", Kokkos::TeamPolicy<Exec>(space, rows, team),
                              TeamMaxAbove<Exec, LView<const double**>>{A.dist, floor}, dist);
    });
    if (on_gpus()) {
      EXPECT_NE(error.find("its init/join are not inside LIGHTNING_KERNEL"), std::string::npos)
          << error;
      EXPECT_NE(error.find("'max above'"), std::string::npos) << error;
    } else {
      ASSERT_EQ(error, "");
      EXPECT_EQ(dist, host);
    }
  }
}

TEST_F(KokkosTeams, AnnotatedTeamLambdaMatchesSerial) {
  if (on_gpus()) GTEST_SKIP() << "lambdas have no GPU code in this version";
  const int rows = 19, cols = 21;
  std::mt19937 rng(5);
  Matrix A(rows, cols, rng);
  LView<double*> sums("sums", rows);
  KView<double*> expected("expected", rows);
  LView<const double**> a = A.dist;
  Kokkos::parallel_for("row sums", Kokkos::TeamPolicy<Exec>(rows, 4),
                       lightning::annotate(
                           "block j, local t => read A[j, :], write sums[j]",
                           KOKKOS_LAMBDA(const Member<Exec>& team) {
                             double s = 0;
                             Kokkos::parallel_reduce(
                                 Kokkos::TeamThreadRange(team, cols),
                                 [&](const int i, double& v) { v += a(team.league_rank(), i); }, s);
                             if (team.team_rank() == 0) sums(team.league_rank()) = s;
                           }));
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) expected(j) += A.host(j, i);
  const auto got = to_host(sums);
  for (int j = 0; j < rows; ++j) ASSERT_EQ(got(j), expected(j)) << j;
}

/// What the reductions of TeamPhases give.
struct PhaseValues {
  int64_t weighted = 0;
  int64_t top = 0;
  Kokkos::MinLoc<int64_t, int>::value_type least{};
};

/// The phases of TeamPhases on `space` in teams of `team`, each tag in another place of the
/// policy's arguments (Kokkos takes them in any order), with a schedule and an index type:
/// fill A, the weighted row sums through scratch, spread A into B, the largest element by
/// Max, the smallest row by MinLoc, then the untagged operator on B.
template <class Space, class VA, class VB>
PhaseValues run_team_phases(const Space& space, const VA& A, const VB& B, int64_t shift, int team) {
  using F = TeamPhases<Space, VA, VB>;
  using Row = Kokkos::View<int64_t*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const int league = static_cast<int>(A.extent(0));
  const F f{A, B, shift};
  PhaseValues v;
  Kokkos::parallel_for("fill rows", Kokkos::TeamPolicy<Space, FillRows>(space, league, team), f);
  Kokkos::parallel_reduce("row sums",
                          Kokkos::TeamPolicy<typename F::RowSums, Space>(space, league, team)
                              .set_scratch_size(0, Kokkos::PerTeam(Row::shmem_size(A.extent(1)))),
                          f, v.weighted);
  Kokkos::parallel_for("spread",
                       Kokkos::TeamPolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>, tags::Spread,
                                          Kokkos::IndexType<int64_t>>(space, league, team),
                       f);
  Kokkos::parallel_reduce(
      "largest",
      Kokkos::TeamPolicy<Kokkos::IndexType<int>, Space, typename F::Largest>(space, league, team),
      f, Kokkos::Max<int64_t>(v.top));
  Kokkos::parallel_reduce("smallest",
                          Kokkos::TeamPolicy<Space, typename F::Smallest>(space, league, team), f,
                          Kokkos::MinLoc<int64_t, int>(v.least));
  Kokkos::parallel_for(
      "negate", Kokkos::TeamPolicy<Space, Kokkos::Schedule<Kokkos::Static>>(space, league, team),
      f);
  return v;
}

TEST_F(KokkosTeams, WorkTagsPickTheTeamOperatorsAsOnSerial) {
  std::mt19937 rng(17);
  const std::vector<int> sizes = team_sizes();
  for (size_t trial = 0; trial < 2 * sizes.size(); ++trial) {
    const int league = uniform(rng, 1, 40), n = uniform(rng, 1, 50);
    const int team = sizes[trial % sizes.size()];
    const int64_t shift = uniform(rng, 0, 30);
    SCOPED_TRACE(std::to_string(league) + " teams of " + std::to_string(team) + ", rows of " +
                 std::to_string(n));
    KView<int64_t**> hA("hA", league, n), hB("hB", league, 1);
    const PhaseValues want = run_team_phases(Serial(), hA, hB, shift, 1);

    LView<int64_t**> A("A", league, n, lightning::dist::rows(uniform(rng, 1, league)));
    LView<int64_t**> B("B", league, team, lightning::dist::rows(uniform(rng, 1, league)));
    const Exec space = uniform(rng, 0, 1) ? Exec() : random_space(rng, league * team);
    const PhaseValues got = run_team_phases(space, A, B, shift, team);
    EXPECT_EQ(got.weighted, want.weighted) << "RowSums";
    EXPECT_EQ(got.top, want.top) << "Largest";
    EXPECT_EQ(got.least.val, want.least.val) << "Smallest";
    EXPECT_EQ(got.least.loc, want.least.loc) << "Smallest";
    const auto a = to_host(A);
    const auto b = to_host(B);
    for (int r = 0; r < league; ++r) {
      for (int i = 0; i < n; ++i) ASSERT_EQ(a(r, i), hA(r, i)) << "FillRows at " << r << ", " << i;
      ASSERT_EQ(hB(r, 0), -hA(r, 0) * 100) << "Serial's Spread, then negated, at " << r;
      // Member t of team r spread element t % n of its row, then negated it.
      for (int t = 0; t < team; ++t)
        ASSERT_EQ(b(r, t), -(hA(r, t % n) * 100 + t))
            << "Spread, then negated, at " << r << ", " << t;
    }
  }
}

TEST_F(KokkosTeams, EachTaggedTeamOperatorIsItsOwnKernelUnderItsAnnotation) {
  using F = TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>;
  using lightning::kernel::KernelRegistry;
  const auto& untagged = lightning::kernel_registration<F>();
  const auto& fill = lightning::kernel_registration<F, FillRows>();
  const auto& spread = lightning::kernel_registration<F, tags::Spread>();
  const auto& sums = lightning::kernel_registration<F, F::RowSums>();
  EXPECT_EQ(fill.name, untagged.name + " [lk_team::FillRows]");
  EXPECT_EQ(spread.name, untagged.name + " [lk_team::tags::Spread]");
  for (const auto* tagged : {&fill, &spread, &sums}) {
    EXPECT_FALSE(tagged->id == untagged.id) << tagged->name;
    const auto& info = KernelRegistry::get(tagged->id);
    EXPECT_EQ(info.device.kind, lightning::kernel::DeviceCodeKind::kTeamFunctorBody) << info.name;
  }
  EXPECT_EQ(KernelRegistry::get(untagged.id).device.kind,
            lightning::kernel::DeviceCodeKind::kTeamFunctorBody);
  EXPECT_EQ(KernelRegistry::get(fill.id).description.annotation, "block b => write A[b, :]");
  EXPECT_EQ(KernelRegistry::get(spread.id).description.annotation,
            "block b, local t => read A[b, :], write B[b, t]");
  EXPECT_EQ(KernelRegistry::get(untagged.id).description.annotation,
            "block b, local t => readwrite B[b, t]");
  EXPECT_EQ(KernelRegistry::get(fill.id).device.work_tag, "lk_team::FillRows");
  EXPECT_FALSE(KernelRegistry::get(fill.id).reduces());
  EXPECT_TRUE(KernelRegistry::get(sums.id).reduces());
}

TEST_F(KokkosTeams, SuperblocksAreRangesOfWholeTeams) {
  std::mt19937 rng(9);
  Matrix A(40, 12, rng);
  LView<double*> x("x", 12), y("y", 40);
  Kokkos::deep_copy(x, 1.0);
  Kokkos::deep_copy(y, 1.0);
  double expected = 0;
  for (int j = 0; j < 40; ++j)
    for (int i = 0; i < 12; ++i) expected += A.host(j, i);
  // Seven teams of three threads per superblock, given in threads: 21.
  for (const int64_t threads : {3, 21, 60, 1000}) {
    double got = 0;
    Kokkos::parallel_reduce(
        "yAx", Kokkos::TeamPolicy<Exec>(Exec(lightning::work::block(threads)), 40, 3),
        TeamYAx<Exec, LView<const double**>, LView<const double*>>{A.dist, x, y}, got);
    EXPECT_EQ(got, expected) << "superblocks of " << threads << " threads";
  }
}

// A launch the runtime refuses names the launch and what is wrong, and leaves the runtime
// usable for the next one.
void expect_refused(const std::function<void()>& launch, const std::string& part) {
  try {
    launch();
    Exec().fence();
    ADD_FAILURE() << "expected an error containing: " << part;
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
  LView<double*> ok("ok", 4);
  Kokkos::deep_copy(ok, 2.0);
  EXPECT_EQ(to_host(ok)(3), 2.0);
}

TEST(KokkosTeamLaunchChecks, LaunchesBeyondTheLimitsAreRefusedNamingThem) {
  LView<double**> S("S", 4, 4);
  LView<int64_t**> R("R", 4, 4);
  using K = Collectives<Exec, LView<double**>, LView<int64_t**>>;
  expect_refused(
      [&] {
        Kokkos::parallel_for("too big", Kokkos::TeamPolicy<Exec>(4, 2048), K{S, R});
      },
      "launch 'too big' (kernel 'lk_team::Collectives<");
  expect_refused(
      [&] {
        Kokkos::parallel_for("too big", Kokkos::TeamPolicy<Exec>(4, 2048), K{S, R});
      },
      "team size 2048 x vector length 1 is more than 1024 threads per team");
  expect_refused(
      [&] {
        Kokkos::parallel_for("lanes", Kokkos::TeamPolicy<Exec>(4, 2, 3), K{S, R});
      },
      "vector length 3 is not a power of two up to 32");
  expect_refused(
      [&] {
        Kokkos::parallel_for("scratch",
                             Kokkos::TeamPolicy<Exec>(4, 4).set_scratch_size(
                                 0, Kokkos::PerTeam(40000), Kokkos::PerThread(4096)),
                             K{S, R});
      },
      "scratch level 0 of");
  // Level 1 (global memory on a GPU) beyond its 20 MiB per team, PerTeam and PerThread.
  const uint64_t limit = lightning::kernel::TeamLimits::kMaxScratch1;
  expect_refused(
      [&] {
        Kokkos::parallel_for(
            "scratch 1",
            Kokkos::TeamPolicy<Exec>(4, 4).set_scratch_size(1, Kokkos::PerTeam(limit + 1)),
            K{S, R});
      },
      "launch 'scratch 1' (kernel 'lk_team::Collectives<");
  expect_refused(
      [&] {
        Kokkos::parallel_for(
            "scratch 1",
            Kokkos::TeamPolicy<Exec>(4, 4).set_scratch_size(1, Kokkos::PerTeam(limit + 1)),
            K{S, R});
      },
      "the TeamPolicy's scratch level 1 of 20.0 MiB per team (" + std::to_string(limit + 1) +
          " bytes per team + 0 per thread x 4 threads) is more than the 20 MiB a team may have");
  expect_refused(
      [&] {
        Kokkos::parallel_for("scratch 1",
                             Kokkos::TeamPolicy<Exec>(4, 32).set_scratch_size(
                                 1, Kokkos::PerTeam(1024), Kokkos::PerThread(1024 * 1024)),
                             K{S, R});
      },
      "scratch level 1 of 32.0 MiB per team (1024 bytes per team + 1048576 per thread x 32 "
      "threads) is more than the 20 MiB a team may have");
  // Exactly the limit runs.
  Kokkos::parallel_for("scratch 1",
                       Kokkos::TeamPolicy<Exec>(4, 4).set_scratch_size(1, Kokkos::PerTeam(limit)),
                       K{S, R});
  EXPECT_EQ(to_host(S)(3, 3), 4);  // single(PerTeam): the team size
}

TEST(KokkosTeamLaunchChecks, AnAnnotationBindingMoreAxesThanATeamLaunchHasIsRefused) {
  LView<double*> B("B", 8);
  const auto launch = [&] {
    Kokkos::parallel_for("two locals", Kokkos::TeamPolicy<Exec>(8, 2),
                         TwoLocalAxes<Exec, LView<double*>>{B});
  };
  expect_refused(launch, "'local [t, v]' binds 2 axes but the launch has rank 1");
  expect_refused(launch, "block j, local [t, v] => write B[j]\n");
  expect_refused(launch, "in Kokkos launch 'two locals' (kernel 'lk_team::TwoLocalAxes<");
  // A team launch of the same shape whose annotation fits runs.
  LView<double**> S("S", 8, 4);
  LView<int64_t**> R("R", 8, 3);
  Kokkos::parallel_for("collectives", Kokkos::TeamPolicy<Exec>(8, 2),
                       Collectives<Exec, LView<double**>, LView<int64_t**>>{S, R});
  EXPECT_EQ(to_host(S)(7, 3), 2);
}

TEST(KokkosTeamLaunchChecks, GlobalInATeamAnnotationIsACaretError) {
  LView<double*> B("B", 8);
  expect_refused(
      [&] {
        Kokkos::parallel_for("global", Kokkos::TeamPolicy<Exec>(8, 2),
                             GlobalInTeams<Exec, LView<double*>>{B});
      },
      "a team launch (TeamPolicy) has no global thread index: bind 'block' to the league rank");
  expect_refused(
      [&] {
        Kokkos::parallel_for("global", Kokkos::TeamPolicy<Exec>(8, 2),
                             GlobalInTeams<Exec, LView<double*>>{B});
      },
      "global i => write B[i]\n^");
}

TEST_F(KokkosTeams, CheckedModeFindsAMemberReadingPastItsTeamsRegion) {
  const char* checked = std::getenv("LIGHTNING_CHECK_ACCESS");
  if (!checked || std::string(checked) != "on") GTEST_SKIP() << "checked mode is off";
  std::mt19937 rng(1);
  Matrix A(16, 8, rng);
  LView<double*> B("B", 16);
  expect_refused(
      [&] {
        Kokkos::parallel_for(
            // Superblocks of one team: row j + 1 is outside every superblock's region.
            "next row", Kokkos::TeamPolicy<Exec>(Exec(lightning::work::block(4)), 16, 4),
            ReadsTheNextRow<Exec, LView<const double**>, LView<double*>>{A.dist, B});
      },
      "the rule for 'A'");
}

TEST_F(KokkosTeams, CheckedModeHoldsATaggedTeamOperatorToItsTagsAnnotation) {
  const char* checked = std::getenv("LIGHTNING_CHECK_ACCESS");
  if (!checked || std::string(checked) != "on") GTEST_SKIP() << "checked mode is off";
  std::mt19937 rng(2);
  Matrix A(16, 8, rng);
  LView<double*> B("B", 16);
  using K = TaggedReadsTheNextRow<Exec, LView<const double**>, LView<double*>>;
  const auto launch = [&] {
    Kokkos::parallel_for(
        // Superblocks of one team: row j + 1 is outside the tag's region of team j (not of
        // the kernel's annotation, which reads all of A).
        "next row", Kokkos::TeamPolicy<Exec, NextRow>(Exec(lightning::work::block(4)), 16, 4),
        K{A.dist, B});
  };
  expect_refused(launch, "the rule for 'A'");
  expect_refused(launch, " [lk_team::NextRow]'");
}

TEST_F(KokkosTeams, AMemberThatThrowsFailsTheLaunchWithoutHangingItsTeam) {
  if (on_gpus()) GTEST_SKIP() << "GPU code cannot throw";
  LView<double*> B("B", 6);
  expect_refused(
      [&] {
        Kokkos::parallel_for("thrower", Kokkos::TeamPolicy<Exec>(6, 4),
                             ThrowingMember<Exec, LView<double*>>{B});
      },
      "member 1 of team 2 gave up");
}

}  // namespace

namespace {

#if KOKKOS_VERSION >= 40000
TEST_F(KokkosTeams, Kokkos4NestedRangesGiveEveryMemberItsShare) {
  for (const int team : {1, 3, 8}) {
    const int league = 9, n0 = 5, n1 = 7;
    LView<double***> C("C", league, n0, n1);
    LView<double**> S("S", league, 2);
    Kokkos::parallel_for("ranges", Kokkos::TeamPolicy<Exec>(league, team, 2),
                         Kokkos4Ranges<Exec, LView<double***>, LView<double**>>{C, S});
    const auto c = to_host(C);
    const auto s = to_host(S);
    for (int b = 0; b < league; ++b) {
      for (int i = 0; i < n0; ++i)
        for (int j = 0; j < n1; ++j) ASSERT_EQ(c(b, i, j), 100 * i + j + b) << team;
      EXPECT_EQ(s(b, 0), (n0 * n1 - 1) * n0 * n1 / 2) << "scan total, teams of " << team;
      EXPECT_EQ(s(b, 1), (n1 - 1) * n1 / 2) << "TeamVectorRange sum, teams of " << team;
    }
  }
}
#endif

TEST_F(KokkosTeams, AScratchViewBeyondTheSetScratchSizeFailsTheLaunchNamingTheSizes) {
  const int rows = 4, cols = 10;
  std::mt19937 rng(5);
  Matrix A(rows, cols, rng);
  LView<double**> b("B", rows, cols);
  // The row needs 80 bytes of its level; the launch sets what a row of 5 needs.
  const size_t given = ScratchRow<Exec>::shmem_size(cols / 2);
  for (const int level : {0, 1}) {
    expect_refused(
        [&] {
          Kokkos::parallel_for(
              "short scratch",
              Kokkos::TeamPolicy<Exec>(rows, 2)
                  .set_scratch_size(level, Kokkos::PerTeam(given))
                  .set_scratch_size(1 - level, Kokkos::PerThread(ScratchRow<Exec>::shmem_size(1))),
              ScratchSmooth<Exec, LView<const double**>, LView<double**>>{A.dist, b, 1, level,
                                                                          1 - level});
        },
        "a scratch View needs 80 bytes of level-" + std::to_string(level) + " scratch, but " +
            std::to_string(given) + " of the " + std::to_string(given) + " bytes per team remain");
  }
}

TEST_F(KokkosTeams, AMemberSkippingABarrierFailsTheLaunchInsteadOfHanging) {
  if (on_gpus()) GTEST_SKIP() << "on a GPU this is CUDA's undefined behaviour";
  LView<double*> B("B", 6);
  expect_refused(
      [&] {
        Kokkos::parallel_for("skips", Kokkos::TeamPolicy<Exec>(6, 3),
                             SkipsTheBarrier<Exec, LView<double*>>{B});
      },
      "the members of a team reached different barriers");
}

}  // namespace
