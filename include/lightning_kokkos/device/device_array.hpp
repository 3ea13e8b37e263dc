// What GPU code sees of one distributed array: the bytes of an ArrayHandle, with the surface
// kernels index through. Compiled by the host compiler (for layout checks) and, as text, by
// NVRTC: plain C++, no library.
#pragma once

#include <cstdint>

#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/checked_region.hpp"

namespace lightning {

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
namespace detail {
struct ArrayControl;
// Host code: an access through a handle without data (lightning/view.hpp has the contract).
void* unbound_element(const ArrayControl* control, const void* handle, int rank, int64_t i,
                      int64_t j, int64_t k);
}  // namespace detail
#endif

/// A rank-`Rank` array in GPU code, indexed with global coordinates. Same bytes as
/// ArrayHandle<T, Rank> (the runtime patches them per chunk), so it stands in for a
/// lightning::View member of a functor and for a ported kernel's array parameter.
///
/// No per-access cost over a raw pointer: before a launch the runtime folds the chunk
/// offset into `data` (`data -= offset`, `offset = 0`; cuda::fold_chunk_offsets), so element
/// access subtracts nothing and no thread re-bases anything; and the last axis has unit
/// stride by the runtime's contract (chunks are row-major over their box), so `a(i, j)` is
/// `data[i * stride[0] + j]`. `offset` is read only in checked mode, where it holds the
/// address of a CheckedRegion (and `data` is null).
template <class T, int Rank>
struct DeviceArray {
  static_assert(Rank >= 1 && Rank <= 3, "arrays have 1 to 3 axes");
  using value_type = T;
  static constexpr int rank = Rank;

  ArrayHandle<T, Rank> handle;

  LIGHTNING_INLINE T& operator()(int64_t i) const {
    static_assert(Rank == 1, "rank-1 array: one index");
    return element(i, i, 0, 0);
  }
  LIGHTNING_INLINE T& operator()(int64_t i, int64_t j) const {
    static_assert(Rank == 2, "rank-2 array: two indices");
    return element(i * handle.stride[0] + j, i, j, 0);
  }
  LIGHTNING_INLINE T& operator()(int64_t i, int64_t j, int64_t k) const {
    static_assert(Rank == 3, "rank-3 array: three indices");
    return element(i * handle.stride[0] + j * handle.stride[1] + k, i, j, k);
  }
  /// Checked mode (the runtime compiles the kernel with LIGHTNING_CHECKED_ACCESS): the
  /// handle's offset field holds a CheckedRegion in device memory, which finds the element
  /// inside the declared region and counts an access outside it. Indices in stored order.
  LIGHTNING_INLINE T& checked(int64_t i, int64_t j, int64_t k) const {
    return *static_cast<T*>(checked_region_of(handle.offset)->checked(i, j, k));
  }
  /// `a[i]`, as a ported kernel indexed its raw pointer (rank 1).
  LIGHTNING_INLINE T& operator[](int64_t i) const {
    static_assert(Rank == 1,
                  "a[i] indexes a rank-1 array (lightning::Vector); index a Matrix as m(i, j) and "
                  "a Tensor as t(i, j, k), with global coordinates");
    return (*this)(i);
  }

  /// The whole array's extent along `axis` (1 beyond the rank), as Kokkos::View::extent.
  LIGHTNING_INLINE uint64_t extent(int axis) const {
    return axis < Rank ? static_cast<uint64_t>(handle.extent[axis]) : 1;
  }
  LIGHTNING_INLINE int extent_int(int axis) const { return static_cast<int>(extent(axis)); }
  LIGHTNING_INLINE uint64_t size() const {
    uint64_t n = 1;
    for (int a = 0; a < Rank; ++a) n *= static_cast<uint64_t>(handle.extent[a]);
    return n;
  }

 private:
  // Element `linear` of the folded data, or (i, j, k) through the handle's CheckedRegion.
  LIGHTNING_INLINE T& element(int64_t linear, int64_t i, int64_t j, int64_t k) const {
#if defined(LIGHTNING_CHECKED_ACCESS)
    (void)linear;
    return checked(i, j, k);
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
    (void)i, (void)j, (void)k;
    return handle.data[linear];
#else
    // Host code (the CUDA shim on host devices): a handle without data is a checked one
    // (checked mode: its offset holds the CheckedRegion) or one the superblock was given no
    // elements of (an error naming the access, not a crash).
    if (handle.data) return handle.data[linear];
    return *static_cast<T*>(detail::unbound_element(nullptr, &handle, Rank, i, j, k));
#endif
  }
};

/// A column-major array (a Kokkos::LayoutLeft lightning::View) in GPU code: indexed in the
/// View's order, stored with its axes reversed, so element (i, j) is stored element (j, i)
/// and the first index has unit stride. Same bytes and folded offset as DeviceArray.
template <class T, int Rank>
struct ReversedDeviceArray : DeviceArray<T, Rank> {
  using DeviceArray<T, Rank>::handle;

  LIGHTNING_INLINE T& operator()(int64_t i) const { return DeviceArray<T, Rank>::operator()(i); }
  LIGHTNING_INLINE T& operator()(int64_t i, int64_t j) const {
    static_assert(Rank == 2, "rank-2 array: two indices");
#ifdef LIGHTNING_CHECKED_ACCESS
    return this->checked(j, i, 0);
#else
    return handle.data[j * handle.stride[0] + i];
#endif
  }
  LIGHTNING_INLINE T& operator()(int64_t i, int64_t j, int64_t k) const {
    static_assert(Rank == 3, "rank-3 array: three indices");
#ifdef LIGHTNING_CHECKED_ACCESS
    return this->checked(k, j, i);
#else
    return handle.data[k * handle.stride[0] + j * handle.stride[1] + i];
#endif
  }
  LIGHTNING_INLINE uint64_t extent(int axis) const {
    return axis < Rank ? static_cast<uint64_t>(handle.extent[Rank - 1 - axis]) : 1;
  }
  LIGHTNING_INLINE int extent_int(int axis) const {
    return static_cast<int>(extent(axis));
  }
};

/// The paper's names for ported kernels' array parameters (1, 2 and 3 axes).
template <class T>
using Vector = DeviceArray<T, 1>;
template <class T>
using Matrix = DeviceArray<T, 2>;
template <class T>
using Tensor = DeviceArray<T, 3>;

static_assert(sizeof(DeviceArray<float, 1>) == sizeof(ArrayHandle<float, 1>) &&
                  sizeof(DeviceArray<double, 3>) == sizeof(ArrayHandle<double, 3>) &&
                  sizeof(ReversedDeviceArray<double, 2>) == sizeof(ArrayHandle<double, 2>),
              "DeviceArray must have exactly the bytes of an ArrayHandle");

}  // namespace lightning
