// The team kernels of the TeamPolicy tests, for Kokkos::Serial and lightning::Distributed
// alike: y^T·A·x, scratch rows with vector ranges, team collectives, a Max reducer, a
// functor's own init and join, several reducers, team operators picked by work tags, and the
// kernels that must be refused. Each names its member type
// `member_type` and declares the types its operator uses inside LIGHTNING_KERNEL, so that GPU code
// has them too.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <stdexcept>

#include "lightning_kokkos/lightning_kokkos.hpp"

namespace lk_team {

template <class Space>
using Member = typename Kokkos::TeamPolicy<Space>::member_type;
template <class Space>
using ScratchRow =
    Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;

/// The tutorial's y^T·A·x with teams: team j reduces row j over its threads, one thread adds
/// y(j) times it to the launch's sum.
template <class Space, class VA, class VX>
struct TeamYAx {
  using member_type = Member<Space>;
  VA A;
  VX x, y;
  LIGHTNING_KERNEL(
      TeamYAx, "block j => read A[j, :], read x[:], read y[j]", (A, x, y),
      void operator()(const member_type& team, double& update) const {
        const int j = team.league_rank();
        double row = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, static_cast<int>(A.extent(1))),
            [&](const int i, double& inner) { inner += A(j, i) * x(i); }, row);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { update += y(j) * row; });
      })
};

/// A row through team scratch: threads copy row j of A into the team's scratch of level
/// `row_level`, meet at a barrier, then each writes a smoothed element (reading what other
/// threads copied); per-thread scratch of level `mine_level` holds a thread's partial sum.
/// Vector lanes sum over a window.
template <class Space, class VA, class VB>
struct ScratchSmooth {
  using member_type = Member<Space>;
  VA A;
  VB B;
  int64_t width = 0;
  int64_t row_level = 0, mine_level = 1;
  LIGHTNING_KERNEL(
      ScratchSmooth, "block j => read A[j, :], write B[j, :]", (A, B, width, row_level, mine_level),
      using scratch_row = Kokkos::View<double*, typename member_type::scratch_memory_space,
                                       Kokkos::MemoryUnmanaged>;
      void operator()(const member_type& team) const {
        const int j = team.league_rank();
        const int n = static_cast<int>(A.extent(1));
        scratch_row row(team.team_scratch(static_cast<int>(row_level)), n);
        scratch_row mine(team.thread_scratch(static_cast<int>(mine_level)), 1);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                             [&](const int i) { row(i) = A(j, i); });
        team.team_barrier();
        mine(0) = 0;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) {
          double s = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, static_cast<int>(width)),
              [&](const int k, double& w) { w += row((i + k) % n); }, s);
          B(j, i) = s;
          mine(0) += s;
        });
        team.team_barrier();  // nobody overwrites `row` while others read it
      })
};

/// Team collectives, written per (team, member): the member's rank scanned, the team's
/// maximum through team_reduce, a value broadcast from the last member, and a
/// parallel_scan over a TeamThreadRange.
template <class Space, class VS, class VR>
struct Collectives {
  using member_type = Member<Space>;
  VS S;  // [league, 4]: scan of ranks, max, broadcast, team size
  VR R;  // [league, n]: inclusive scan of 1..n over the team
  LIGHTNING_KERNEL(
      Collectives, "block b => write S[b, :], write R[b, :]", (S, R),
      void operator()(const member_type& team) const {
        const int b = team.league_rank();
        const int t = team.team_rank();
        const int last = team.team_size() - 1;
        const int64_t before = team.team_scan(int64_t{t + 1});
        double top = 0;
        team.team_reduce(Kokkos::Max<double>(top), double(t * 3 + b));
        int from_last = t == last ? 100 + b : -1;
        team.team_broadcast(from_last, last);
        const int n = static_cast<int>(R.extent(1));
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, n),
                              [&](const int i, int64_t& partial, const bool final) {
                                partial += i + 1;
                                if (final) R(b, i) = partial;
                              });
        if (t == last) {
          S(b, 0) = before + t + 1;  // the inclusive scan's last value
          S(b, 1) = top;
          S(b, 2) = from_last;
        }
        Kokkos::single(Kokkos::PerTeam(team), [&]() { S(b, 3) = team.team_size(); });
      })
};

