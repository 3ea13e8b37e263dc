// lightning::ArraySubview: what Kokkos::subview of a distributed array returns, in host code
// (over a lightning::View) and in GPU code (over a DeviceArray). Compiled by the host compiler
// and, as text, by NVRTC: plain C++, no library.
#pragma once

#include <cstdint>

#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning {

namespace subview_axes {

/// The number of axes a subview keeps: the bits of `kept` (bit a: axis a of its array).
LIGHTNING_INLINE constexpr int count(unsigned kept) {
  return kept == 0 ? 0 : static_cast<int>(kept & 1u) + count(kept >> 1);
}
/// The array's axis that is axis `k` of the subview (the k-th set bit of `kept`).
LIGHTNING_INLINE constexpr int array_axis(unsigned kept, int k, int from = 0) {
  return from >= 3             ? 0
         : (kept >> from & 1u) ? (k == 0 ? from : array_axis(kept, k - 1, from + 1))
                               : array_axis(kept, k, from + 1);
}
/// The axes of the array a subview of a subview keeps: of `outer`'s kept axes, those whose
/// bit is set in `inner` (bit k: the outer subview's axis k).
LIGHTNING_INLINE constexpr unsigned compose(unsigned outer, unsigned inner, int k = 0) {
  return k == count(outer)
             ? 0u
             : ((inner >> k & 1u) << array_axis(outer, k)) | compose(outer, inner, k + 1);
}

template <class T>
struct NonConst {
  using type = T;
};
template <class T>
struct NonConst<const T> {
  using type = T;
};

}  // namespace subview_axes

/// A box of a distributed array with some of its axes fixed at one index (Kokkos::subview
/// with an integer argument drops that axis; a range or ALL keeps it). `Array` is the array
/// as the code at hand sees it (lightning::View on the host, DeviceArray or
/// ReversedDeviceArray in GPU code); `Kept` says which of its axes (in its index order) the
/// subview keeps, in order. Element (i, ...) is element (lo + i, ...) of the array, so it
/// goes through the array's own access (its chunk, its layout, checked mode) and the kernel's
/// annotation says which elements of the array it touches. On the host the subview holds a
/// copy of the View (which keeps its array alive, as Kokkos' subviews do).
template <class Array, unsigned Kept>
struct ArraySubview {
  using array_type = Array;
  using value_type = typename Array::value_type;
  using const_value_type = const value_type;
  using non_const_value_type = typename subview_axes::NonConst<value_type>::type;
  static constexpr int array_rank = static_cast<int>(Array::rank);
  static constexpr int rank = subview_axes::count(Kept);
  static constexpr unsigned kept = Kept;
  static_assert(Kept < (1u << array_rank), "a subview keeps axes of its array");

  Array array;
  /// On every axis of the array (its index order): the first index, and one past the last
  /// (lo + 1 on an axis fixed at lo).
  int64_t lo[3] = {};
  int64_t hi[3] = {};

  template <class... I>
  LIGHTNING_INLINE value_type& operator()(I... i) const {
    static_assert(sizeof...(I) == rank, "a subview takes one index per axis it keeps");
    const int64_t in[sizeof...(I) + 1] = {static_cast<int64_t>(i)..., 0};
    int64_t at[3] = {lo[0], lo[1], lo[2]};
    if constexpr (rank >= 1) at[kAxis0] += in[0];
    if constexpr (rank >= 2) at[kAxis1] += in[1];
    if constexpr (rank >= 3) at[kAxis2] += in[2];
    if constexpr (array_rank == 1)
      return array(at[0]);
    else if constexpr (array_rank == 2)
      return array(at[0], at[1]);
    else
      return array(at[0], at[1], at[2]);
  }
  /// `s[i]`, as Kokkos allows for rank 1.
  LIGHTNING_INLINE value_type& operator[](int64_t i) const {
    static_assert(rank == 1, "s[i] indexes a rank-1 subview");
    return (*this)(i);
  }

  /// The extent of the subview's axis `r` (1 beyond its rank), as Kokkos::View::extent.
  LIGHTNING_INLINE uint64_t extent(int r) const {
    if (r >= rank) return 1;
    const int a = r == 0 ? kAxis0 : r == 1 ? kAxis1 : kAxis2;
    return static_cast<uint64_t>(hi[a] - lo[a]);
  }
  LIGHTNING_INLINE int extent_int(int r) const { return static_cast<int>(extent(r)); }
  LIGHTNING_INLINE uint64_t size() const {
    uint64_t n = 1;
    for (int r = 0; r < rank; ++r) n *= extent(r);
    return n;
  }
  LIGHTNING_INLINE uint64_t span() const { return size(); }
  /// The array's label (host code, where the array is a lightning::View).
  template <class A = Array>
  auto label() const -> decltype(static_cast<const A&>(array).label()) {
    return array.label();
  }

 private:
  // The array's axes that are the subview's axes 0, 1 and 2.
  static constexpr int kAxis0 = subview_axes::array_axis(Kept, 0);
  static constexpr int kAxis1 = subview_axes::array_axis(Kept, 1);
  static constexpr int kAxis2 = subview_axes::array_axis(Kept, 2);
};

/// The subview of `array` keeping the axes `Kept` of the box [lo, hi) (the array's index
/// order; hi = lo + 1 on the other axes). The caller has checked the bounds.
template <unsigned Kept, class Array>
LIGHTNING_INLINE ArraySubview<Array, Kept> make_array_subview(const Array& array, const int64_t* lo,
                                                              const int64_t* hi) {
  ArraySubview<Array, Kept> s{array};
  for (int a = 0; a < ArraySubview<Array, Kept>::array_rank; ++a) {
    s.lo[a] = lo[a];
    s.hi[a] = hi[a];
  }
  return s;
}

/// The subview of `outer` keeping its axes `Inner` of the box [lo, hi) (`outer`'s index
/// order and coordinates), as a subview of `outer`'s array.
template <unsigned Inner, class Array, unsigned Outer>
LIGHTNING_INLINE ArraySubview<Array, subview_axes::compose(Outer, Inner)> compose_subviews(
    const ArraySubview<Array, Outer>& outer, const int64_t* lo, const int64_t* hi) {
  ArraySubview<Array, subview_axes::compose(Outer, Inner)> s{outer.array};
  for (int a = 0; a < ArraySubview<Array, Outer>::array_rank; ++a) {
    s.lo[a] = outer.lo[a];
    s.hi[a] = outer.hi[a];
  }
  for (int k = 0; k < ArraySubview<Array, Outer>::rank; ++k) {
    const int a = subview_axes::array_axis(Outer, k);
    s.hi[a] = outer.lo[a] + hi[k];
    s.lo[a] = outer.lo[a] + lo[k];
  }
  return s;
}

}  // namespace lightning
