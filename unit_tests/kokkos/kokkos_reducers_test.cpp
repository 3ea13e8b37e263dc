// Kokkos' reducers on lightning::Distributed against the same reductions on Kokkos' host space:
// LAnd, LOr, BAnd, BOr, MinLoc, MaxLoc, MinMax, MinMaxLoc (and Kokkos 4's MinFirstLoc and
// MaxFirstLoc), over random sizes, values and distributions; into scalars and host Views, in
// range and team launches.
#include <gtest/gtest.h>

#include <cstdlib>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kokkos_team_kernels.hpp"
#include "kokkos_test_kernels.hpp"

namespace lk_reducers {

template <class Space, class T>
using ViewOf = lightning::ViewOf<Space, T>;

/// Whether every x(i) is above `floor` (LAnd) and whether some x(i) equals `value` (LOr).
template <class Space>
std::pair<int, int> all_and_any(const ViewOf<Space, const int64_t*>& x, int64_t floor,
                                int64_t value) {
  const int64_t n = static_cast<int64_t>(x.extent(0));
  int all = 0, any = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Space>(0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i]", (x, floor),
                              (const int64_t i, int& a) { a = a && x(i) > floor; }),
                          Kokkos::LAnd<int>(all));
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Space>(0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i]", (x, value),
                              (const int64_t i, int& a) { a = a || x(i) == value; }),
                          Kokkos::LOr<int>(any));
  return {all, any};
}

/// The bitwise and and or of every x(i).
template <class Space>
std::pair<int64_t, int64_t> bits(const ViewOf<Space, const int64_t*>& x) {
  const int64_t n = static_cast<int64_t>(x.extent(0));
  int64_t all = 0, any = 0;
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Space>(0, n),
      LIGHTNING_LAMBDA(
          "global i => read x[i]", (x), (const int64_t i, int64_t& b) { b &= x(i); }),
      Kokkos::BAnd<int64_t>(all));
  Kokkos::parallel_reduce(
      Kokkos::RangePolicy<Space>(0, n),
      LIGHTNING_LAMBDA(
          "global i => read x[i]", (x), (const int64_t i, int64_t& b) { b |= x(i); }),
      Kokkos::BOr<int64_t>(any));
  return {all, any};
}

/// The smallest and the largest v(i) with where they are, through MinLoc, MaxLoc (into a
/// host View), MinMax and MinMaxLoc.
template <class Space>
struct Extremes {
  Kokkos::MinLoc<double, int>::value_type min;
  Kokkos::MaxLoc<double, int>::value_type max;
  Kokkos::MinMax<double>::value_type min_max;
  Kokkos::MinMaxLoc<double, int64_t>::value_type min_max_loc;
};
template <class Space>
Extremes<Space> extremes(const Space& space, const ViewOf<Space, const double*>& v) {
  const int n = static_cast<int>(v.extent(0));
  Extremes<Space> e{};
  Kokkos::parallel_reduce("minloc", Kokkos::RangePolicy<Space>(space, 0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read v[i]", (v),
                              (const int i, Kokkos::MinLoc<double, int>::value_type& m) {
                                if (v(i) < m.val) {
                                  m.val = v(i);
                                  m.loc = i;
                                }
                              }),
                          Kokkos::MinLoc<double, int>(e.min));
  Kokkos::View<Kokkos::MaxLoc<double, int>::value_type, Kokkos::HostSpace> max("max");
  Kokkos::parallel_reduce("maxloc", Kokkos::RangePolicy<Space>(space, 0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read v[i]", (v),
                              (const int i, Kokkos::MaxLoc<double, int>::value_type& m) {
                                if (v(i) > m.val) {
                                  m.val = v(i);
                                  m.loc = i;
                                }
                              }),
                          Kokkos::MaxLoc<double, int>(max));
  Kokkos::fence();
  e.max = max();
  Kokkos::parallel_reduce("minmax", Kokkos::RangePolicy<Space>(space, 0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read v[i]", (v),
                              (const int i, Kokkos::MinMax<double>::value_type& m) {
                                if (v(i) < m.min_val) m.min_val = v(i);
                                if (v(i) > m.max_val) m.max_val = v(i);
                              }),
                          Kokkos::MinMax<double>(e.min_max));
  Kokkos::parallel_reduce("minmaxloc", Kokkos::RangePolicy<Space>(space, 0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read v[i]", (v),
                              (const int i, Kokkos::MinMaxLoc<double, int64_t>::value_type& m) {
                                if (v(i) < m.min_val) {
                                  m.min_val = v(i);
                                  m.min_loc = i;
                                }
                                if (v(i) > m.max_val) {
                                  m.max_val = v(i);
                                  m.max_loc = i;
                                }
                              }),
                          Kokkos::MinMaxLoc<double, int64_t>(e.min_max_loc));
  return e;
}