/// Kokkos::single(PerThread) with and without a value, team_broadcast with a closure,
/// single(PerTeam) with a value, and two team_scans into a global total (team b's counter
/// G(b), as a stream compaction takes its places), each member's results in M[b, t, :]:
/// 0 its single(PerThread) value, 1 how often the team's single(PerThread) ran (once per
/// member whatever the vector length), 2 the closure's broadcast, 3 single(PerTeam)'s value,
/// 4 and 5 the two scans' places.
template <class Space, class VM, class VG>
struct BroadcastsAndGlobalScans {
  using member_type = Member<Space>;
  VM M;  // [league, team, 6]
  VG G;  // [league]
  LIGHTNING_KERNEL(
      BroadcastsAndGlobalScans, "block b, local t => write M[b, t, :], readwrite G[b]", (M, G),
      using counter =
          Kokkos::View<int*, typename member_type::scratch_memory_space, Kokkos::MemoryUnmanaged>;
      void operator()(const member_type& team) const {
        const int b = team.league_rank();
        const int t = team.team_rank();
        counter singles(team.team_scratch(0), 1);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { singles(0) = 0; });
        team.team_barrier();
        int mine = -1;
        Kokkos::single(
            Kokkos::PerThread(team), [&](int& v) { v = 7 * t + b; }, mine);
        Kokkos::single(Kokkos::PerThread(team), [&]() { Kokkos::atomic_add(&singles(0), 1); });
        int broadcast = t + 1;
        team.team_broadcast([&](int& v) { v = v * 10 + b; }, broadcast, b % team.team_size());
        int from_first = t == 0 ? 5 : -5;
        Kokkos::single(
            Kokkos::PerTeam(team), [&](int& v) { v += 100 * b; }, from_first);
        const int64_t first = team.team_scan(int64_t{(t * 7 + b) % 5}, &G(b));
        const int64_t second = team.team_scan(int64_t{1}, &G(b));
        team.team_barrier();  // every member's single(PerThread) has counted
        M(b, t, 0) = mine;
        M(b, t, 1) = singles(0);
        M(b, t, 2) = broadcast;
        M(b, t, 3) = from_first;
        M(b, t, 4) = first;
        M(b, t, 5) = second;
      })
};

/// Kokkos atomics of every member of a team at once: `reps` increments of a counter in team
/// scratch and of the team's element of C, by each member.
template <class Space, class VC>
struct MemberAtomics {
  using member_type = Member<Space>;
  VC C;  // [league, 2]: the scratch counter's total, the element's
  int64_t reps = 0;
  LIGHTNING_KERNEL(
      MemberAtomics, "block b => readwrite C[b, :]", (C, reps),
      using counter = Kokkos::View<int64_t*, typename member_type::scratch_memory_space,
                                   Kokkos::MemoryUnmanaged>;
      void operator()(const member_type& team) const {
        const int b = team.league_rank();
        counter count(team.team_scratch(0), 1);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { count(0) = 0; });
        team.team_barrier();
        for (int64_t r = 0; r < reps; ++r) {
          Kokkos::atomic_add(&count(0), int64_t{1});
          Kokkos::atomic_fetch_add(&C(b, 1), int64_t{1});
        }
        team.team_barrier();
        Kokkos::single(Kokkos::PerTeam(team), [&]() { C(b, 0) = count(0); });
      })
};

/// ThreadVectorRange inside a TeamThreadRange: team j takes the rows k of its slab X[j, :, :],
/// the lanes of a member the elements of a row: a parallel_for writing each, an inclusive
/// parallel_scan of the row and a parallel_reduce (its sum, written by single(PerThread)).
template <class Space, class VX, class VY, class VR>
struct VectorRanges {
  using member_type = Member<Space>;
  VX X;     // [league, m, n]
  VY F, P;  // [league, m, n]: the parallel_for's values, the rows' inclusive prefix sums
  VR R;     // [league, m]: the rows' sums
  LIGHTNING_KERNEL(
      VectorRanges, "block j => read X[j, :, :], write F[j, :, :], write P[j, :, :], write R[j, :]",
      (X, F, P, R), void operator()(const member_type& team) const {
        const int j = team.league_rank();
        const int m = static_cast<int>(X.extent(1));
        const int n = static_cast<int>(X.extent(2));
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const int k) {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n),
                               [&](const int i) { F(j, k, i) = 3 * X(j, k, i) + k; });
          Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, n),
                                [&](const int i, int64_t& partial, const bool final) {
                                  partial += X(j, k, i);
                                  if (final) P(j, k, i) = partial;
                                });
          int64_t sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, n), [&](const int i, int64_t& s) { s += X(j, k, i); },
              sum);
          Kokkos::single(Kokkos::PerThread(team), [&]() { R(j, k) = sum; });
        });
      })
};

