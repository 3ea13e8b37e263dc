// Kokkos dispatch for lightning::Distributed: parallel_for over a RangePolicy becomes one
// runtime launch of the functor's LIGHTNING_KERNEL.
#pragma once

#include <Kokkos_Core.hpp>
#include <memory>
#include <type_traits>
#include <vector>

#include "lightning_kokkos/execution_space.hpp"
#include "lightning_kokkos/kernel.hpp"

namespace lightning::detail {
/// Launches kernel `id` on `functor`'s bytes over [begin, end) (asynchronously).
void launch_range(KernelId id, const void* functor, std::vector<ArrayId> arrays, int64_t begin,
                  int64_t end, const Distributed& space);
}  // namespace lightning::detail

namespace Kokkos::Impl {

template <class F, class... Traits>
class ParallelFor<F, Kokkos::RangePolicy<Traits...>, lightning::Distributed> {
  using Policy = Kokkos::RangePolicy<Traits...>;
  static_assert(lightning::is_kernel_v<F>,
                "lightning::Distributed runs only functors annotated with LIGHTNING_KERNEL: add "
                "LIGHTNING_KERNEL(Name, \"annotation\", (members...), operator()...) inside the "
                "functor (lambdas cannot be distributed yet)");
  static_assert(std::is_void_v<typename Policy::work_tag>,
                "lightning::Distributed does not support work tags yet");

  F m_functor;
  Policy m_policy;

 public:
  ParallelFor(const F& functor, const Policy& policy) : m_functor(functor), m_policy(policy) {}

  void execute() const {
    if constexpr (lightning::is_kernel_v<F>) {
      lightning::detail::launch_range(
          lightning::kernel_registration<F>().id, std::addressof(m_functor),
          lightning::detail::kernel_arrays(m_functor), static_cast<int64_t>(m_policy.begin()),
          static_cast<int64_t>(m_policy.end()), m_policy.space());
    }
  }
};

}  // namespace Kokkos::Impl
