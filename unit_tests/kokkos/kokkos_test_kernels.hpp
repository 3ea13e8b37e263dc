// Functors run both by Kokkos on the host (with Kokkos::Views) and by lightning::Distributed
// (with lightning::Views): one body, two back ends.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"

namespace lk_test {

/// Whether the tests run on GPU devices (LIGHTNING_DEVICES=cuda...).
inline bool on_gpus() {
  const char* devices = std::getenv("LIGHTNING_DEVICES");
  return devices && std::string(devices).rfind("cuda", 0) == 0;
}

/// The two spaces every test compares, and their View types.
using Host = Kokkos::DefaultHostExecutionSpace;
using Exec = lightning::Distributed;
template <class D>
using KView = Kokkos::View<D, Kokkos::LayoutRight, Kokkos::HostSpace>;
template <class D>
using LView = lightning::View<D>;

/// The lightning::Error that `launch` (and the fence after it) throws, or "" when none.
template <class F>
std::string error_of(F&& launch) {
  try {
    launch();
    Kokkos::fence();
  } catch (const lightning::Error& e) {
    return e.what();
  }
  return "";
}

/// A uniform integer in [lo, hi].
inline int uniform(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

/// A work distribution of superblocks of about `n / parts` indices: blocks, or cyclic ones
/// (superblocks of one device interleaved with the others').
inline Exec random_space(std::mt19937& rng, int n) {
  const int size = std::max(1, n / uniform(rng, 1, 9));
  return uniform(rng, 0, 1) ? Exec(lightning::work::block(size))
                            : Exec(lightning::work::cyclic(std::max(1, size / 3)));
}

/// A host copy of a distributed View or subview (a Kokkos::View of its rank and layout).
template <class V>
auto to_host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

/// A distributed copy, of distribution `dist`, of a host View of any rank and layout.
template <class D, class L>
lightning::View<D, L> distributed_copy(const Kokkos::View<D, L, Kokkos::HostSpace>& h,
                                       const lightning::DataDistribution& dist) {
  lightning::View<D, L> v;
  if constexpr (lightning::View<D, L>::rank == 1)
    v = lightning::View<D, L>(h.label(), h.extent(0), dist);
  else if constexpr (lightning::View<D, L>::rank == 2)
    v = lightning::View<D, L>(h.label(), h.extent(0), h.extent(1), dist);
  else
    v = lightning::View<D, L>(h.label(), h.extent(0), h.extent(1), h.extent(2), dist);
  Kokkos::deep_copy(v, h);
  return v;
}

template <class X, class Y>
struct Saxpy {
  X x;
  Y y;
  float a = 0;
  LIGHTNING_KERNEL(
      Saxpy, "global i => read x[i], readwrite y[i]", (x, y, a),
      KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = a * x(i) + y(i); })
};

template <class In, class Out>
struct Stencil {
  In in;
  Out out;
  LIGHTNING_KERNEL(
      Stencil, "global i => read in[i-1:i+1], write out[i]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int i)
          const { out(i) = (in(i - 1) + in(i) + in(i + 1)) / 3; })
};

/// A conditional write, as Kokkos code has them: y(i) is written only where x(i) > 0, under a
/// `write` rule that names every y(i); the others keep their values.
template <class X, class Y>
struct MaskedCopy {
  X x;
  Y y;
  LIGHTNING_KERNEL(
      MaskedCopy, "global i => read x[i], write y[i]", (x, y),
      KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
        if (x(i) > 0) y(i) = x(i);
      })
};

/// Rank-2 arrays and an integer scalar named by the annotation.
template <class M, class S>
struct RowSum {
  M m;
  S s;
  int64_t cols = 0;
  double scale = 1;
  LIGHTNING_KERNEL(
      RowSum, "global i => read m[i, 0:cols-1], write s[i]", (m, s, cols, scale),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
        double t = 0;
        for (int64_t j = 0; j < cols; ++j) t += m(i, j);
        s(i) = scale * t;
      })
};

/// Rank-3 arrays.
template <class In, class Out>
struct Twice3 {
  In in;
  Out out;
  LIGHTNING_KERNEL(
      Twice3, "global i => read in[i, :, :], write out[i, :, :]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
        for (int64_t j = 0; j < static_cast<int64_t>(in.extent(1)); ++j)
          for (int64_t k = 0; k < static_cast<int64_t>(in.extent(2)); ++k)
            out(i, j, k) = 2 * in(i, j, k);
      })
};

/// sum of x(i) * y(i): parallel_reduce, with or without a reducer.
template <class X, class Y>
struct Dot {
  X x;
  Y y;
  LIGHTNING_KERNEL(
      Dot, "global i => read x[i], read y[i]", (x, y),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, double& sum)
          const { sum += x(i) * y(i); })
};