#if KOKKOS_VERSION >= 40000
/// The first place of the smallest and of the largest k(i) (values repeat).
template <class Space>
std::pair<int, int> first_extremes(const ViewOf<Space, const int64_t*>& k) {
  const int n = static_cast<int>(k.extent(0));
  Kokkos::MinFirstLoc<int64_t, int>::value_type min{};
  Kokkos::MaxFirstLoc<int64_t, int>::value_type max{};
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Space>(0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read k[i]", (k),
                              (const int i, Kokkos::MinFirstLoc<int64_t, int>::value_type& m) {
                                if (k(i) < m.val || (k(i) == m.val && i < m.loc)) {
                                  m.val = k(i);
                                  m.loc = i;
                                }
                              }),
                          Kokkos::MinFirstLoc<int64_t, int>(min));
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Space>(0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read k[i]", (k),
                              (const int i, Kokkos::MaxFirstLoc<int64_t, int>::value_type& m) {
                                if (k(i) > m.val || (k(i) == m.val && i < m.loc)) {
                                  m.val = k(i);
                                  m.loc = i;
                                }
                              }),
                          Kokkos::MaxFirstLoc<int64_t, int>(max));
  return {min.loc, max.loc};
}
#endif

/// What team launches give through each reducer over a matrix, a team per row, each member
/// looking at every team_size-th element of its row (so that members' values are joined).
struct TeamResults {
  Kokkos::MinLoc<double, int>::value_type min;
  Kokkos::MaxLoc<double, int>::value_type max;
  Kokkos::MinMax<double>::value_type min_max;
  Kokkos::MinMaxLoc<double, int64_t>::value_type min_max_loc;
  int all = 0, any = 0;
  int64_t bits_and = 0, bits_or = 0;
};
template <class Space>
TeamResults team_reductions(const Space& space, int team_size,
                            const ViewOf<Space, const double**>& A,
                            const ViewOf<Space, const int64_t**>& K, int64_t floor) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const int rows = static_cast<int>(A.extent(0)), cols = static_cast<int>(A.extent(1));
  const Kokkos::TeamPolicy<Space> policy(space, rows, team_size);
  TeamResults r{};
  Kokkos::parallel_reduce(
      "team minloc", policy,
      LIGHTNING_LAMBDA(
          "block j => read A[j, :]", (A, cols),
          (const member_type& team, Kokkos::MinLoc<double, int>::value_type& m) {
            const int j = team.league_rank();
            for (int c = team.team_rank(); c < cols; c += team.team_size())
              if (A(j, c) < m.val) {
                m.val = A(j, c);
                m.loc = j * cols + c;
              }
          }),
      Kokkos::MinLoc<double, int>(r.min));
  Kokkos::parallel_reduce(
      "team maxloc", policy,
      LIGHTNING_LAMBDA(
          "block j => read A[j, :]", (A, cols),
          (const member_type& team, Kokkos::MaxLoc<double, int>::value_type& m) {
            const int j = team.league_rank();
            for (int c = team.team_rank(); c < cols; c += team.team_size())
              if (A(j, c) > m.val) {
                m.val = A(j, c);
                m.loc = j * cols + c;
              }
          }),
      Kokkos::MaxLoc<double, int>(r.max));
  Kokkos::parallel_reduce("team minmax", policy,
                          LIGHTNING_LAMBDA(
                              "block j => read A[j, :]", (A, cols),
                              (const member_type& team, Kokkos::MinMax<double>::value_type& m) {
                                const int j = team.league_rank();
                                for (int c = team.team_rank(); c < cols; c += team.team_size()) {
                                  if (A(j, c) < m.min_val) m.min_val = A(j, c);
                                  if (A(j, c) > m.max_val) m.max_val = A(j, c);
                                }
                              }),
                          Kokkos::MinMax<double>(r.min_max));
  Kokkos::parallel_reduce(
      "team minmaxloc", policy,
      LIGHTNING_LAMBDA(
          "block j => read A[j, :]", (A, cols),
          (const member_type& team, Kokkos::MinMaxLoc<double, int64_t>::value_type& m) {
            const int j = team.league_rank();
            for (int c = team.team_rank(); c < cols; c += team.team_size()) {
              if (A(j, c) < m.min_val) {
                m.min_val = A(j, c);
                m.min_loc = j * cols + c;
              }
              if (A(j, c) > m.max_val) {
                m.max_val = A(j, c);
                m.max_loc = j * cols + c;
              }
            }
          }),
      Kokkos::MinMaxLoc<double, int64_t>(r.min_max_loc));
  Kokkos::parallel_reduce("team land", policy,
                          LIGHTNING_LAMBDA(
                              "block j => read K[j, :]", (K, cols, floor),
                              (const member_type& team, int& a) {
                                for (int c = team.team_rank(); c < cols; c += team.team_size())
                                  a = a && K(team.league_rank(), c) > floor;
                              }),
                          Kokkos::LAnd<int>(r.all));
  Kokkos::parallel_reduce("team lor", policy,
                          LIGHTNING_LAMBDA(
                              "block j => read K[j, :]", (K, cols, floor),
                              (const member_type& team, int& a) {
                                for (int c = team.team_rank(); c < cols; c += team.team_size())
                                  a = a || K(team.league_rank(), c) == floor;
                              }),
                          Kokkos::LOr<int>(r.any));
  Kokkos::parallel_reduce("team band", policy,
                          LIGHTNING_LAMBDA(
                              "block j => read K[j, :]", (K, cols),
                              (const member_type& team, int64_t& b) {
                                for (int c = team.team_rank(); c < cols; c += team.team_size())
                                  b &= K(team.league_rank(), c);
                              }),
                          Kokkos::BAnd<int64_t>(r.bits_and));
  Kokkos::parallel_reduce("team bor", policy,
                          LIGHTNING_LAMBDA(
                              "block j => read K[j, :]", (K, cols),
                              (const member_type& team, int64_t& b) {
                                for (int c = team.team_rank(); c < cols; c += team.team_size())
                                  b |= K(team.league_rank(), c);
                              }),
                          Kokkos::BOr<int64_t>(r.bits_or));
  return r;
}

