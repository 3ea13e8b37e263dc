// Kokkos::deep_copy between two lightning::Views, or subviews of them, of any two
// distributions and layouts: a copy kernel over the destination's box, so the planner moves
// each chunk as its distributions require (local copies, transfers between devices and
// ranks), on host devices and GPUs alike. Kokkos::resize and Kokkos::realloc of a
// lightning::View build on it.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "lightning_kokkos/deep_copy.hpp"
#include "lightning_kokkos/kernel.hpp"
#include "lightning_kokkos/parallel.hpp"
#include "lightning_kokkos/subview.hpp"
#include "lightning_kokkos/view.hpp"

namespace lightning::detail {

/// dst(i...) = src(i... + shift...) over the launch: the copy kernels of deep_copy between
/// distributed Views, one per rank.
template <class Dst, class Src>
struct CopyRank1 {
  Dst dst;
  Src src;
  int64_t shift0 = 0;
  LIGHTNING_KERNEL(
      CopyRank1, "global i => read src[i + shift0], write dst[i]", (dst, src, shift0),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const { dst(i) = src(i + shift0); })
};
template <class Dst, class Src>
struct CopyRank2 {
  Dst dst;
  Src src;
  int64_t shift0 = 0, shift1 = 0;
  LIGHTNING_KERNEL(
      CopyRank2, "global [i, j] => read src[i + shift0, j + shift1], write dst[i, j]",
      (dst, src, shift0, shift1),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, const int64_t j)
          const { dst(i, j) = src(i + shift0, j + shift1); })
};
template <class Dst, class Src>
struct CopyRank3 {
  Dst dst;
  Src src;
  int64_t shift0 = 0, shift1 = 0, shift2 = 0;
  LIGHTNING_KERNEL(
      CopyRank3,
      "global [i, j, k] => read src[i + shift0, j + shift1, k + shift2], write dst[i, j, k]",
      (dst, src, shift0, shift1, shift2),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, const int64_t j, const int64_t k)
          const { dst(i, j, k) = src(i + shift0, j + shift1, k + shift2); })
};

/// A whole View or a subview as its View and its box [lo, hi), in the View's index order.
template <class V>
struct IndexBox {
  V view;
  int64_t lo[3] = {};
  int64_t hi[3] = {};
};
template <class D, class L>
IndexBox<View<D, L>> index_box(const View<D, L>& v) {
  IndexBox<View<D, L>> b{v};
  for (std::size_t a = 0; a < View<D, L>::rank; ++a) b.hi[a] = static_cast<int64_t>(v.extent(a));
  return b;
}
template <class D, class L, unsigned K>
IndexBox<View<D, L>> index_box(const ArraySubview<View<D, L>, K>& s) {
  IndexBox<View<D, L>> b{s.array};
  for (std::size_t a = 0; a < View<D, L>::rank; ++a) {
    b.lo[a] = s.lo[a];
    b.hi[a] = s.hi[a];
  }
  return b;
}

/// Whether two boxes of arrays of one rank have the same extents on every axis (a subview's
/// dropped axes included), so that a copy kernel with a shift maps one onto the other.
template <class DstBox, class SrcBox>
bool same_box_shape(const DstBox& dst, const SrcBox& src) {
  for (std::size_t a = 0; a < decltype(dst.view)::rank; ++a)
    if (dst.hi[a] - dst.lo[a] != src.hi[a] - src.lo[a]) return false;
  return true;
}

/// Copies `src` into `dst` (Views or subviews of lightning::Views) of the same extents,
/// asynchronously, as a launch labelled "deep_copy(dst <- src)".
template <class DstBox, class SrcBox>
void copy_distributed(const DstBox& dst_box, const SrcBox& src_box) {
  using Dst = decltype(dst_box.view);
  using Src = decltype(src_box.view);
  constexpr int rank = static_cast<int>(Dst::rank);
  const Dst& dst = dst_box.view;
  const Src& src = src_box.view;
  // A box onto itself (deep_copy(v, v)) is nothing to do, as in Kokkos.
  if (dst.impl_control() == src.impl_control() &&
      std::equal(dst_box.lo, dst_box.lo + rank, src_box.lo) &&
      std::equal(dst_box.hi, dst_box.hi + rank, src_box.hi))
    return;
  check_distributed_copy(dst.label(), src.label(), dst.impl_control() == src.impl_control(), rank,
                         dst_box.lo, dst_box.hi, src_box.lo, src_box.hi);
  int64_t volume = 1;
  for (int a = 0; a < rank; ++a) volume *= dst_box.hi[a] - dst_box.lo[a];
  if (volume == 0) return;
  const std::string label = "deep_copy(" + dst.label() + " <- " + src.label() + ")";
  const auto shift = [&](int a) { return src_box.lo[a] - dst_box.lo[a]; };
  // The launch covers the destination's box, so without a work distribution it follows the
  // destination's chunks.
  if constexpr (rank == 1) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<Distributed>(dst_box.lo[0], dst_box.hi[0]),
                         CopyRank1<Dst, Src>{dst, src, shift(0)});
  } else if constexpr (rank == 2) {
    Kokkos::parallel_for(label,
                         Kokkos::MDRangePolicy<Distributed, Kokkos::Rank<2>>(
                             {dst_box.lo[0], dst_box.lo[1]}, {dst_box.hi[0], dst_box.hi[1]}),
                         CopyRank2<Dst, Src>{dst, src, shift(0), shift(1)});
  } else {
    Kokkos::parallel_for(label,
                         Kokkos::MDRangePolicy<Distributed, Kokkos::Rank<3>>(
                             {dst_box.lo[0], dst_box.lo[1], dst_box.lo[2]},
                             {dst_box.hi[0], dst_box.hi[1], dst_box.hi[2]}),
                         CopyRank3<Dst, Src>{dst, src, shift(0), shift(1), shift(2)});
  }
}