/// The largest (or, with Kokkos::Min, smallest) element: the body joins like the reducer.
/// (Which one is a listed member, not a template argument: GPU code sees listed members only.)
template <class X>
struct Extreme {
  X x;
  int64_t largest = 1;
  LIGHTNING_KERNEL(
      Extreme, "global i => read x[i]", (x, largest),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, int64_t& v) const {
        if (largest ? x(i) > v : x(i) < v) v = x(i);
      })
};

/// c(i, j) = a(i, j) * s + b(j, i): rank-2 MDRange with a transposed read.
template <class A, class C>
struct ScaleAddTransposed {
  A a;
  A b;
  C c;
  float s = 0;
  LIGHTNING_KERNEL(
      ScaleAddTransposed, "global [i, j] => read a[i, j], read b[j, i], write c[i, j]",
      (a, b, c, s), KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const {
        c(i, j) = a(i, j) * s + b(j, i);
      })
};

/// out(i, j, k) = in(i, j, k) + i - j * k over a rank-3 MDRange, and the sum of all of it.
template <class In, class Out>
struct Rank3 {
  In in;
  Out out;
  LIGHTNING_KERNEL(
      Rank3, "global [i, j, k] => read in[i, j, k], write out[i, j, k]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, const int k)
          const { out(i, j, k) = in(i, j, k) + i - j * k; })
};
template <class In>
struct Rank3Sum {
  In in;
  LIGHTNING_KERNEL(
      Rank3Sum, "global [i, j, k] => read in[i, j, k]", (in),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, const int k, int64_t& sum)
          const { sum += in(i, j, k); })
};

/// Its annotation names 'y', which is not among its members.
struct Misnamed {
  lightning::View<float*> x;
  LIGHTNING_KERNEL(
      Misnamed, "global i => write y[i]", (x), void operator()(const int64_t i) const { x(i) = 0; })
};

/// The product of x(i), as a Kokkos functor reduction: init sets 1, join multiplies.
template <class X>
struct Product {
  using value_type = double;
  X x;
  LIGHTNING_KERNEL(
      Product, "global i => read x[i]", (x),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, double& p) const { p *= x(i); })
  KOKKOS_INLINE_FUNCTION static void init(double& p) { p = 1; }
  KOKKOS_INLINE_FUNCTION static void join(double& dst, const double& src) { dst *= src; }
};

/// The smallest x(i) and its first index, a struct value: join keeps the smaller (the lower
/// index on ties); final turns the index into a count from 1.
struct MinLoc {
  double value;
  int64_t index;
};
template <class X>
struct FindMin {
  using value_type = MinLoc;
  X x;
  LIGHTNING_KERNEL(
      FindMin, "global i => read x[i]", (x),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, MinLoc& m) const {
        if (x(i) < m.value || (x(i) == m.value && i < m.index)) m = {x(i), i};
      })
  KOKKOS_INLINE_FUNCTION static void init(MinLoc& m) { m = {1e300, INT64_MAX}; }
  KOKKOS_INLINE_FUNCTION static void join(MinLoc& dst, const MinLoc& src) {
    if (src.value < dst.value || (src.value == dst.value && src.index < dst.index)) dst = src;
  }
  KOKKOS_INLINE_FUNCTION static void final(MinLoc& m) { m.index += 1; }
};

/// Fails on one element.
struct Cursed {
  lightning::View<float*> x;
  int64_t bad = -1;
  LIGHTNING_KERNEL(
      Cursed, "global i => write x[i]", (x), void operator()(const int64_t i) const {
        if (i == bad) throw std::runtime_error("element is cursed");
        x(i) = 1;
      })
};

/// Reads a View it does not list: its handle is never pointed at data.
struct Unlisted {
  lightning::View<float*> x;
  lightning::View<float*> y;
  LIGHTNING_KERNEL(
      Unlisted, "global i => write x[i]", (x),
      void operator()(const int64_t i) const { x(i) = y(i); })
};

/// Complex numbers as CUDA's float2: z(i) = x(i) * y(i) + c, the vector type's lanes used
/// by name, on host devices and (through NVRTC) on GPUs.
template <class X, class Y, class Z>
struct ComplexMultiply {
  X x;
  Y y;
  Z z;
  float c = 0;
  LIGHTNING_KERNEL(
      ComplexMultiply, "global i => read x[i], read y[i], write z[i]", (x, y, z, c),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
        const lightning::float2 a = x(i);
        const lightning::float2 b = y(i);
        z(i) = lightning::float2{a.x * b.x - a.y * b.y + c, a.x * b.y + a.y * b.x};
      })
};

}  // namespace lk_test

