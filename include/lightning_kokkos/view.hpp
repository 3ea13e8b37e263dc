// lightning::View: a distributed array with the surface of a Kokkos::View.
//
// Byte layout (the runtime depends on it): a View<T*..., Layout> starts with an
// ArrayHandle<T, Rank> (data, offset, stride[Rank], extent[Rank]); the runtime overwrites
// exactly those bytes in its copy of a kernel's functor before each superblock, so that
// operator() addresses the superblock's chunk with global indices. The host-side control
// block (reference count, array id, label) comes after and is never touched in a kernel.
// On the host the handle's data pointer is null: element access outside a kernel throws
// (with LIGHTNING_VIEW_CHECKS, see below).
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/checked_region.hpp"
#include "lightning_kokkos/execution_space.hpp"
#include "lightning_kokkos/internal/core/data_type.hpp"
#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/distribution/data_distribution.hpp"
#include "lightning_kokkos/internal/kernel/kernel_thread.hpp"
#include "lightning_kokkos/vector_types.hpp"

#if defined(__GNUC__)
#define LIGHTNING_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define LIGHTNING_UNLIKELY(x) (x)
#endif

// LIGHTNING_VIEW_CHECKS (default 1): View::operator() on the host throws a clear error naming
// the View when its data pointer is null: an element access outside a kernel, from a kernel
// run on another execution space (e.g. Kokkos::Serial), or of a View a kernel does not list.
// The same test gives checked mode its way in (a checked run's handles have null data), so
// checked mode needs it on host devices (GPU code compiled for checked mode checks in
// lightning::DeviceArray). The test is per access and stops the host compiler
// from vectorising kernel loops (saxpy on a host device: 1.7x slower at -O2, 3.5x at -O3), so
// programs that time host devices may define LIGHTNING_VIEW_CHECKS=0; such an access then
// dereferences a null pointer. Use one value in a whole program.
#ifndef LIGHTNING_VIEW_CHECKS
#define LIGHTNING_VIEW_CHECKS 1
#endif

namespace lightning {

template <class DataType, class Layout = Kokkos::LayoutRight>
class View;

namespace detail {

/// T, T*, T**, T***: the element type and the number of `*`.
template <class D>
struct ViewData {
  using value_type = D;
  static constexpr int rank = 0;
};
template <class D>
struct ViewData<D*> {
  using value_type = typename ViewData<D>::value_type;
  static constexpr int rank = ViewData<D>::rank + 1;
};

/// The host side of one distributed array, shared by all Views of it.
struct ArrayControl {
  std::atomic<long> count{1};
  ArrayId array;
  uint64_t generation = 0;  ///< of the runtime that created the array
  std::string label;
  DataType type = DataType::kFloat32;
  int rank = 0;
  int64_t extent[3] = {};      ///< as stored
  bool axes_reversed = false;  ///< a LayoutLeft View's array
  /// The distribution it was made with, as stored (null: the default), for arrays made like
  /// it (Kokkos::resize, Kokkos::realloc).
  std::shared_ptr<const DataDistribution> distribution;
};

/// Creates the array in the runtime (`distribution` null: block along axis 0, one chunk per
/// device); `extent` and `distribution` are as stored. Returns a control block with count 1.
ArrayControl* create_array(const std::string& label, DataType type, int rank, const int64_t* extent,
                           const DataDistribution* distribution, bool axes_reversed);
/// A new array like `like`'s (label, element type, layout, distribution) of `extent` (as
/// stored); count 1.
ArrayControl* create_array_like(const ArrayControl* like, const int64_t* extent);
/// Deletes the array (asynchronously: after every task using it) and the control block.
void destroy_array(ArrayControl* control) noexcept;
/// Transfers of the box [lo, hi) of an array; `host` holds the box, row-major.
void read_array(const ArrayControl* control, int rank, const int64_t* lo, const int64_t* hi,
                void* host);
void write_array(const ArrayControl* control, int rank, const int64_t* lo, const int64_t* hi,
                 const void* host);
void fill_array(const ArrayControl* control, int rank, const int64_t* lo, const int64_t* hi,
                const void* value);
/// Throws Error(kInvalidArgument) naming `label` unless the box's extents are `other_extent`.
void check_same_extents(const std::string& what, const std::string& label, int rank,
                        const int64_t* lo, const int64_t* hi, const std::size_t* other_extent);
/// Throws Error(kInvalidArgument) naming both Views unless the boxes (in the Views' index
/// order) have the same extents, and naming the View when they are boxes of one array that
/// meet (the copy would read what it writes).
void check_distributed_copy(const std::string& dst_label, const std::string& src_label,
                            bool same_array, int rank, const int64_t* dst_lo, const int64_t* dst_hi,
                            const int64_t* src_lo, const int64_t* src_hi);

/// An element access where the data pointer is null: in a checked run (checked mode, see
/// docs/annotations.md) the element's address once its index (stored order, `rank` of them)
/// is checked against the annotation; otherwise throws the error of an access outside a
/// kernel, naming the View.
void* unbound_element(const ArrayControl* control, const void* handle, int rank, int64_t i,
                      int64_t j, int64_t k);

template <class T>
struct IsView : std::false_type {};
template <class D, class L>
struct IsView<View<D, L>> : std::true_type {};

}  // namespace detail

template <class T>
inline constexpr bool is_view_v = detail::IsView<std::remove_cv_t<T>>::value;

/// A distributed array of rank 1-3 (`T*`, `T**`, `T***`, T possibly const), row-major
/// (Kokkos::LayoutRight). Copies share the array (reference counted); the array is deleted,
/// asynchronously, when the last host copy goes. Elements are accessible only inside kernels
/// run on lightning::Distributed; on the host use Kokkos::deep_copy.
template <class DataType, class Layout>
class View {
  using Data = detail::ViewData<DataType>;
  static_assert(Data::rank >= 1 && Data::rank <= 3,
                "lightning::View supports T*, T** and T*** (rank 1 to 3)");
  static_assert(std::is_same_v<Layout, Kokkos::LayoutRight> ||
                    std::is_same_v<Layout, Kokkos::LayoutLeft>,
                "lightning::View is Kokkos::LayoutRight (row-major, the default) or "
                "Kokkos::LayoutLeft (column-major)");

