// LIGHTNING_LAMBDA: a Kokkos lambda that runs on every device, GPUs included.
//
//   Kokkos::parallel_for(Kokkos::RangePolicy<lightning::Distributed>(0, n),
//       LIGHTNING_LAMBDA("global i => read x[i], readwrite y[i]", (x, y, a),
//                        (const int i) { y(i) = a * x(i) + y(i); }));
//
// The arguments: the annotation (a string literal), the capture list (names of lightning::Views
// and arithmetic variables, captured by value; integer ones may be named in the annotation,
// as a LIGHTNING_KERNEL member can), and the lambda's parameters and body as KOKKOS_LAMBDA
// would take them. The macro makes the lambda `[x, y, a](const int i) {...}` and keeps the
// text of its capture list and body: GPU code is the body pasted into a struct with the
// captures as members, as for a LIGHTNING_KERNEL functor, and the kernel is registered at
// static initialisation under the lambda's type, so every rank of one binary knows it.
//
// A capture list names variables only (no `&`, `this` or init-captures): what the lambda
// holds must be copied to every device and rank. The captures are laid out in the order of
// the list (as GCC and Clang do); each LIGHTNING_LAMBDA checks that when it is made. On
// Kokkos' own spaces the result is a functor that calls the lambda.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "lightning_kokkos/annotate.hpp"
#include "lightning_kokkos/kernel.hpp"
#include "lightning_kokkos/team_policy.hpp"
#include "lightning_kokkos/view.hpp"

namespace lightning::detail {

/// Where a closure capturing values of types Caps, in this order, holds each: the layout of
/// a struct with those members (what GCC and Clang give an explicit capture list).
template <class... Caps>
struct CaptureLayout {
  static constexpr std::size_t count = sizeof...(Caps);
  static constexpr std::size_t align = std::max({std::size_t{1}, alignof(Caps)...});
  static constexpr std::array<std::size_t, count> offsets = [] {
    std::array<std::size_t, count> at{};
    const std::size_t sizes[] = {0, sizeof(Caps)...};
    const std::size_t aligns[] = {1, alignof(Caps)...};
    std::size_t end = 0;
    for (std::size_t k = 0; k < count; ++k) {
      at[k] = (end + aligns[k + 1] - 1) / aligns[k + 1] * aligns[k + 1];
      end = at[k] + sizes[k + 1];
    }
    return at;
  }();
  /// sizeof of such a struct (an empty closure has one byte).
  static constexpr std::size_t size = [] {
    if constexpr (count == 0) {
      return std::size_t{1};
    } else {
      const std::size_t sizes[] = {sizeof(Caps)...};
      const std::size_t end = offsets[count - 1] + sizes[count - 1];
      return (end + align - 1) / align * align;
    }
  }();
};

/// Whether T can be a LIGHTNING_LAMBDA capture on lightning::Distributed.
template <class T>
inline constexpr bool is_lambda_capture_v = is_view_v<T> || std::is_arithmetic_v<T>;

/// A lambda kernel's name: its type's, which is unique, and where the macro is
/// ("main::{lambda(int, double&)#2} at yax.cpp:97").
std::string lambda_kernel_name(const std::type_info& type, const char* file, int line);
/// "KOKKOS_INLINE_FUNCTION auto operator()(params) const body" from the macro's
/// "(params) body": the text GPU code pastes into the struct of the captures.
std::string lambda_operator_source(const char* code);
/// Throws Error(kInvalidArgument): capture `index` of `captures` is not where the
/// capture-list order puts it (at byte `offset` of the closure).
[[noreturn]] void throw_capture_layout_error(const char* file, const char* captures,
                                             std::size_t index, std::size_t offset);

template <class W, class L, class Text, class... Caps>
KernelRegistration register_kernel_lambda();

}  // namespace lightning::detail

namespace lightning {

/// A lambda made by LIGHTNING_LAMBDA: its closure (whose captures are Caps, in order) and,
/// through Text, the macro's text. Calls forward to the lambda.
template <class Text, class L, class... Caps>
struct KernelLambda : detail::ReduceValueType<typename detail::OperatorShape<L>::value_type> {
  using Layout = detail::CaptureLayout<Caps...>;
  L lambda;

  template <class... Args>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(Args&&... args) const {
    lambda(std::forward<Args>(args)...);
  }

  /// The captures, as LIGHTNING_KERNEL lists a functor's members.
  auto lightning_kernel_members() const { return captures(std::index_sequence_for<Caps...>{}); }
  using lightning_kernel_type = KernelLambda;
  static inline const detail::KernelRegistration lightning_kernel_registration_ =
      detail::register_kernel_lambda<KernelLambda, L, Text, Caps...>();