namespace lk_test {

/// Work tags: one at namespace scope (spelt unqualified by the functor), one in a nested
/// namespace (spelt qualified), the others nested in the functors.
struct FillTag {};
namespace tags {
struct Smooth {};
}  // namespace tags

/// One functor, several phases picked by work tags, each with its own annotation: fill x,
/// smooth x into y (over 1..n-2), a weighted sum of y, an exclusive prefix sum of x into y,
/// and an untagged operator (y = 2x) under the kernel's own annotation.
template <class X, class Y>
struct Phases {
  struct WeightedSum {};
  struct Prefix {};
  X x;
  Y y;
  int64_t shift = 0;
  LIGHTNING_WORK_TAG(FillTag, "global i => write x[i]")
  LIGHTNING_WORK_TAG(tags::Smooth, "global i => read x[i-1:i+1], write y[i]")
  LIGHTNING_WORK_TAG(WeightedSum, "global i => read y[i]")
  LIGHTNING_WORK_TAG(Prefix, "global i => read x[i], write y[i]")
  LIGHTNING_KERNEL(
      Phases, "global i => read x[i], write y[i]", (x, y, shift),
      KOKKOS_INLINE_FUNCTION void operator()(const FillTag, const int i)
          const { x(i) = (i * 7 + shift) % 11 - 5; } KOKKOS_INLINE_FUNCTION void
          operator()(const tags::Smooth&, const int i)
              const { y(i) = x(i - 1) + 2 * x(i) + x(i + 1); } KOKKOS_INLINE_FUNCTION void
              operator()(WeightedSum, const int i, int64_t& sum)
                  const { sum += y(i) * (i % 3 + 1); } KOKKOS_INLINE_FUNCTION void
                  operator()(Prefix, const int i, int64_t& update, const bool final) const {
                    if (final) y(i) = update;
                    update += x(i);
                  } KOKKOS_INLINE_FUNCTION void
                  operator()(const int i) const { y(i) = 2 * x(i); })
};

/// Tagged operators only, over two axes: a parallel_for under the kernel's annotation (its
/// tag has no LIGHTNING_WORK_TAG) and a reduction under its own.
template <class A>
struct GridPhases {
  struct Mark {};
  struct CountAbove {};
  A a;
  int64_t floor = 0;
  LIGHTNING_WORK_TAG(CountAbove, "global [i, j] => read a[i, j]")
  LIGHTNING_KERNEL(
      GridPhases, "global [i, j] => write a[i, j]", (a, floor),
      KOKKOS_INLINE_FUNCTION void operator()(Mark, const int i, const int j)
          const { a(i, j) = (31 * i + 17 * j) % 23; } KOKKOS_INLINE_FUNCTION void
          operator()(CountAbove, const int i, const int j, int64_t& count)
              const { count += a(i, j) > floor ? 1 : 0; })
};

}  // namespace lk_test

namespace lk_test {

/// Subviews inside kernels, as Kokkos code takes them: y(i) = row i of m dotted with x, the
/// row an integer-index subview and x a range one; the annotation names the arrays'
/// elements, as ever.
template <class M, class X, class Y>
struct RowDot {
  M m;
  X x;
  Y y;
  int64_t cols = 0;
  LIGHTNING_KERNEL(
      RowDot, "global i => read m[i, 0:cols-1], read x[0:cols-1], write y[i]", (m, x, y, cols),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
        const auto row = Kokkos::subview(m, i, Kokkos::ALL);
        const auto head = Kokkos::subview(x, Kokkos::make_pair(int64_t{0}, cols));
        double sum = 0;
        for (int64_t j = 0; j < static_cast<int64_t>(row.extent(0)); ++j) sum += row(j) * head(j);
        y(i) = sum;
      })
};

/// A window of three elements (a range subview at an offset), through a copy of the View
/// made inside the kernel: out(i) = in(i-1) - 2 in(i) + 3 in(i+1).
template <class In, class Out>
struct Window {
  In in;
  Out out;
  LIGHTNING_KERNEL(
      Window, "global i => read in[i-1:i+1], write out[i]", (in, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
        const auto source = in;  // a View copied inside a kernel: no owner
        const auto w = Kokkos::subview(source, Kokkos::make_pair(i - 1, i + 2));
        out(i) = w(0) - 2 * w(1) + 3 * w.extent_int(0) * w(2) / 3;
      })
};

/// Rank 3 to 2 to 1 to 0: for plane i of t, out(i, j) = the sum of column j of the plane
/// (a subview of a subview) plus its first element (a rank-0 subview), written through a
/// subview of out.
template <class T, class Out>
struct PlaneColumns {
  T t;
  Out out;
  LIGHTNING_KERNEL(
      PlaneColumns, "global i => read t[i, :, :], write out[i, :]", (t, out),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
        const auto plane = Kokkos::subview(t, i, Kokkos::ALL, Kokkos::ALL);
        const auto target = Kokkos::subview(out, i, Kokkos::ALL);
        for (int64_t j = 0; j < static_cast<int64_t>(plane.extent(1)); ++j) {
          const auto column = Kokkos::subview(plane, Kokkos::ALL, j);
          int64_t sum = Kokkos::subview(t, i, 0, j)();
          for (int64_t r = 0; r < static_cast<int64_t>(column.extent(0)); ++r) sum += column(r);
          target(j) = sum;
        }
      })
};