 public:
  using value_type = typename Data::value_type;
  using non_const_value_type = std::remove_const_t<value_type>;
  using const_value_type = std::add_const_t<value_type>;
  using data_type = DataType;
  using const_data_type = std::conditional_t<
      Data::rank == 1, const_value_type*,
      std::conditional_t<Data::rank == 2, const_value_type**, const_value_type***>>;
  using non_const_data_type = std::conditional_t<
      Data::rank == 1, non_const_value_type*,
      std::conditional_t<Data::rank == 2, non_const_value_type**, non_const_value_type***>>;
  using array_layout = Layout;
  using memory_space = DistributedMemory;
  using execution_space = Distributed;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using size_type = std::size_t;
  using reference_type = value_type&;
  using pointer_type = value_type*;
  using const_type = View<const_data_type, Layout>;
  using non_const_type = View<non_const_data_type, Layout>;
  using HostMirror = Kokkos::View<non_const_data_type, Layout, Kokkos::HostSpace>;
  /// A LayoutLeft array (rank 2, 3) is stored with its axes reversed: element (i, j) of the
  /// View is element (j, i) of the stored, row-major array, so column-major memory order
  /// holds on every device and in every transfer.
  static constexpr bool impl_axes_reversed =
      std::is_same_v<Layout, Kokkos::LayoutLeft> && Data::rank > 1;

  static constexpr std::integral_constant<std::size_t, Data::rank> rank{};
  static constexpr std::integral_constant<std::size_t, Data::rank> rank_dynamic{};

  View() = default;

  /// Creates an array of the given extents with `distribution` (default: block along axis 0,
  /// one chunk per device). Needs the runtime (lightning::ScopeGuard).
  template <int R = Data::rank, std::enable_if_t<R == 1, int> = 0>
  View(const std::string& label, std::size_t n0) {
    create(label, {n0, 0, 0}, nullptr);
  }
  template <int R = Data::rank, std::enable_if_t<R == 1, int> = 0>
  View(const std::string& label, std::size_t n0, const DataDistribution& distribution) {
    create(label, {n0, 0, 0}, &distribution);
  }
  template <int R = Data::rank, std::enable_if_t<R == 2, int> = 0>
  View(const std::string& label, std::size_t n0, std::size_t n1) {
    create(label, {n0, n1, 0}, nullptr);
  }
  template <int R = Data::rank, std::enable_if_t<R == 2, int> = 0>
  View(const std::string& label, std::size_t n0, std::size_t n1,
       const DataDistribution& distribution) {
    create(label, {n0, n1, 0}, &distribution);
  }
  template <int R = Data::rank, std::enable_if_t<R == 3, int> = 0>
  View(const std::string& label, std::size_t n0, std::size_t n1, std::size_t n2) {
    create(label, {n0, n1, n2}, nullptr);
  }
  template <int R = Data::rank, std::enable_if_t<R == 3, int> = 0>
  View(const std::string& label, std::size_t n0, std::size_t n1, std::size_t n2,
       const DataDistribution& distribution) {
    create(label, {n0, n1, n2}, &distribution);
  }

