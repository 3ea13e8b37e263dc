// Kokkos::deep_copy, create_mirror_view, create_mirror and create_mirror_view_and_copy for
// lightning::View and its subviews (lightning::ArraySubview). Kokkos' own accept only Kokkos::View;
// these overloads live in namespace Kokkos, since users call them qualified (as DynRankView and
// OffsetView do).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <type_traits>

#include "lightning_kokkos/subview.hpp"
#include "lightning_kokkos/view.hpp"

namespace lightning::detail {

/// The array and box a deep_copy touches (a whole View or a subview), as stored: a
/// LayoutLeft array's axes are reversed. A subview's dropped axes are boxes of one index.
struct DistributedBox {
  const ArrayControl* control = nullptr;
  std::string label;
  int rank = 0;  ///< of the array
  bool axes_reversed = false;
  int64_t lo[3] = {};
  int64_t hi[3] = {};
  int kept_rank = 0;  ///< of the View or subview
  int kept[3] = {};   ///< the array's axes (the View's index order) that are its axes
  /// Extent of axis `a` of the View or subview.
  std::size_t extent(int a) const {
    const int s = axes_reversed ? rank - 1 - kept[a] : kept[a];
    return static_cast<std::size_t>(hi[s] - lo[s]);
  }
};

template <class D, class L>
DistributedBox box_of(const View<D, L>& v) {
  DistributedBox b;
  b.control = v.impl_control();
  b.label = v.label();
  b.rank = static_cast<int>(v.rank);
  b.axes_reversed = View<D, L>::impl_axes_reversed;
  for (int a = 0; a < b.rank; ++a) b.hi[a] = v.impl_extents()[a];
  b.kept_rank = b.rank;
  for (int a = 0; a < b.rank; ++a) b.kept[a] = a;
  return b;
}
template <class D, class L, unsigned K>
DistributedBox box_of(const ArraySubview<View<D, L>, K>& s) {
  using S = ArraySubview<View<D, L>, K>;
  DistributedBox b;
  b.control = s.array.impl_control();
  b.label = s.array.label();
  b.rank = S::array_rank;
  b.axes_reversed = View<D, L>::impl_axes_reversed;
  for (int a = 0; a < b.rank; ++a) {
    const int stored = b.axes_reversed ? b.rank - 1 - a : a;
    b.lo[stored] = s.lo[a];
    b.hi[stored] = s.hi[a];
  }
  b.kept_rank = S::rank;
  for (int k = 0; k < S::rank; ++k) b.kept[k] = subview_axes::array_axis(K, k);
  return b;
}

template <class T>
struct IsDistributed : std::false_type {};
template <class D, class L>
struct IsDistributed<View<D, L>> : std::true_type {};
template <class D, class L, unsigned K>
struct IsDistributed<ArraySubview<View<D, L>, K>> : std::true_type {};
template <class T>
inline constexpr bool is_distributed_v = IsDistributed<std::remove_cv_t<T>>::value;

/// T, T*, T** or T*** for rank 0 to 3.
template <class T, int Rank>
struct WithRank {
  using type = typename WithRank<T*, Rank - 1>::type;
};
template <class T>
struct WithRank<T, 0> {
  using type = T;
};

/// The host Kokkos::View a View or subview copies to and from: its rank, elements and layout.
template <class Dist>
struct MirrorOf {
  using type = typename Dist::HostMirror;
};
template <class D, class L, unsigned K>
struct MirrorOf<ArraySubview<View<D, L>, K>> {
  using S = ArraySubview<View<D, L>, K>;
  using type = Kokkos::View<typename WithRank<typename S::non_const_value_type, S::rank>::type, L,
                            Kokkos::HostSpace>;
};
template <class Dist>
using mirror_t = typename MirrorOf<Dist>::type;

/// Whether a host Kokkos::View's memory is the box as stored, with no gaps: row-major for a
/// LayoutRight array, column-major for a LayoutLeft one.
template <class KView>
bool matches_storage(const KView& v, bool axes_reversed) {
  if (!v.span_is_contiguous()) return false;
  if (KView::rank <= 1) return true;
  return axes_reversed ? std::is_same_v<typename KView::array_layout, Kokkos::LayoutLeft>
                       : std::is_same_v<typename KView::array_layout, Kokkos::LayoutRight>;
}

template <class KView, class Dist>
void check_copy_types() {
  static_assert(
      std::is_same_v<typename KView::non_const_value_type, typename Dist::non_const_value_type>,
      "deep_copy: the element types must be the same");
  static_assert(static_cast<int>(KView::rank) == static_cast<int>(Dist::rank),
                "deep_copy: the ranks must be the same");
  static_assert(
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename KView::memory_space>::accessible,
      "deep_copy with a lightning::View: the Kokkos::View must be host-accessible");
}

template <class KView>
void check_extents(const DistributedBox& b, const KView& v) {
  int64_t lo[3] = {}, hi[3] = {};
  for (int a = 0; a < b.kept_rank; ++a) hi[a] = static_cast<int64_t>(b.extent(a));
  const std::size_t other[3] = {v.extent(0), v.extent(1), v.extent(2)};
  check_same_extents("deep_copy", b.label, b.kept_rank, lo, hi, other);
}

/// A host View of `b`'s extents in the View's layout (its memory is the box as stored), not
/// initialised.
template <class Mirror>
Mirror host_box(const DistributedBox& b, const std::string& label) {
  auto alloc = Kokkos::view_alloc(label, Kokkos::WithoutInitializing);
  const auto n = [&](int a) { return b.extent(a); };
  if constexpr (Mirror::rank == 0)
    return Mirror(alloc);
  else if constexpr (Mirror::rank == 1)
    return Mirror(alloc, n(0));
  else if constexpr (Mirror::rank == 2)
    return Mirror(alloc, n(0), n(1));
  else
    return Mirror(alloc, n(0), n(1), n(2));
}

}  // namespace lightning::detail

