// The functors the Kokkos benchmarks launch on lightning::Distributed and on Kokkos' own
// spaces alike: saxpy, the paper's stencil, a dot product (also with teams), a prefix sum.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <lightning_kokkos/lightning_kokkos.hpp>

namespace perf_kernels {

template <class X, class Y>
struct Saxpy {
  X x;
  Y y;
  float a = 0;
  LIGHTNING_KERNEL(
      Saxpy, "global i => read x[i], readwrite y[i]", (x, y, a),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const { y(i) = a * x(i) + y(i); })
};

template <class In, class Out>
struct Stencil {
  In in;
  Out out;
  LIGHTNING_KERNEL(
      Stencil, "global i => read in[i-1:i+1], write out[i]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i)
          const { out(i) = (in(i - 1) + in(i) + in(i + 1)) / 3.0f; })
};

/// The stencil declaring that it writes every element it names: an out-of-core run need not
/// bring the old contents of what it writes.
template <class In, class Out>
struct StencilOverwrite {
  In in;
  Out out;
  LIGHTNING_KERNEL(
      StencilOverwrite, "global i => read in[i-1:i+1], overwrite out[i]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i)
          const { out(i) = (in(i - 1) + in(i) + in(i + 1)) / 3.0f; })
};

template <class X>
struct Dot {
  X x;
  X y;
  LIGHTNING_KERNEL(
      Dot, "global i => read x[i], read y[i]", (x, y),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, double& s)
          const { s += double(x(i)) * y(i); })
};

/// The dot product of x and y with teams: team b sums elements [b·w, b·w + w) over its threads
/// (TeamThreadRange), one thread adds that to the result. For the launch cost of teams.
template <class X, class Member>
struct TeamDot {
  X x;
  X y;
  int64_t w = 1;  ///< elements per team
  LIGHTNING_KERNEL(
      TeamDot, "block b => read x[b*w : b*w+w-1], read y[b*w : b*w+w-1]", (x, y, w),
      KOKKOS_INLINE_FUNCTION void operator()(const Member& team, double& s) const {
        const int64_t first = team.league_rank() * w;
        double part = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, static_cast<int>(w)),
            [&](const int k, double& inner) { inner += double(x(first + k)) * y(first + k); },
            part);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { s += part; });
      })
};

/// y(i) = x(0) + ... + x(i - 1): an exclusive prefix sum (parallel_scan).
template <class X, class Y>
struct PrefixSum {
  X x;
  Y y;
  LIGHTNING_KERNEL(
      PrefixSum, "global i => read x[i], write y[i]", (x, y),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, double& sum, const bool final) const {
        if (final) y(i) = static_cast<float>(sum);
        sum += x(i);
      })
};

}  // namespace perf_kernels