  View(const View& other) : handle_(other.handle_), control_(other.control_) { retain(); }
  View(View&& other) noexcept : handle_(other.handle_), control_(other.control_) {
    other.control_ = nullptr;
  }
  /// A View of const elements from a View of the same array.
  template <class D,
            std::enable_if_t<std::is_same_v<D, non_const_data_type> && !std::is_same_v<D, DataType>,
                             int> = 0>
  View(const View<D, Layout>& other) : control_(other.control_) {
    handle_.data = other.handle_.data;
    handle_.offset = other.handle_.offset;
    for (int a = 0; a < Data::rank; ++a) {
      handle_.stride[a] = other.handle_.stride[a];
      handle_.extent[a] = other.handle_.extent[a];
    }
    retain();
  }
  View& operator=(const View& other) {
    if (this != &other) {
      View copy(other);
      swap(copy);
    }
    return *this;
  }
  View& operator=(View&& other) noexcept {
    View moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~View() { release(); }

  /// Element (i[, j[, k]]) in global coordinates. Only inside a kernel on
  /// lightning::Distributed: elsewhere the data pointer is null and this throws Error
  /// naming the View (unless LIGHTNING_VIEW_CHECKS is 0).
  KOKKOS_FORCEINLINE_FUNCTION value_type& operator()(int64_t i) const {
    static_assert(Data::rank == 1, "rank-1 View: one index");
    if (unbound()) return unbound_element(i, 0, 0);
    return handle_(i);
  }
  KOKKOS_FORCEINLINE_FUNCTION value_type& operator()(int64_t i, int64_t j) const {
    static_assert(Data::rank == 2, "rank-2 View: two indices");
    if constexpr (impl_axes_reversed) {
      if (unbound()) return unbound_element(j, i, 0);
      return handle_(j, i);
    } else {
      if (unbound()) return unbound_element(i, j, 0);
      return handle_(i, j);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION value_type& operator()(int64_t i, int64_t j, int64_t k) const {
    static_assert(Data::rank == 3, "rank-3 View: three indices");
    if constexpr (impl_axes_reversed) {
      if (unbound()) return unbound_element(k, j, i);
      return handle_(k, j, i);
    } else {
      if (unbound()) return unbound_element(i, j, k);
      return handle_(i, j, k);
    }
  }

  KOKKOS_INLINE_FUNCTION std::size_t extent(std::size_t r) const {
    if (r >= Data::rank) return 1;
    return static_cast<std::size_t>(handle_.extent[impl_axes_reversed ? Data::rank - 1 - r : r]);
  }
  KOKKOS_INLINE_FUNCTION int extent_int(std::size_t r) const { return static_cast<int>(extent(r)); }
  /// Strides of the whole array in its layout (on the host).
  std::size_t stride(std::size_t r) const {
    if (r >= Data::rank) return 0;
    std::size_t s = 1;
    if (impl_axes_reversed)
      for (std::size_t a = 0; a < r; ++a) s *= extent(a);
    else
      for (std::size_t a = r + 1; a < Data::rank; ++a) s *= extent(a);
    return s;
  }
  KOKKOS_INLINE_FUNCTION std::size_t size() const {
    std::size_t n = 1;
    for (int a = 0; a < Data::rank; ++a) n *= static_cast<std::size_t>(handle_.extent[a]);
    return n;
  }
  std::size_t span() const { return size(); }
  bool span_is_contiguous() const { return true; }
  /// Null on the host: the elements live on the devices.
  value_type* data() const { return handle_.data; }
  Layout layout() const {
    if constexpr (Data::rank == 1)
      return Layout(extent(0));
    else if constexpr (Data::rank == 2)
      return Layout(extent(0), extent(1));
    else
      return Layout(extent(0), extent(1), extent(2));
  }
  std::string label() const { return control_ ? control_->label : std::string(); }
  int use_count() const {
    return control_ ? static_cast<int>(control_->count.load(std::memory_order_relaxed)) : 0;
  }
  bool is_allocated() const { return control_ != nullptr; }

  /// The array's id in the runtime (invalid for a default-constructed View).
  ArrayId impl_array_id() const { return control_ ? control_->array : ArrayId(); }
  const detail::ArrayControl* impl_control() const { return control_; }
  /// The extents of the array as stored (reversed for LayoutLeft), as the runtime sees them.
  const int64_t* impl_extents() const { return handle_.extent; }
  /// The View of an array made by the runtime (count 1, which the View takes over).
  static View impl_adopt(detail::ArrayControl* control) {
    View v;
    v.control_ = control;
    v.set_handle_extents(control->extent);
    return v;
  }

 private:
  template <class D, class L>
  friend class View;

  void create(const std::string& label, std::initializer_list<std::size_t> extents,
              const DataDistribution* distribution) {
    int64_t e[3] = {};
    int a = 0;
    for (std::size_t n : extents) e[a++] = static_cast<int64_t>(n);
    if constexpr (impl_axes_reversed) {
      std::reverse(e, e + Data::rank);
      if (distribution) {
        const DataDistribution stored = distribution->with_axes_reversed(Data::rank);
        control_ = detail::create_array(label, data_type_of<non_const_value_type>(), Data::rank, e,
                                        &stored, true);
      } else {
        control_ = detail::create_array(label, data_type_of<non_const_value_type>(), Data::rank, e,
                                        nullptr, true);
      }
    } else {
      control_ = detail::create_array(label, data_type_of<non_const_value_type>(), Data::rank, e,
                                      distribution, false);
    }
    set_handle_extents(e);
  }
  // The handle's extents and row-major strides from the extents as stored.
  void set_handle_extents(const int64_t* e) {
    for (int r = Data::rank - 1; r >= 0; --r) {
      handle_.extent[r] = e[r];
      handle_.stride[r] = r == Data::rank - 1 ? 1 : handle_.stride[r + 1] * e[r + 1];
    }
  }
  // Whether the data pointer is null, where host code tests it (see LIGHTNING_VIEW_CHECKS).
  KOKKOS_FORCEINLINE_FUNCTION bool unbound() const {
#if LIGHTNING_VIEW_CHECKS && !defined(__CUDA_ARCH__) && !defined(__CUDACC_RTC__)
    return LIGHTNING_UNLIKELY(handle_.data == nullptr);
#else
    return false;
#endif
  }
  // An access through a null data pointer: in a checked run (the offset field holds a
  // CheckedRegion) the element when it is inside the declared region; otherwise the runtime
  // records the access (checked mode) or throws (an access outside a kernel). Indices in
  // stored order. Never reached in GPU code (unbound() is false there).
  KOKKOS_INLINE_FUNCTION value_type& unbound_element(int64_t i, int64_t j, int64_t k) const {
#if LIGHTNING_VIEW_CHECKS && !defined(__CUDA_ARCH__) && !defined(__CUDACC_RTC__)
    if (handle_.offset != 0)
      if (void* e = checked_region_of(handle_.offset)->element(i, j, k))
        return *static_cast<value_type*>(e);
    return *static_cast<value_type*>(
        detail::unbound_element(control_, &handle_, Data::rank, i, j, k));
#else
    (void)i, (void)j, (void)k;
    return *handle_.data;
#endif
  }
  // A copy made inside a kernel's body (a subview, `auto b = a;`) owns nothing: the control
  // block is the launching process's, and on another rank not even there (kernel_thread.hpp).
  void retain() {
    if (control_ && !kernel::in_kernel_body())
      control_->count.fetch_add(1, std::memory_order_relaxed);
  }
  void release() {
    if (control_ && !kernel::in_kernel_body() &&
        control_->count.fetch_sub(1, std::memory_order_acq_rel) == 1)
      detail::destroy_array(control_);
    control_ = nullptr;
  }
  void swap(View& other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(control_, other.control_);
  }

  // Must stay first: the runtime patches these bytes (see the comment at the top).
  ArrayHandle<value_type, Data::rank> handle_;
  detail::ArrayControl* control_ = nullptr;
};

}  // namespace lightning
