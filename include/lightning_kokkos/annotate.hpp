// lightning::annotate: a Kokkos lambda with an annotation, for existing Kokkos code on host
// devices.
//
//   Kokkos::parallel_for(Kokkos::RangePolicy<lightning::Distributed>(1, n - 1),
//       lightning::annotate("global i => read in[i-1:i+1], write out[i]",
//                           KOKKOS_LAMBDA(const int i) { out(i) = in(i - 1) + in(i + 1); }));
//
// The annotation names the captured lightning::Views by their labels ("in", "out"): a lambda's
// captures have no names the program can see, so the runtime finds the captured Views in the
// closure's bytes at launch time and matches them to the labels. Captured scalars cannot be
// named in the annotation. A lambda has no source text for GPU code: it runs on host devices
// only, and launching it where GPUs are the devices is an error; use LIGHTNING_KERNEL there.
// On any other execution space the wrapper is the plain lambda.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "lightning_kokkos/internal/core/reduction.hpp"
#include "lightning_kokkos/internal/kernel/kernel_registry.hpp"
#include "lightning_kokkos/internal/kernel/native_kernel.hpp"
#include "lightning_kokkos/kernel.hpp"

namespace lightning {

namespace detail {
template <class Value>
struct ReduceValueType {
  using value_type = Value;  // what Kokkos reads to size a reduction
};
template <>
struct ReduceValueType<void> {};
}  // namespace detail

/// A lambda and its annotation (made by annotate()). Calls forward to the lambda.
template <class Lambda>
struct AnnotatedLambda
    : detail::ReduceValueType<typename detail::OperatorShape<Lambda>::value_type> {
  Lambda lambda;
  const char* annotation;

  template <class... Args>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(Args&&... args) const {
    lambda(std::forward<Args>(args)...);
  }
};

/// `lambda` with the annotation of what each of its threads touches (see the top of this
/// file). `annotation` must outlive the launches (a string literal does).
template <class Lambda>
AnnotatedLambda<Lambda> annotate(const char* annotation, const Lambda& lambda) {
  using Shape = detail::OperatorShape<Lambda>;
  static_assert(Shape::rank >= 1 && Shape::rank <= 3,
                "lightning::annotate: the lambda must take 1 to 3 integer indices (and for "
                "parallel_reduce a last Value& update)");
  return AnnotatedLambda<Lambda>{{}, lambda, annotation};
}

namespace detail {

template <class T>
struct IsAnnotatedLambda : std::false_type {};
template <class L>
struct IsAnnotatedLambda<AnnotatedLambda<L>> : std::true_type {};

/// Registers the host entry point of an annotated lambda type (`entry`: its entry point,
/// bytes and reduction; its annotation and the places of its Views are given per launch).
KernelId register_lambda(const std::type_info& type, kernel::KernelInfo entry);

/// The id of AnnotatedLambda<L>, registered at static initialisation (so every rank of one
/// binary knows it).
template <class L>
struct LambdaKernel {
  static KernelId make() {
    using W = AnnotatedLambda<L>;
    using Shape = OperatorShape<L>;
    kernel::KernelInfo entry;  // the host entry point and size of the bytes it runs on
    if constexpr (Shape::reduces || Shape::scans) {
      using Value = typename Shape::value_type;
      static_assert(std::is_arithmetic_v<Value>,
                    "lightning::annotate: a lambda reduces or scans numbers (+ or a Kokkos "
                    "reducer); for a value of another type write a LIGHTNING_KERNEL functor with "
                    "static init and join");
      set_host_entry<W, Shape::rank, Value, Shape::scans>(entry);
      entry.reduction = Reduction::builtin(ReduceOp::kSum, data_type_of<Value>());
    } else {
      set_host_entry<W, Shape::rank, void>(entry);
    }
    return register_lambda(typeid(L), std::move(entry));
  }
  static inline const KernelId id = make();
};

/// The captured lightning::Views of `lambda` (found by their control blocks in its bytes),
/// as kernel parameters named by their labels. Throws Error(kInvalidArgument) naming the
/// labels when two captured arrays share one.
kernel::KernelDescription describe_lambda(const char* annotation, const void* lambda,
                                          std::size_t size, std::size_t offset_in_wrapper,
                                          std::vector<ArrayId>& arrays);

}  // namespace detail
}  // namespace lightning