#if KOKKOS_VERSION >= 40000
/// The first place of the smallest and of the largest K(j, c) (values repeat), by teams.
template <class Space>
std::pair<int, int> team_first_extremes(const Space& space, int team_size,
                                        const ViewOf<Space, const int64_t**>& K) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const int rows = static_cast<int>(K.extent(0)), cols = static_cast<int>(K.extent(1));
  Kokkos::MinFirstLoc<int64_t, int>::value_type min{};
  Kokkos::MaxFirstLoc<int64_t, int>::value_type max{};
  Kokkos::parallel_reduce(
      Kokkos::TeamPolicy<Space>(space, rows, team_size),
      LIGHTNING_LAMBDA(
          "block j => read K[j, :]", (K, cols),
          (const member_type& team, Kokkos::MinFirstLoc<int64_t, int>::value_type& m) {
            const int j = team.league_rank();
            for (int c = team.team_rank(); c < cols; c += team.team_size())
              if (K(j, c) < m.val || (K(j, c) == m.val && j * cols + c < m.loc)) {
                m.val = K(j, c);
                m.loc = j * cols + c;
              }
          }),
      Kokkos::MinFirstLoc<int64_t, int>(min));
  Kokkos::parallel_reduce(
      Kokkos::TeamPolicy<Space>(space, rows, team_size),
      LIGHTNING_LAMBDA(
          "block j => read K[j, :]", (K, cols),
          (const member_type& team, Kokkos::MaxFirstLoc<int64_t, int>::value_type& m) {
            const int j = team.league_rank();
            for (int c = team.team_rank(); c < cols; c += team.team_size())
              if (K(j, c) > m.val || (K(j, c) == m.val && j * cols + c < m.loc)) {
                m.val = K(j, c);
                m.loc = j * cols + c;
              }
          }),
      Kokkos::MaxFirstLoc<int64_t, int>(max));
  return {min.loc, max.loc};
}
#endif