 private:
  template <std::size_t... K>
  std::tuple<const Caps&...> captures(std::index_sequence<K...>) const {
    const auto* closure = reinterpret_cast<const unsigned char*>(std::addressof(lambda));
    return std::tuple<const Caps&...>(
        *std::launder(reinterpret_cast<const Caps*>(closure + Layout::offsets[K]))...);
  }
};

namespace detail {

template <class T>
struct IsKernelLambda : std::false_type {};
template <class T, class L, class... C>
struct IsKernelLambda<KernelLambda<T, L, C...>> : std::true_type {};

template <class T, class L, class... C>
struct OperatorShape<KernelLambda<T, L, C...>> : OperatorShape<L> {};
template <class T, class L, class... C, class Tag>
struct TakesTeamMember<KernelLambda<T, L, C...>, Tag> : TakesTeamMember<L, Tag> {};

/// What LIGHTNING_LAMBDA expands to: make_kernel_lambda(text, lambda)(captures...) is the
/// lambda as a KernelLambda, after checking that its closure holds the captures where their
/// order puts them. (The captures come last so that an empty list needs no comma.)
template <class Text, class L>
struct KernelLambdaMaker {
  const L& lambda;

  template <class... Caps>
  KernelLambda<Text, L, std::remove_cv_t<Caps>...> operator()(const Caps&... captures) const {
    using K = KernelLambda<Text, L, std::remove_cv_t<Caps>...>;
    static_assert(sizeof(K) == sizeof(L), "a KernelLambda is its closure");
    K kernel{{}, lambda};
    if constexpr ((is_lambda_capture_v<std::remove_cv_t<Caps>> && ...)) {
      const auto* closure = reinterpret_cast<const unsigned char*>(std::addressof(kernel.lambda));
      std::size_t k = 0;
      // A copy of a lightning::View or of a number has the bytes of the original.
      auto check = [&](const auto& value) {
        const std::size_t at = K::Layout::offsets[k];
        if (sizeof(L) != K::Layout::size ||
            std::memcmp(closure + at, std::addressof(value), sizeof value) != 0)
          throw_capture_layout_error(Text::file(), Text::captures(), k, at);
        ++k;
      };
      (check(captures), ...);
    }
    return kernel;
  }
};
template <class Text, class L>
KernelLambdaMaker<Text, L> make_kernel_lambda(Text, const L& lambda) {
  return {lambda};
}

template <class W, class L, class Text, class... Caps>
KernelRegistration register_kernel_lambda() {
  using Shape = OperatorShape<L>;
  static_assert((!is_view_subview_v<Caps> && ...),
                "LIGHTNING_LAMBDA: a subview cannot be captured (the runtime gives a kernel "
                "chunks of whole arrays): capture the View, and take Kokkos::subview of it inside "
                "the lambda");
  static_assert((is_lambda_capture_v<Caps> && ...),
                "LIGHTNING_LAMBDA captures lightning::Views and arithmetic variables by value, "
                "named in its capture list (no &, this or init-captures): a Kokkos::View must "
                "become a lightning::View, and a pointer or reference cannot travel to another "
                "device or rank");
  static_assert(Shape::is_const, "LIGHTNING_LAMBDA: the lambda cannot be mutable");
  static_assert(takes_team_member_v<L> || (Shape::rank >= 1 && Shape::rank <= 3),
                "LIGHTNING_LAMBDA: the lambda takes 1 to 3 integer indices, or a team member "
                "(const TeamPolicy<lightning::Distributed>::member_type&), and for "
                "parallel_reduce a last Value& update: (const int i, double& sum) { ... }");
  static_assert(
      sizeof(L) == CaptureLayout<Caps...>::size && alignof(L) == CaptureLayout<Caps...>::align,
      "LIGHTNING_LAMBDA: the closure does not hold exactly its capture list");
  kernel::KernelInfo info = operator_info<W>(
      lambda_kernel_name(typeid(L), Text::file(), Text::line()), Text::annotation());
  const std::vector<std::string> names = split_member_list(Text::captures());
  std::size_t k = 0;
  auto add = [&](auto type) {
    using M = typename decltype(type)::type;
    const std::size_t at = CaptureLayout<Caps...>::offsets[k];
    add_kernel_member<M>(info, names.at(k++), static_cast<std::ptrdiff_t>(at));
  };
  (add(std::common_type<Caps>{}), ...);
  return register_kernel_info(std::move(info), lambda_operator_source(Text::code()).c_str());
}

}  // namespace detail
}  // namespace lightning

#define LIGHTNING_DETAIL_UNPAREN(...) __VA_ARGS__
#if defined(__CUDACC__)
#define LIGHTNING_DETAIL_LAMBDA_SPACES __host__ __device__
#else
#define LIGHTNING_DETAIL_LAMBDA_SPACES
#endif

/// A Kokkos lambda for every device: LIGHTNING_LAMBDA("annotation", (captures...),
/// (parameters) { body }). See the top of this file.
#define LIGHTNING_LAMBDA(Annotation, Captures, ...)                                    \
  ::lightning::detail::make_kernel_lambda(                                             \
      [] {                                                                             \
        struct lightning_lambda_text {                                                 \
          static const char* annotation() { return Annotation; }                       \
          static const char* captures() { return #Captures; }                          \
          static const char* code() { return #__VA_ARGS__; }                           \
          static const char* file() { return __FILE__; }                               \
          static int line() { return __LINE__; }                                       \
        };                                                                             \
        return lightning_lambda_text{};                                                \
      }(),                                                                             \
      [LIGHTNING_DETAIL_UNPAREN Captures] LIGHTNING_DETAIL_LAMBDA_SPACES __VA_ARGS__)( \
      LIGHTNING_DETAIL_UNPAREN Captures)