/// A new View like `v` (label, layout, distribution) of extents `n` (in its index order);
/// for an unallocated `v`, a View of the default distribution.
template <class D, class L, class... N>
View<D, L> view_like(const View<D, L>& v, N... n) {
  static_assert(sizeof...(N) == View<D, L>::rank,
                "Kokkos::resize / Kokkos::realloc of a lightning::View: give one extent per "
                "axis of the View");
  if (!v.is_allocated()) return View<D, L>(v.label(), static_cast<std::size_t>(n)...);
  int64_t extent[3] = {static_cast<int64_t>(n)...};
  if constexpr (View<D, L>::impl_axes_reversed) std::reverse(extent, extent + View<D, L>::rank);
  return View<D, L>::impl_adopt(create_array_like(v.impl_control(), extent));
}

/// What Kokkos::resize and Kokkos::realloc do to a lightning::View: a new array like the old
/// one, value-initialised unless `initialize` is false, keeping the elements both have when
/// `keep`.
template <class D, class L, class... N>
void remake(View<D, L>& v, bool keep, bool initialize, N... n) {
  using V = View<D, L>;
  static_assert(!std::is_const_v<typename V::value_type>,
                "Kokkos::resize / Kokkos::realloc: the View's elements must not be const");
  V made = view_like(v, n...);
  if (initialize) Kokkos::deep_copy(made, typename V::non_const_value_type{});
  if (keep && v.is_allocated()) {
    IndexBox<V> to{made}, from{v};
    const std::size_t extent[3] = {static_cast<std::size_t>(n)...};
    for (std::size_t a = 0; a < V::rank; ++a)
      to.hi[a] = from.hi[a] = static_cast<int64_t>(std::min(extent[a], v.extent(a)));
    copy_distributed(to, from);
  }
  v = made;
}

}  // namespace lightning::detail

namespace Kokkos {

/// Copies a lightning::View (or a subview of one) into another of the same extents and
/// element type, whatever their distributions and layouts: asynchronously, as a kernel
/// launch that later launches and reads are ordered after, where both are boxes of the same
/// shape in their arrays (boxes of one array must then not overlap). Otherwise (subviews
/// that keep different axes, or of arrays of different ranks: a row into a rank-1 View)
/// through a host copy of `src`, returning when `dst` is written.
template <class Dst, class Src,
          std::enable_if_t<lightning::detail::is_distributed_v<Dst> &&
                               lightning::detail::is_distributed_v<Src>,
                           int> = 0>
void deep_copy(const Dst& dst, const Src& src) {
  static_assert(
      std::is_same_v<typename Dst::non_const_value_type, typename Src::non_const_value_type>,
      "deep_copy: the element types must be the same");
  static_assert(static_cast<int>(Dst::rank) == static_cast<int>(Src::rank),
                "deep_copy: the ranks must be the same");
  static_assert(!std::is_const_v<typename Dst::value_type>,
                "deep_copy: cannot write into a lightning::View of const elements");
  const auto dst_box = lightning::detail::index_box(dst);
  const auto src_box = lightning::detail::index_box(src);
  if constexpr (decltype(dst_box.view)::rank == decltype(src_box.view)::rank)
    if (lightning::detail::same_box_shape(dst_box, src_box))
      return lightning::detail::copy_distributed(dst_box, src_box);
  const lightning::detail::DistributedBox d = lightning::detail::box_of(dst);
  const lightning::detail::DistributedBox s = lightning::detail::box_of(src);
  int64_t lo[3] = {}, dst_hi[3] = {}, src_hi[3] = {};
  for (int a = 0; a < d.kept_rank; ++a) {
    dst_hi[a] = static_cast<int64_t>(d.extent(a));
    src_hi[a] = static_cast<int64_t>(s.extent(a));
  }
  if (d.kept_rank > 0)
    lightning::detail::check_distributed_copy(d.label, s.label, false, d.kept_rank, lo, dst_hi, lo,
                                              src_hi);
  auto staged = Kokkos::create_mirror_view(src);
  Kokkos::deep_copy(staged, src);
  Kokkos::deep_copy(dst, staged);
}

/// Kokkos::resize of a lightning::View: a new array of the View's label, layout and
/// distribution with extents n..., holding the old elements where both have them and
/// value-initialised elements elsewhere (unless Kokkos::WithoutInitializing). Other Views of
/// the old array keep it.
template <class D, class L, class... N>
void resize(lightning::View<D, L>& v, N... n) {
  lightning::detail::remake(v, true, true, n...);
}
template <class D, class L, class... N>
void resize(const Impl::WithoutInitializing_t&, lightning::View<D, L>& v, N... n) {
  lightning::detail::remake(v, true, false, n...);
}
/// Kokkos::realloc of a lightning::View: like resize, without keeping the old elements.
template <class D, class L, class... N>
void realloc(lightning::View<D, L>& v, N... n) {
  lightning::detail::remake(v, false, true, n...);
}
template <class D, class L, class... N>
void realloc(const Impl::WithoutInitializing_t&, lightning::View<D, L>& v, N... n) {
  lightning::detail::remake(v, false, false, n...);
}

}  // namespace Kokkos