/// The sum, the largest and the smallest value, in one launch with three reducers: a scalar
/// (summed, as Kokkos makes of it), Max and Min.
struct SumMaxMin {
  int64_t sum;
  int64_t max;
  int64_t min;
};
template <class Space>
SumMaxMin sum_max_min(const Space& space, const ViewOf<Space, const int64_t*>& x) {
  const int n = static_cast<int>(x.extent(0));
  SumMaxMin r{};
  Kokkos::parallel_reduce("sum max min", Kokkos::RangePolicy<Space>(space, 0, n),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i]", (x),
                              (const int i, int64_t& s, int64_t& large, int64_t& small) {
                                s += x(i);
                                if (x(i) > large) large = x(i);
                                if (x(i) < small) small = x(i);
                              }),
                          r.sum, Kokkos::Max<int64_t>(r.max), Kokkos::Min<int64_t>(r.min));
  return r;
}

#if KOKKOS_VERSION >= 40000  // Kokkos 3.4 cannot write a combined MinLoc back (void operator=)
/// The sum and the smallest value with its place, through Sum and MinLoc in one launch.
template <class Space>
std::pair<double, Kokkos::MinLoc<int64_t, int>::value_type> sum_and_min_loc(
    const Space& space, const ViewOf<Space, const int64_t*>& x) {
  const int n = static_cast<int>(x.extent(0));
  double sum = 0;
  Kokkos::MinLoc<int64_t, int>::value_type min{};
  Kokkos::parallel_reduce(
      "sum min loc", Kokkos::RangePolicy<Space>(space, 0, n),
      LIGHTNING_LAMBDA(
          "global i => read x[i]", (x),
          (const int i, double& s, Kokkos::MinLoc<int64_t, int>::value_type& l) {
            s += x(i);
            if (x(i) < l.val) {
              l.val = x(i);
              l.loc = i;
            }
          }),
      Kokkos::Sum<double>(sum), Kokkos::MinLoc<int64_t, int>(min));
  return {sum, min};
}
#endif

/// The sum, the largest and the smallest element of k through lk_team::TeamSumMaxMin: three
/// reducers in one team launch.
template <class Space>
std::array<int64_t, 3> team_sum_max_min(const Space& space, int team,
                                        const ViewOf<Space, const int64_t**>& k) {
  std::array<int64_t, 3> r{-1, -1, -1};
  Kokkos::parallel_reduce("team sum max min",
                          Kokkos::TeamPolicy<Space>(space, static_cast<int>(k.extent(0)), team),
                          lk_team::TeamSumMaxMin<Space, ViewOf<Space, const int64_t**>>{k}, r[0],
                          Kokkos::Max<int64_t>(r[1]), Kokkos::Min<int64_t>(r[2]));
  return r;
}