/// TeamVectorRange (Kokkos 3.4 and 4): over row j of X, a parallel_for, an exclusive
/// parallel_scan, and parallel_reduces into a sum and through a Max reducer.
template <class Space, class VX, class VY, class VS>
struct TeamVectorRanges {
  using member_type = Member<Space>;
  VX X;     // [league, n]
  VY Y, P;  // [league, n]: the parallel_for's values, the row's exclusive prefix sums
  VS S;     // [league, 2]: the row's sum and maximum
  LIGHTNING_KERNEL(
      TeamVectorRanges, "block j => read X[j, :], write Y[j, :], write P[j, :], write S[j, :]",
      (X, Y, P, S), void operator()(const member_type& team) const {
        const int j = team.league_rank();
        const int n = static_cast<int>(X.extent(1));
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n),
                             [&](const int i) { Y(j, i) = X(j, i) * X(j, i) - i; });
        Kokkos::parallel_scan(Kokkos::TeamVectorRange(team, n),
                              [&](const int i, int64_t& partial, const bool final) {
                                if (final) P(j, i) = partial;
                                partial += X(j, i);
                              });
        int64_t sum = 0, top = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamVectorRange(team, n), [&](const int i, int64_t& s) { s += X(j, i); }, sum);
        Kokkos::parallel_reduce(
            Kokkos::TeamVectorRange(team, n),
            [&](const int i, int64_t& v) {
              if (X(j, i) > v) v = X(j, i);
            },
            Kokkos::Max<int64_t>(top));
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          S(j, 0) = sum;
          S(j, 1) = top;
        });
      })
};

/// A team kernel binding two local axes, which a team launch (rank 1) has not.
template <class Space, class VB>
struct TwoLocalAxes {
  using member_type = Member<Space>;
  VB B;
  LIGHTNING_KERNEL(
      TwoLocalAxes, "block j, local [t, v] => write B[j]", (B),
      void operator()(const member_type& team) const {
        if (team.team_rank() == 0) B(team.league_rank()) = 1;
      })
};

/// The largest element of A by teams (a Kokkos::Max reducer over the launch).
template <class Space, class VA>
struct TeamMax {
  using member_type = Member<Space>;
  VA A;
  LIGHTNING_KERNEL(
      TeamMax, "block j => read A[j, :]", (A),
      void operator()(const member_type& team, double& top) const {
        double row = -1e300;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, static_cast<int>(A.extent(1))),
            [&](const int i, double& m) {
              if (A(team.league_rank(), i) > m) m = A(team.league_rank(), i);
            },
            Kokkos::Max<double>(row));
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          if (row > top) top = row;
        });
      })
};

/// The lowest element of A and the highest above a floor the functor holds, by teams whose
/// members each look at every team_size-th element of their row: the functor's own value
/// type, init (reading the floor) and join, inside LIGHTNING_KERNEL so that GPU code folds
/// the members' and the teams' values with them too.
template <class Space, class VA>
struct TeamSpread {
  using member_type = Member<Space>;
  VA A;
  double floor = 0;
  LIGHTNING_KERNEL(
      TeamSpread, "block j => read A[j, :]", (A, floor),
      struct value_type {
        double low;
        double high;
      };
      KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, value_type& v) const {
        const int j = team.league_rank();
        for (int c = team.team_rank(); c < static_cast<int>(A.extent(1)); c += team.team_size()) {
          if (A(j, c) < v.low) v.low = A(j, c);
          if (A(j, c) > v.high) v.high = A(j, c);
        }
      } KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
        v.low = 1e300;
        v.high = floor;
      } KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const {
        if (src.low < dst.low) dst.low = src.low;
        if (src.high > dst.high) dst.high = src.high;
      })
};