/// Column sums of a column-major (LayoutLeft) matrix, each column a subview:
/// s(j) = sum of rows [first, last) of column j.
template <class M, class S>
struct ColumnSums {
  M m;
  S s;
  int64_t first = 0, last = 0;
  LIGHTNING_KERNEL(
      ColumnSums, "global j => read m[first:last-1, j], write s[j]", (m, s, first, last),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t j) const {
        const auto column = Kokkos::subview(m, Kokkos::make_pair(first, last), j);
        float sum = 0;
        for (int64_t r = 0; r < static_cast<int64_t>(column.extent(0)); ++r) sum += column(r);
        s(j) = sum;
      })
};

/// A subview with an index past the end of its View, taken inside a kernel (the runtime stops
/// the launch with the subview's error).
template <class X>
struct SubviewPastTheEnd {
  X x;
  LIGHTNING_KERNEL(
      SubviewPastTheEnd, "global i => write x[i]", (x),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
        Kokkos::subview(x, Kokkos::make_pair(i, i + 1))(0) = 1;
        if (i == 0) Kokkos::subview(x, static_cast<int64_t>(x.extent(0)))() = 2;
      })
};

}  // namespace lk_test

namespace lk_test {

/// A reduction with its own value type, init and join written inside LIGHTNING_KERNEL, so
/// that GPU code has them too: the lowest x(i) and the highest above a floor the functor
/// holds (init reads it).
template <class X>
struct Spread {
  X x;
  double floor = 0;
  LIGHTNING_KERNEL(
      Spread, "global i => read x[i]", (x, floor),
      struct value_type {
        double low;
        double high;
      };
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, value_type& v) const {
        if (x(i) < v.low) v.low = x(i);
        if (x(i) > v.high) v.high = x(i);
      } KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
        v.low = 1e300;
        v.high = floor;
      } KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const {
        if (src.low < dst.low) dst.low = src.low;
        if (src.high > dst.high) dst.high = src.high;
      })
};

}  // namespace lk_test

namespace lk_test {

/// A histogram of x over value_count bins of width `width`: an array reduction (value_type
/// T[]) with Kokkos' default init and join (zeros, element-wise +) and a final, which runs on
/// the host, turning the counts into per-mille shares.
template <class X>
struct Histogram {
  using value_type = int64_t[];
  X x;
  int64_t width = 1;
  int64_t total = 1;
  unsigned value_count = 0;
  LIGHTNING_KERNEL(
      Histogram, "global i => read x[i]", (x, width, total, value_count),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, int64_t* bins)
          const { bins[x(i) / width] += 1; })
  KOKKOS_INLINE_FUNCTION void final(int64_t* bins) const {
    for (unsigned b = 0; b < value_count; ++b) bins[b] = bins[b] * 1000 / total;
  }
};

/// The smallest and largest element of each column of x over an MD range: an array reduction
/// of value_count = 2 × columns elements (v[2c] the minimum, v[2c + 1] the maximum of column
/// c) whose init (reading value_count) and join are inside LIGHTNING_KERNEL, so that GPU code
/// folds with them too.
template <class X>
struct ColumnRanges {
  using value_type = double[];
  X x;
  int value_count = 0;
  LIGHTNING_KERNEL(
      ColumnRanges, "global [i, j] => read x[i, j]", (x, value_count),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, value_type v) const {
        if (x(i, j) < v[2 * j]) v[2 * j] = x(i, j);
        if (x(i, j) > v[2 * j + 1]) v[2 * j + 1] = x(i, j);
      } KOKKOS_INLINE_FUNCTION void init(double* v) const {
        for (int k = 0; k < value_count; k += 2) {
          v[k] = 1e300;
          v[k + 1] = -1e300;
        }
      } KOKKOS_INLINE_FUNCTION void join(double* dst, const double* src) const {
        for (int k = 0; k < value_count; k += 2) {
          if (src[k] < dst[k]) dst[k] = src[k];
          if (src[k + 1] > dst[k + 1]) dst[k + 1] = src[k + 1];
        }
      })
};

/// The product of every a(i, j) and how many are negative, over an MD range with two
/// reducers (Prod and a plain scalar, summed) in one parallel_reduce.
template <class A>
struct SignAndNegatives {
  A a;
  LIGHTNING_KERNEL(
      SignAndNegatives, "global [i, j] => read a[i, j]", (a),
      KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j, double& product,
                                             int& negatives) const {
        product *= a(i, j);
        negatives += a(i, j) < 0;
      })
};

}  // namespace lk_test