#if KOKKOS_VERSION >= 40000
/// The sum and the smallest element of k with its place (made unique by its place), through
/// Sum and MinLoc in one team launch.
template <class Space>
std::pair<double, Kokkos::MinLoc<int64_t, int>::value_type> team_sum_and_min_loc(
    const Space& space, int team_size, const ViewOf<Space, const int64_t**>& k) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const int cols = static_cast<int>(k.extent(1));
  double sum = 0;
  Kokkos::MinLoc<int64_t, int>::value_type min{};
  Kokkos::parallel_reduce(
      "team sum min loc",
      Kokkos::TeamPolicy<Space>(space, static_cast<int>(k.extent(0)), team_size),
      LIGHTNING_LAMBDA(
          "block j => read k[j, :]", (k, cols),
          (const member_type& team, double& s, Kokkos::MinLoc<int64_t, int>::value_type& l) {
            const int j = team.league_rank();
            for (int c = team.team_rank(); c < cols; c += team.team_size()) {
              s += k(j, c);
              const int64_t key = k(j, c) * 4096 + j * cols + c;
              if (key < l.val) {
                l.val = key;
                l.loc = j * cols + c;
              }
            }
          }),
      Kokkos::Sum<double>(sum), Kokkos::MinLoc<int64_t, int>(min));
  return {sum, min};
}
#endif

template <class Space, class A>
std::pair<double, int> sign_and_negatives(const A& a) {
  double product = 0;
  int negatives = -1;
  Kokkos::parallel_reduce(
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(
          {0, 0}, {static_cast<int64_t>(a.extent(0)), static_cast<int64_t>(a.extent(1))}),
      lk_test::SignAndNegatives<A>{a}, Kokkos::Prod<double>(product), negatives);
  return {product, negatives};
}

}  // namespace lk_reducers

namespace {

using lk_test::Exec;
using lk_test::Host;
using lk_test::KView;
using lk_test::LView;

template <class T>
LView<T*> distributed_copy(const KView<T*>& h, int64_t chunk) {
  LView<T*> v(h.label(), h.extent(0), lightning::dist::block(chunk));
  Kokkos::deep_copy(v, h);
  return v;
}

using lk_test::uniform;

TEST(KokkosReducers, LogicalAndBitwiseReducersMatchTheHostSpace) {
  std::mt19937 rng(31);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 4000);
    SCOPED_TRACE("n " + std::to_string(n));
    KView<int64_t*> hx("x", n);
    for (int i = 0; i < n; ++i)
      hx(i) = (static_cast<int64_t>(uniform(rng, 0, 1 << 20)) << 20) | 0x10 | (i % 7 == 3 ? 1 : 0);
    auto x = distributed_copy(hx, uniform(rng, 1, n));
    for (const int64_t floor : {int64_t{-1}, hx(n / 2)}) {
      EXPECT_EQ(lk_reducers::all_and_any<Exec>(x, floor, hx(n - 1)),
                lk_reducers::all_and_any<Host>(hx, floor, hx(n - 1)));
      EXPECT_EQ(lk_reducers::all_and_any<Exec>(x, floor, -5),
                lk_reducers::all_and_any<Host>(hx, floor, -5));
    }
    EXPECT_EQ(lk_reducers::bits<Exec>(x), lk_reducers::bits<Host>(hx));
  }
}

