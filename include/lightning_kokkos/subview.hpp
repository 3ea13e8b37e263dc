// Kokkos::subview of a lightning::View, or of a subview of one: a lightning::ArraySubview
// (device/array_subview.hpp). It works inside kernels on lightning::Distributed (GPU code
// gets the same from device/kokkos_core.hpp), and as a source or target of Kokkos::deep_copy.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "lightning_kokkos/device/array_subview.hpp"
#include "lightning_kokkos/view.hpp"

namespace lightning {

template <class T>
struct IsViewSubview : std::false_type {};
template <class D, class L, unsigned K>
struct IsViewSubview<ArraySubview<View<D, L>, K>> : std::true_type {};
/// Whether T is a subview of a lightning::View.
template <class T>
inline constexpr bool is_view_subview_v = IsViewSubview<std::remove_cv_t<T>>::value;

namespace detail {

template <class T>
struct IsPairLike : std::false_type {};
template <class I, class J>
struct IsPairLike<Kokkos::pair<I, J>>
    : std::bool_constant<std::is_integral_v<I> && std::is_integral_v<J>> {};
template <class I, class J>
struct IsPairLike<std::pair<I, J>>
    : std::bool_constant<std::is_integral_v<I> && std::is_integral_v<J>> {};

/// What one Kokkos::subview argument does to its axis: an integer fixes it (the subview
/// drops the axis), a half-open Kokkos::pair / std::pair or Kokkos::ALL keeps a range of it.
template <class Arg, class A = std::decay_t<Arg>>
inline constexpr bool is_subview_index_v = std::is_integral_v<A>;
template <class Arg, class A = std::decay_t<Arg>>
inline constexpr bool is_subview_range_v =
    IsPairLike<A>::value || std::is_same_v<A, std::decay_t<decltype(Kokkos::ALL)>>;

/// The axes arguments `Args` keep (bit a: argument a is a range).
template <class... Args>
constexpr unsigned kept_axes() {
  static_assert(((is_subview_index_v<Args> || is_subview_range_v<Args>)&&...),
                "Kokkos::subview of a lightning::View takes, per axis, an integer index (the "
                "subview drops that axis), a half-open Kokkos::pair / std::pair range, or "
                "Kokkos::ALL");
  unsigned kept = 0;
  int axis = 0;
  ((kept |= (is_subview_range_v<Args> ? 1u : 0u) << axis++), ...);
  return kept;
}

/// One argument's box [lo, hi) on an axis of `extent` elements.
template <class Arg>
void bounds_of(const Arg& arg, int64_t extent, int64_t& lo, int64_t& hi) {
  if constexpr (is_subview_index_v<Arg>) {
    lo = static_cast<int64_t>(arg);
    hi = lo + 1;
  } else if constexpr (IsPairLike<std::decay_t<Arg>>::value) {
    lo = static_cast<int64_t>(arg.first);
    hi = static_cast<int64_t>(arg.second);
  } else {
    lo = 0;
    hi = extent;
  }
}

/// Throws Error(kInvalidArgument) naming the View (`control`'s label, where it is this
/// process's), the axis and its extent unless 0 <= lo <= hi <= extent on every axis (the
/// first `rank` of `extent`; an index i is [i, i + 1), bit a of `kept` clear).
void check_subview(const ArrayControl* control, int rank, unsigned kept, const int64_t* lo,
                   const int64_t* hi, const int64_t* extent);

/// The boxes `args` select of `s` (a View or a subview), one argument per axis, checked.
template <class S, class... Args>
void subview_bounds(const S& s, const ArrayControl* control, int64_t* lo, int64_t* hi,
                    const Args&... args) {
  int64_t extent[3] = {};
  int axis = 0;  // the comma fold runs left to right
  ((extent[axis] = static_cast<int64_t>(s.extent(axis)),
    bounds_of(args, extent[axis], lo[axis], hi[axis]), ++axis),
   ...);
  for (std::size_t a = 0; a < sizeof...(Args); ++a)  // inline: subviews are taken in kernels
    if (lo[a] < 0 || lo[a] > hi[a] || hi[a] > extent[a])
      check_subview(control, static_cast<int>(sizeof...(Args)), kept_axes<Args...>(), lo, hi,
                    extent);
}

}  // namespace detail
}  // namespace lightning

namespace Kokkos {

/// The subview of `view` the arguments select, one per axis: an integer index (the axis is
/// dropped, as in Kokkos), a half-open Kokkos::pair / std::pair range, or Kokkos::ALL. Works
/// on the host (for deep_copy) and inside kernels; throws Error(kInvalidArgument) for an
/// index or range outside the View.
template <class D, class L, class... Args>
lightning::ArraySubview<lightning::View<D, L>, lightning::detail::kept_axes<Args...>()> subview(
    const lightning::View<D, L>& view, const Args&... args) {
  static_assert(sizeof...(Args) == lightning::View<D, L>::rank,
                "Kokkos::subview of a lightning::View: one argument per axis");
  int64_t lo[3] = {}, hi[3] = {};
  lightning::detail::subview_bounds(view, view.impl_control(), lo, hi, args...);
  return lightning::make_array_subview<lightning::detail::kept_axes<Args...>()>(view, lo, hi);
}

/// A subview of a subview: the arguments select, per axis the subview keeps, as above.
template <class D, class L, unsigned K, class... Args>
lightning::ArraySubview<lightning::View<D, L>, lightning::subview_axes::compose(
                                                   K, lightning::detail::kept_axes<Args...>())>
subview(const lightning::ArraySubview<lightning::View<D, L>, K>& s, const Args&... args) {
  static_assert(sizeof...(Args) == lightning::ArraySubview<lightning::View<D, L>, K>::rank,
                "Kokkos::subview of a subview: one argument per axis it keeps");
  int64_t lo[3] = {}, hi[3] = {};
  lightning::detail::subview_bounds(s, s.array.impl_control(), lo, hi, args...);
  return lightning::compose_subviews<lightning::detail::kept_axes<Args...>()>(s, lo, hi);
}

}  // namespace Kokkos