/// The sum, the largest and the smallest element of A by teams, with three reducers in one
/// parallel_reduce (a plain scalar, summed; Max; Min); each member looks at every
/// team_size-th element of its row.
template <class Space, class VA>
struct TeamSumMaxMin {
  using member_type = Member<Space>;
  VA A;
  LIGHTNING_KERNEL(
      TeamSumMaxMin, "block j => read A[j, :]", (A),
      KOKKOS_INLINE_FUNCTION void operator()(const member_type& team, int64_t& sum, int64_t& large,
                                             int64_t& small) const {
        const int j = team.league_rank();
        for (int c = team.team_rank(); c < static_cast<int>(A.extent(1)); c += team.team_size()) {
          sum += A(j, c);
          if (A(j, c) > large) large = A(j, c);
          if (A(j, c) < small) small = A(j, c);
        }
      })
};

/// A team kernel whose annotation uses the global index, which a team launch has not.
template <class Space, class VB>
struct GlobalInTeams {
  using member_type = Member<Space>;
  VB B;
  LIGHTNING_KERNEL(
      GlobalInTeams, "global i => write B[i]", (B),
      void operator()(const member_type& team) const { B(team.league_rank()) = 1; })
};

/// A team kernel one of whose members throws.
template <class Space, class VB>
struct ThrowingMember {
  using member_type = Member<Space>;
  VB B;
  LIGHTNING_KERNEL(
      ThrowingMember, "block b => write B[b]", (B), void operator()(const member_type& team) const {
        if (team.team_rank() == 1 && team.league_rank() == 2)
          throw std::runtime_error("member 1 of team 2 gave up");
        team.team_barrier();
        if (team.team_rank() == 0) B(team.league_rank()) = 1;
      })
};

/// Team j reads row j + 1 too, which its annotation does not declare.
template <class Space, class VA, class VB>
struct ReadsTheNextRow {
  using member_type = Member<Space>;
  VA A;
  VB B;
  LIGHTNING_KERNEL(
      ReadsTheNextRow, "block j, local t => read A[j, :], write B[j]", (A, B),
      void operator()(const member_type& team) const {
        const int j = team.league_rank();
        if (team.team_rank() == team.team_size() - 1 && j + 1 < int(A.extent(0)))
          B(j) = A(j + 1, 0);
      })
};

/// Member 0 of every team returns before the barrier the others wait at.
template <class Space, class VB>
struct SkipsTheBarrier {
  using member_type = Member<Space>;
  VB B;
  LIGHTNING_KERNEL(
      SkipsTheBarrier, "block b => write B[b]", (B),
      void operator()(const member_type& team) const {
        if (team.team_rank() == 0) return;
        team.team_barrier();
        if (team.team_rank() == 1) B(team.league_rank()) = 1;
      })
};

/// Work tags of the team kernels (TeamPhases' own are nested in it).
struct FillRows {};
namespace tags {
struct Spread {};
}  // namespace tags