TEST(KokkosReducers, LocationReducersMatchTheHostSpace) {
  std::mt19937 rng(37);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 4000);
    SCOPED_TRACE("n " + std::to_string(n));
    // Distinct values, so that every order of folding finds the same places.
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    KView<double*> hv("v", n);
    for (int i = 0; i < n; ++i) hv(i) = 0.25 * order[static_cast<size_t>(i)] - 100;
    auto v = distributed_copy(hv, uniform(rng, 1, n));
    const auto got =
        lk_reducers::extremes<Exec>(Exec(lightning::work::block(uniform(rng, 1, n))), v);
    const auto want = lk_reducers::extremes<Host>(Host(), hv);
    EXPECT_EQ(got.min.val, want.min.val);
    EXPECT_EQ(got.min.loc, want.min.loc);
    EXPECT_EQ(got.max.val, want.max.val);
    EXPECT_EQ(got.max.loc, want.max.loc);
    EXPECT_EQ(got.min_max.min_val, want.min_max.min_val);
    EXPECT_EQ(got.min_max.max_val, want.min_max.max_val);
    EXPECT_EQ(got.min_max_loc.min_val, want.min_max_loc.min_val);
    EXPECT_EQ(got.min_max_loc.max_val, want.min_max_loc.max_val);
    EXPECT_EQ(got.min_max_loc.min_loc, want.min_max_loc.min_loc);
    EXPECT_EQ(got.min_max_loc.max_loc, want.min_max_loc.max_loc);
  }
}

#if KOKKOS_VERSION >= 40000
TEST(KokkosReducers, FirstLocationReducersFindTheFirstOfEqualValues) {
  std::mt19937 rng(41);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 4000);
    KView<int64_t*> hk("k", n);
    for (int i = 0; i < n; ++i) hk(i) = uniform(rng, -3, 3);  // many ties
    auto k = distributed_copy(hk, uniform(rng, 1, n));
    EXPECT_EQ(lk_reducers::first_extremes<Exec>(k), lk_reducers::first_extremes<Host>(hk));
  }
}
#endif

/// Team sizes to try: on GPUs also several warps, partial warps and whole blocks.
int random_team_size(std::mt19937& rng) {
  static const int host[] = {1, 2, 3, 5, 8};
  static const int gpu[] = {1, 3, 32, 33, 64, 100, 256, 1024};
  return lk_test::on_gpus() ? gpu[uniform(rng, 0, 7)] : host[uniform(rng, 0, 4)];
}

TEST(KokkosReducers, TeamLaunchesFoldWithEveryReducerAsTheHostSpace) {
  std::mt19937 rng(43);
  for (int round = 0; round < 5; ++round) {
    const int rows = uniform(rng, 1, 60), cols = uniform(rng, 1, 40);
    const int team = random_team_size(rng);
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", teams of " +
                 std::to_string(team));
    // Distinct values, so that every order of folding finds the same places.
    std::vector<int> order(static_cast<size_t>(rows * cols));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    KView<double**> hA("A", rows, cols);
    KView<int64_t**> hK("K", rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        hA(i, j) = 0.5 * order[static_cast<size_t>(i * cols + j)] - 300;
        hK(i, j) = (static_cast<int64_t>(uniform(rng, 0, 1 << 20)) << 8) | 0x4 |
                   (uniform(rng, 0, 3) == 0 ? 1 : 0);
      }
    LView<double**> A("A", rows, cols, lightning::dist::rows(uniform(rng, 1, rows)));
    LView<int64_t**> K("K", rows, cols, lightning::dist::rows(uniform(rng, 1, rows)));
    Kokkos::deep_copy(A, hA);
    Kokkos::deep_copy(K, hK);
    const int64_t floor = uniform(rng, 0, 1) ? int64_t{-1} : hK(rows / 2, cols / 2);
    const auto got = lk_reducers::team_reductions<Exec>(lk_test::random_space(rng, rows * team),
                                                        team, LView<const double**>(A),
                                                        LView<const int64_t**>(K), floor);
    const auto want = lk_reducers::team_reductions<Host>(Host(), 1, hA, hK, floor);
    EXPECT_EQ(got.min.val, want.min.val);
    EXPECT_EQ(got.min.loc, want.min.loc);
    EXPECT_EQ(got.max.val, want.max.val);
    EXPECT_EQ(got.max.loc, want.max.loc);
    EXPECT_EQ(got.min_max.min_val, want.min_max.min_val);
    EXPECT_EQ(got.min_max.max_val, want.min_max.max_val);
    EXPECT_EQ(got.min_max_loc.min_val, want.min_max_loc.min_val);
    EXPECT_EQ(got.min_max_loc.max_val, want.min_max_loc.max_val);
    EXPECT_EQ(got.min_max_loc.min_loc, want.min_max_loc.min_loc);
    EXPECT_EQ(got.min_max_loc.max_loc, want.min_max_loc.max_loc);
    EXPECT_EQ(got.all, want.all);
    EXPECT_EQ(got.any, want.any);
    EXPECT_EQ(got.bits_and, want.bits_and);
    EXPECT_EQ(got.bits_or, want.bits_or);
#if KOKKOS_VERSION >= 40000
    KView<int64_t**> hT("T", rows, cols);  // many ties
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) hT(i, j) = uniform(rng, -3, 3);
    LView<int64_t**> T("T", rows, cols, lightning::dist::rows(uniform(rng, 1, rows)));
    Kokkos::deep_copy(T, hT);
    EXPECT_EQ(lk_reducers::team_first_extremes<Exec>(lk_test::random_space(rng, rows * team), team,
                                                     LView<const int64_t**>(T)),
              lk_reducers::team_first_extremes<Host>(Host(), 1, hT));
