// lightning::ViewRange: a box of a lightning::View, made by Kokkos::subview with
// Kokkos::pair / std::pair ranges and Kokkos::ALL. It is a source or a target of
// Kokkos::deep_copy; kernels take whole Views (their annotation says what they touch).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "lightning_kokkos/view.hpp"

namespace lightning {

/// The box [lo, hi) of a View (global indices), sharing its array.
template <class DataType, class Layout = Kokkos::LayoutRight>
class ViewRange {
 public:
  using view_type = View<DataType, Layout>;
  using value_type = typename view_type::value_type;
  using non_const_value_type = typename view_type::non_const_value_type;
  using const_value_type = typename view_type::const_value_type;
  using non_const_data_type = typename view_type::non_const_data_type;
  using HostMirror = typename view_type::HostMirror;
  static constexpr std::size_t rank = view_type::rank;

  /// Throws Error(kInvalidArgument) naming the View and the axis unless
  /// 0 <= lo <= hi <= extent on every axis.
  ViewRange(const view_type& view, const int64_t* lo, const int64_t* hi) : view_(view) {
    for (std::size_t a = 0; a < rank; ++a) {
      lo_[a] = lo[a];
      hi_[a] = hi[a];
    }
    int64_t extent[3] = {};
    for (std::size_t a = 0; a < rank; ++a) extent[a] = static_cast<int64_t>(view_.extent(a));
    detail::check_range(view_.label(), static_cast<int>(rank), lo_, hi_, extent);
  }

  const view_type& view() const { return view_; }
  std::string label() const { return view_.label(); }
  std::size_t extent(std::size_t r) const {
    return r < rank ? static_cast<std::size_t>(hi_[r] - lo_[r]) : 1;
  }
  std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t a = 0; a < rank; ++a) n *= extent(a);
    return n;
  }
  /// First index of the box on every axis, and one past the last (in the View's index order).
  const int64_t* impl_lo() const { return lo_; }
  const int64_t* impl_hi() const { return hi_; }

 private:
  view_type view_;
  int64_t lo_[3] = {};
  int64_t hi_[3] = {};
};

namespace detail {

template <class T>
struct IsPairLike : std::false_type {};
template <class I>
struct IsPairLike<Kokkos::pair<I, I>> : std::is_integral<I> {};
template <class I>
struct IsPairLike<std::pair<I, I>> : std::is_integral<I> {};

/// One subview argument as [lo, hi) of an axis of `extent` elements.
template <class Arg>
void range_of(const Arg& arg, int64_t extent, int64_t& lo, int64_t& hi) {
  if constexpr (std::is_same_v<std::decay_t<Arg>, std::decay_t<decltype(Kokkos::ALL)>>) {
    lo = 0;
    hi = extent;
  } else {
    static_assert(IsPairLike<std::decay_t<Arg>>::value,
                  "Kokkos::subview of a lightning::View takes Kokkos::pair / std::pair ranges "
                  "or Kokkos::ALL, one per axis (an index i is the range {i, i + 1})");
    lo = static_cast<int64_t>(arg.first);
    hi = static_cast<int64_t>(arg.second);
  }
}

}  // namespace detail
}  // namespace lightning

namespace Kokkos {

/// The box of `view` the arguments select, one per axis: Kokkos::pair / std::pair (half-open,
/// as in Kokkos) or Kokkos::ALL. Throws Error(kInvalidArgument) for a range outside the View.
template <class D, class L, class... Args>
lightning::ViewRange<D, L> subview(const lightning::View<D, L>& view, const Args&... args) {
  static_assert(sizeof...(Args) == lightning::View<D, L>::rank,
                "Kokkos::subview of a lightning::View: one range per axis");
  int64_t lo[3] = {}, hi[3] = {};
  int axis = 0;  // the comma fold runs left to right
  ((lightning::detail::range_of(args, static_cast<int64_t>(view.extent(axis)), lo[axis], hi[axis]),
    ++axis),
   ...);
  return lightning::ViewRange<D, L>(view, lo, hi);
}

}  // namespace Kokkos
