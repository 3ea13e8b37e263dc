// One program for lightning::Distributed and for Kokkos' own spaces: the View type, the
// allocation and the space instance all follow one alias, so that
//
//   using exec = lightning::Distributed;  // or Kokkos::DefaultHostExecutionSpace
//   template <class T> using view = lightning::ViewOf<exec, T>;
//
// switches a whole program between the cluster and Kokkos alone.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <type_traits>

#include "lightning_kokkos/execution_space.hpp"
#include "lightning_kokkos/internal/distribution/data_distribution.hpp"
#include "lightning_kokkos/internal/distribution/work_distribution.hpp"
#include "lightning_kokkos/view.hpp"

namespace lightning {

/// The View type of execution space `Space`: lightning::View<DataType, Layout> on
/// lightning::Distributed; Kokkos::View<DataType, Layout> in the space's memory elsewhere.
template <class Space, class DataType, class Layout = Kokkos::LayoutRight>
using ViewOf = std::conditional_t<std::is_same_v<Space, Distributed>, View<DataType, Layout>,
                                  Kokkos::View<DataType, Layout, typename Space::memory_space>>;

/// Allocates a ViewOf type: a lightning::View with `distribution`; a Kokkos::View, which
/// has no distribution, without it.
template <class V, class... Extents>
V allocate(const std::string& label, const DataDistribution& distribution, Extents... extents) {
  if constexpr (is_view_v<V>)
    return V(label, static_cast<std::size_t>(extents)..., distribution);
  else
    return V(label, static_cast<std::size_t>(extents)...);
}

/// An instance of `Space` cutting its launches with `work` (lightning::Distributed); other
/// spaces have no work distribution and get a default instance.
template <class Space>
Space space_with(const WorkDistribution& work) {
  if constexpr (std::is_same_v<Space, Distributed>)
    return Space(work);
  else
    return Space();
}

}  // namespace lightning