#endif
  }
}

}  // namespace

TEST(KokkosReducers, SeveralReducersInOneLaunchMatchTheHostSpace) {
  // Kokkos declares this parallel_reduce noexcept: an error would stop the program (the
  // next test checks how), so the launches go straight.
  std::mt19937 rng(47);
  for (int round = 0; round < 6; ++round) {
    const int n = uniform(rng, 1, 3000);
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<int> order(static_cast<size_t>(n));  // distinct values: one place of the min
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    KView<int64_t*> hx("x", n);
    for (int i = 0; i < n; ++i) hx(i) = 3 * order[static_cast<size_t>(i)] - n;
    auto x = distributed_copy(hx, uniform(rng, 1, n));
    const auto want = lk_reducers::sum_max_min<Host>(Host(), hx);
    lk_reducers::SumMaxMin got{};
    const std::string error = lk_test::error_of(
        [&] { got = lk_reducers::sum_max_min<Exec>(lk_test::random_space(rng, n), x); });
    ASSERT_EQ(error, "");
    EXPECT_EQ(got.sum, want.sum);
    EXPECT_EQ(got.max, want.max);
    EXPECT_EQ(got.min, want.min);
#if KOKKOS_VERSION >= 40000
    const auto got_loc = lk_reducers::sum_and_min_loc<Exec>(lk_test::random_space(rng, n), x);
    const auto want_loc = lk_reducers::sum_and_min_loc<Host>(Host(), hx);
    EXPECT_EQ(got_loc.first, want_loc.first);
    EXPECT_EQ(got_loc.second.val, want_loc.second.val);
    EXPECT_EQ(got_loc.second.loc, want_loc.second.loc);
#endif

    const int rows = uniform(rng, 1, 40), cols = uniform(rng, 1, 40);
    KView<double**> ha("a", rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) ha(i, j) = uniform(rng, 0, 5) ? 1 : -1;  // exact products
    LView<double**> a("a", rows, cols, lightning::dist::rows(uniform(rng, 1, rows)));
    Kokkos::deep_copy(a, ha);
    EXPECT_EQ(lk_reducers::sign_and_negatives<Exec>(a), lk_reducers::sign_and_negatives<Host>(ha));

    // A team launch, teams of several members.
    const int team = random_team_size(rng);
    KView<int64_t**> hk("k", rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) hk(i, j) = uniform(rng, -1000, 1000);
    LView<int64_t**> k("k", rows, cols, lightning::dist::rows(uniform(rng, 1, rows)));
    Kokkos::deep_copy(k, hk);
    EXPECT_EQ(lk_reducers::team_sum_max_min<Exec>(lk_test::random_space(rng, rows * team), team,
                                                  LView<const int64_t**>(k)),
              lk_reducers::team_sum_max_min<Host>(Host(), 1, hk))
        << "teams of " << team;
#if KOKKOS_VERSION >= 40000
    const auto got_team_loc = lk_reducers::team_sum_and_min_loc<Exec>(
        lk_test::random_space(rng, rows * team), team, LView<const int64_t**>(k));
    const auto want_team_loc = lk_reducers::team_sum_and_min_loc<Host>(Host(), 1, hk);
    EXPECT_EQ(got_team_loc.first, want_team_loc.first);
    EXPECT_EQ(got_team_loc.second.val, want_team_loc.second.val);
    EXPECT_EQ(got_team_loc.second.loc, want_team_loc.second.loc);
#endif
  }
}