namespace Kokkos {

/// Copies a lightning::View (or a subview of one) into a host Kokkos::View of the same
/// extents; returns when the data is there (after every launch that writes it).
template <class DT, class... DP, class Src,
          std::enable_if_t<lightning::detail::is_distributed_v<Src>, int> = 0>
void deep_copy(const View<DT, DP...>& dst, const Src& src) {
  using Dst = View<DT, DP...>;
  lightning::detail::check_copy_types<Dst, Src>();
  static_assert(!std::is_const_v<typename Dst::value_type>,
                "deep_copy: the destination's elements must not be const");
  const lightning::detail::DistributedBox b = lightning::detail::box_of(src);
  lightning::detail::check_extents(b, dst);
  if (lightning::detail::matches_storage(dst, b.axes_reversed)) {
    lightning::detail::read_array(b.control, b.rank, b.lo, b.hi, dst.data());
  } else {
    auto tmp =
        lightning::detail::host_box<lightning::detail::mirror_t<Src>>(b, "lightning::deep_copy");
    lightning::detail::read_array(b.control, b.rank, b.lo, b.hi, tmp.data());
    Kokkos::deep_copy(dst, tmp);
  }
}

/// Copies a host Kokkos::View into a lightning::View (or a subview of one) of the same
/// extents; returns when `src` may be reused.
template <class Dst, class ST, class... SP,
          std::enable_if_t<lightning::detail::is_distributed_v<Dst>, int> = 0>
void deep_copy(const Dst& dst, const View<ST, SP...>& src) {
  using Src = View<ST, SP...>;
  lightning::detail::check_copy_types<Src, Dst>();
  static_assert(!std::is_const_v<typename Dst::value_type>,
                "deep_copy: cannot write into a lightning::View of const elements");
  const lightning::detail::DistributedBox b = lightning::detail::box_of(dst);
  lightning::detail::check_extents(b, src);
  if (lightning::detail::matches_storage(src, b.axes_reversed)) {
    lightning::detail::write_array(b.control, b.rank, b.lo, b.hi, src.data());
  } else {
    auto tmp =
        lightning::detail::host_box<lightning::detail::mirror_t<Dst>>(b, "lightning::deep_copy");
    Kokkos::deep_copy(tmp, src);
    lightning::detail::write_array(b.control, b.rank, b.lo, b.hi, tmp.data());
  }
}

/// Sets every element of a lightning::View (or of a subview of one) to `value`
/// (asynchronously).
template <class Dst, std::enable_if_t<lightning::detail::is_distributed_v<Dst>, int> = 0>
void deep_copy(const Dst& dst, typename Dst::const_value_type& value) {
  static_assert(!std::is_const_v<typename Dst::value_type>,
                "deep_copy: cannot fill a lightning::View of const elements");
  const lightning::detail::DistributedBox b = lightning::detail::box_of(dst);
  lightning::detail::fill_array(b.control, b.rank, b.lo, b.hi, &value);
}

/// Reads the element of a rank-0 subview (`Kokkos::subview(a, i, j)`) into `dst`; returns
/// when it is there.
template <class Src,
          std::enable_if_t<lightning::detail::is_distributed_v<Src> && Src::rank == 0, int> = 0>
void deep_copy(typename Src::non_const_value_type& dst, const Src& src) {
  const lightning::detail::DistributedBox b = lightning::detail::box_of(src);
  lightning::detail::read_array(b.control, b.rank, b.lo, b.hi, &dst);
}

/// A host Kokkos::View (HostSpace, the layout of the View) of the same extents as a
/// lightning::View or a subview of one; not a copy of the data. (A lightning::View is never
/// host-accessible, so this always allocates.)
template <class Dist, std::enable_if_t<lightning::detail::is_distributed_v<Dist>, int> = 0>
lightning::detail::mirror_t<Dist> create_mirror_view(const Dist& v) {
  return lightning::detail::host_box<lightning::detail::mirror_t<Dist>>(
      lightning::detail::box_of(v), v.label() + "_mirror");
}
template <class Dist, std::enable_if_t<lightning::detail::is_distributed_v<Dist>, int> = 0>
lightning::detail::mirror_t<Dist> create_mirror(const Dist& v) {
  return create_mirror_view(v);
}
/// A host copy of the elements of a lightning::View or a subview of one.
template <class Space, class Dist,
          std::enable_if_t<lightning::detail::is_distributed_v<Dist>, int> = 0>
lightning::detail::mirror_t<Dist> create_mirror_view_and_copy(const Space&, const Dist& v) {
  static_assert(
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible,
      "create_mirror_view_and_copy of a lightning::View: the target must be a host "
      "space");
  auto mirror = create_mirror_view(v);
  Kokkos::deep_copy(mirror, v);
  return mirror;
}

}  // namespace Kokkos
