// Host entry points for native C++ kernels: a functor whose operator() runs one thread, with
// lightning::ArrayHandle members for its arrays. The Kokkos adapter's LIGHTNING_KERNEL builds
// on this; the runtime's own tests use it directly.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>

#include "lightning_kokkos/internal/core/rect.hpp"
#include "lightning_kokkos/internal/kernel/kernel_registry.hpp"

namespace lightning::kernel {

/// Calls f with `args`, after a value-initialised Tag unless Tag is void (a Kokkos work tag:
/// the policy's tag selects the functor's operator()).
template <class Tag, class F, class... A>
inline void invoke(const F& f, A&&... args) {
  if constexpr (std::is_void_v<Tag>)
    f(std::forward<A>(args)...);
  else
    f(Tag{}, std::forward<A>(args)...);
}

/// Runs every thread of `threads` (row-major) of a functor F taking (i), (i, j) or (i, j, k)
/// (after a Tag, unless Tag is void).
template <class F, int Rank, class Tag = void>
void run_native(const void* functor, const Rect& threads, void* /*partial*/) {
  const F& f = *static_cast<const F*>(functor);
  const Point& lo = threads.lo();
  const Point& hi = threads.hi();
  if constexpr (Rank == 1) {
    for (int64_t i = lo[0]; i < hi[0]; ++i) invoke<Tag>(f, i);
  } else if constexpr (Rank == 2) {
    for (int64_t i = lo[0]; i < hi[0]; ++i)
      for (int64_t j = lo[1]; j < hi[1]; ++j) invoke<Tag>(f, i, j);
  } else {
    for (int64_t i = lo[0]; i < hi[0]; ++i)
      for (int64_t j = lo[1]; j < hi[1]; ++j)
        for (int64_t k = lo[2]; k < hi[2]; ++k) invoke<Tag>(f, i, j, k);
  }
}

/// As run_native for a reduction functor taking (i[, j[, k]], Value& partial).
template <class F, int Rank, class Value, class Tag = void>
void run_native_reduce(const void* functor, const Rect& threads, void* partial) {
  const F& f = *static_cast<const F*>(functor);
  Value& v = *static_cast<Value*>(partial);
  const Point& lo = threads.lo();
  const Point& hi = threads.hi();
  if constexpr (Rank == 1) {
    for (int64_t i = lo[0]; i < hi[0]; ++i) invoke<Tag>(f, i, v);
  } else if constexpr (Rank == 2) {
    for (int64_t i = lo[0]; i < hi[0]; ++i)
      for (int64_t j = lo[1]; j < hi[1]; ++j) invoke<Tag>(f, i, j, v);
  } else {
    for (int64_t i = lo[0]; i < hi[0]; ++i)
      for (int64_t j = lo[1]; j < hi[1]; ++j)
        for (int64_t k = lo[2]; k < hi[2]; ++k) invoke<Tag>(f, i, j, k, v);
  }
}

/// One pass of a parallel_scan of a functor F taking (i, Value& update, bool final): the
/// threads in ascending order, `value` (unaligned bytes) threaded through them.
template <class F, class Value, class Tag = void>
void run_native_scan(const void* functor, const Rect& threads, void* value, bool final) {
  const F& f = *static_cast<const F*>(functor);
  Value v;
  std::memcpy(static_cast<void*>(&v), value, sizeof v);
  for (int64_t i = threads.lo()[0]; i < threads.hi()[0]; ++i) invoke<Tag>(f, i, v, final);
  std::memcpy(value, static_cast<const void*>(&v), sizeof v);
}

/// The KernelInfo of a native functor F, without its entry point. F must be trivially
/// copyable: the runtime copies its bytes and patches its array handles.
template <class F>
KernelInfo native_kernel_info(std::string name, std::string annotation,
                              annotation::KernelSignature signature, std::vector<ArraySlot> arrays,
                              std::vector<ScalarSlot> scalars) {
  static_assert(std::is_trivially_copyable_v<F>, "kernels are copied as bytes");
  KernelInfo info;
  info.name = std::move(name);
  info.functor_size = sizeof(F);
  info.description = {std::move(annotation), std::move(signature), std::move(arrays),
                      std::move(scalars)};
  return info;
}

/// The KernelInfo of a native functor F over a rank-`Rank` domain.
template <class F, int Rank>
KernelInfo native_kernel(std::string name, std::string annotation,
                         annotation::KernelSignature signature, std::vector<ArraySlot> arrays,
                         std::vector<ScalarSlot> scalars = {}) {
  KernelInfo info =
      native_kernel_info<F>(std::move(name), std::move(annotation), std::move(signature),
                            std::move(arrays), std::move(scalars));
  info.run_host = &run_native<F, Rank>;
  return info;
}

/// As native_kernel for a functor reducing a Value with `reduction` (default: a sum of
/// Value; a custom one for values that are not arithmetic).
template <class F, int Rank, class Value>
KernelInfo native_reduce_kernel(std::string name, std::string annotation,
                                annotation::KernelSignature signature,
                                std::vector<ArraySlot> arrays, std::vector<ScalarSlot> scalars = {},
                                std::optional<Reduction> reduction = std::nullopt) {
  KernelInfo info =
      native_kernel_info<F>(std::move(name), std::move(annotation), std::move(signature),
                            std::move(arrays), std::move(scalars));
  info.run_host = &run_native_reduce<F, Rank, Value>;
  if constexpr (std::is_arithmetic_v<Value>)
    info.reduction = reduction.value_or(Reduction::builtin(ReduceOp::kSum, data_type_of<Value>()));
  else
    info.reduction = reduction.value();  // a value that is not arithmetic needs its reducer
  return info;
}

}  // namespace lightning::kernel
