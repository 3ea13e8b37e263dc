// Host runs of a kernel without its View element checks, where they cannot fire: every View
// the kernel lists is bound to a chunk (not checked mode, and named by the annotation). The
// range entry points (kernel.hpp) and the team entry point (team_policy.hpp) both choose
// their call here.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "lightning_kokkos/view.hpp"

namespace lightning::detail {

/// Whether a kernel member is a lightning::View bound to a chunk (other members: true).
template <class T>
bool member_bound(const T&) {
  return true;
}
template <class D, class... P>
bool member_bound(const View<D, P...>& v) {
  return v.data() != nullptr;
}

/// Whether F lists its members (LIGHTNING_KERNEL functors and LIGHTNING_LAMBDA lambdas; a
/// lambda given to lightning::annotate has none to list).
template <class F, class = void>
struct ListsMembers : std::false_type {};
template <class F>
struct ListsMembers<F, std::void_t<decltype(std::declval<const F&>().lightning_kernel_members())>>
    : std::true_type {};

/// Whether every View among F's listed members is bound: not in checked mode, and every one
/// named by its annotation.
template <class F>
bool members_bound(const F& f) {
  return std::apply([](const auto&... m) { return (member_bound(m) && ...); },
                    f.lightning_kernel_members());
}

/// F called where members_bound(f) held: before each call it tells the compiler that every
/// listed View is bound, so that the element checks of View::operator() fold away and the
/// host loop vectorises as it would over Kokkos Views (a float store does not change the
/// pointers, so the fact holds across iterations).
template <class F>
struct BoundCall {
  const F& f;
  template <class... A>
  void operator()(A&&... a) const {
#if defined(__GNUC__)
    std::apply(
        [](const auto&... m) { ((member_bound(m) ? void() : __builtin_unreachable()), ...); },
        f.lightning_kernel_members());
#endif
    f(std::forward<A>(a)...);
  }
};

/// Where the compiler supports it, inlines every call in the function's body: the kernel's
/// operator() is called from two loops, which must both see its body.
#if defined(__GNUC__)
#define LIGHTNING_FLATTEN __attribute__((flatten))
#else
#define LIGHTNING_FLATTEN
#endif

/// `run(BoundCall<F>{f})` where F lists its members and they are all bound, else `run(f)`
/// (whose element checks then report an unbound View or go through checked mode's records):
/// `run` gets what the host loop calls.
template <class F, class Run>
LIGHTNING_FLATTEN void run_bound_or_checked(const F& f, Run&& run) {
  if constexpr (ListsMembers<F>::value) {
    if (members_bound(f)) return run(BoundCall<F>{f});
  }
  run(f);
}

}  // namespace lightning::detail