/// Team operators picked by work tags, each under its own annotation: FillRows writes row b
/// of A over a TeamThreadRange, RowSums reduces a row staged in team scratch, tags::Spread
/// has member t write B(b, t) (its `local` index), Largest and Smallest reduce with Kokkos'
/// Max and MinLoc reducers; the untagged operator negates each member's element of B.
template <class Space, class VA, class VB>
struct TeamPhases {
  using member_type = Member<Space>;
  struct RowSums {};
  struct Largest {};
  struct Smallest {};
  VA A;  // [league, n]
  VB B;  // [league, team size]
  int64_t shift = 0;
  LIGHTNING_WORK_TAG(FillRows, "block b => write A[b, :]")
  LIGHTNING_WORK_TAG(RowSums, "block b => read A[b, :]")
  LIGHTNING_WORK_TAG(tags::Spread, "block b, local t => read A[b, :], write B[b, t]")
  LIGHTNING_WORK_TAG(Largest, "block b => read A[b, :]")
  LIGHTNING_WORK_TAG(Smallest, "block b => read A[b, :]")
  LIGHTNING_KERNEL(
      TeamPhases, "block b, local t => readwrite B[b, t]", (A, B, shift),
      using scratch_row = Kokkos::View<int64_t*, typename member_type::scratch_memory_space,
                                       Kokkos::MemoryUnmanaged>;
      KOKKOS_INLINE_FUNCTION void operator()(FillRows, const member_type& team) const {
        const int b = team.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(A.extent(1))),
                             [&](const int i) { A(b, i) = (b * 13 + i * 7 + shift) % 19 - 9; });
      } KOKKOS_INLINE_FUNCTION void
      operator()(const RowSums&, const member_type& team, int64_t& sum) const {
        const int b = team.league_rank();
        const int n = static_cast<int>(A.extent(1));
        scratch_row row(team.team_scratch(0), n);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                             [&](const int i) { row(i) = A(b, i); });
        team.team_barrier();
        int64_t weighted = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, n),
            [&](const int i, int64_t& w) { w += row(n - 1 - i) * (i % 3 + 1); }, weighted);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { sum += weighted * (b + 1); });
      } KOKKOS_INLINE_FUNCTION void
      operator()(tags::Spread, const member_type& team) const {
        const int b = team.league_rank();
        const int t = team.team_rank();
        B(b, t) = A(b, t % static_cast<int>(A.extent(1))) * 100 + t;
      } KOKKOS_INLINE_FUNCTION void
      operator()(Largest, const member_type& team, int64_t& top) const {
        const int b = team.league_rank();
        int64_t row = -1000;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, static_cast<int>(A.extent(1))),
            [&](const int i, int64_t& m) {
              if (A(b, i) * (b + 1) > m) m = A(b, i) * (b + 1);
            },
            Kokkos::Max<int64_t>(row));
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          if (row > top) top = row;
        });
      } KOKKOS_INLINE_FUNCTION void
      operator()(Smallest, const member_type& team,
                 Kokkos::MinLoc<int64_t, int>::value_type& least) const {
        // Each row's sum, made unique by its row so that the location has no tie.
        const int b = team.league_rank();
        int64_t row = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, static_cast<int>(A.extent(1))),
            [&](const int i, int64_t& s) { s += A(b, i); }, row);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          const int64_t key = row * team.league_size() + b;
          if (key < least.val) {
            least.val = key;
            least.loc = b;
          }
        });
      } KOKKOS_INLINE_FUNCTION void
      operator()(const member_type& team) const { B(team.league_rank(), team.team_rank()) *= -1; })
};

/// A tagged team operator that reads the next row, which its tag's annotation does not
/// declare (the kernel's annotation, which it does not use, would).
struct NextRow {};
template <class Space, class VA, class VB>
struct TaggedReadsTheNextRow {
  using member_type = Member<Space>;
  VA A;
  VB B;
  LIGHTNING_WORK_TAG(NextRow, "block j => read A[j, :], write B[j]")
  LIGHTNING_KERNEL(
      TaggedReadsTheNextRow, "block j => read A[:, :], write B[j]", (A, B),
      void operator()(NextRow, const member_type& team) const {
        const int j = team.league_rank();
        if (team.team_rank() == 0) B(j) = j + 1 < int(A.extent(0)) ? A(j + 1, 0) : 0;
      })
};

#if KOKKOS_VERSION >= 40000
/// Kokkos 4's nested ranges: a TeamThreadMDRange over a team's tile, a TeamVectorRange, and
/// a parallel_scan over a TeamThreadRange that returns the total.
template <class Space, class VC, class VS>
struct Kokkos4Ranges {
  using member_type = Member<Space>;
  VC C;  // [league, n0, n1]
  VS S;  // [league, 2]: the scan's total, the TeamVectorRange's sum
  LIGHTNING_KERNEL(
      Kokkos4Ranges, "block b => write C[b, :, :], write S[b, :]", (C, S),
      void operator()(const member_type& team) const {
        const int b = team.league_rank();
        const int n0 = static_cast<int>(C.extent(1));
        const int n1 = static_cast<int>(C.extent(2));
        Kokkos::parallel_for(Kokkos::TeamThreadMDRange(team, n0, n1),
                             [&](const int i, const int j) { C(b, i, j) = 100 * i + j + b; });
        int64_t total = 0;
        Kokkos::parallel_scan(
            Kokkos::TeamThreadRange(team, n0 * n1),
            [&](const int k, int64_t& partial, const bool) { partial += k; }, total);
        double sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamVectorRange(team, n1), [&](const int j, double& v) { v += j; }, sum);
        if (team.team_rank() == 0) {
          S(b, 0) = static_cast<double>(total);
          S(b, 1) = sum;
        }
      })
};
#endif

}  // namespace lk_team