// GPU code folds several reducers with lightning::jit::CombinedReducer of the parts' GPU
// spellings, one update per part, on a value that lays the parts out one after the other, each
// at its alignment (one base class of one member per part): Kokkos' combined value must have
// that layout (the generated code checks the size).
TEST(KokkosReducers, SeveralReducersRegisterOneReducerWhoseGpuValueHasKokkosLayout) {
  using Loc = Kokkos::MinLoc<float, int16_t>::value_type;
  using Value = Kokkos::Impl::CombinedReducerValueImpl<std::index_sequence<0, 1, 2, 3>, int8_t,
                                                       double, Loc, int>;
  Value v{};
  const auto* base = reinterpret_cast<const char*>(&v);
  auto at = [&](const void* part) { return static_cast<const char*>(part) - base; };
  EXPECT_EQ(at(&v.get<0, int8_t>()), 0);
  EXPECT_EQ(at(&v.get<1, double>()), 8);
  EXPECT_EQ(at(&v.get<2, Loc>()), 16);
  EXPECT_EQ(at(&v.get<3, int>()), 24);
  EXPECT_EQ(sizeof(Value), 32u);

  using Combined = Kokkos::Impl::CombinedReducer<Kokkos::HostSpace, Kokkos::Sum<double>,
                                                 Kokkos::MinLoc<double, int>>;
  const lightning::kernel::ReducerInfo& info =
      lightning::kernel::ReducerRegistry::get(lightning::detail::RegisteredReducer<Combined>::id);
  EXPECT_EQ(info.name, "combined(Kokkos::Sum<double>, Kokkos::MinLoc<double, int32_t>)");
  EXPECT_EQ(info.device_type,
            "lightning::jit::CombinedReducer<Kokkos::Sum<double>, Kokkos::MinLoc<double, "
            "int32_t>>");
  EXPECT_EQ(info.updates, 2u);
  EXPECT_EQ(info.value_size, sizeof(Combined::value_type));
}

/// A parallel_reduce with two reducers whose lambda throws at element seven.
void sum_and_max_failing_at_seven() {
  LView<int64_t*> x("x", 100);
  Kokkos::deep_copy(x, int64_t{1});
  int64_t sum = 0, max = 0;
  Kokkos::parallel_reduce("fails at seven", Kokkos::RangePolicy<Exec>(0, 100),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i]", (x),
                              (const int i, int64_t& s, int64_t& m) {
                                if (i == 7) throw std::runtime_error("element seven");
                                s += x(i);
                                if (x(i) > m) m = x(i);
                              }),
                          sum, Kokkos::Max<int64_t>(max));
}

TEST(KokkosReducers, AFailedLaunchWithSeveralReducersStopsTheProgramNamingIt) {
  // Kokkos declares parallel_reduce with several reducers noexcept: a failure cannot be
  // thrown to the program, so the runtime says what failed and aborts. A death test runs the
  // binary again: not under mpirun.
  if (std::getenv("OMPI_COMM_WORLD_SIZE")) GTEST_SKIP() << "a death test cannot run under mpirun";
  if (lk_test::on_gpus())
    GTEST_SKIP() << "host devices: the test's child would start the GPU again";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(sum_and_max_failing_at_seven(),
               "several reducers failed, and Kokkos declares it noexcept.*launch 'fails at seven'");
}
