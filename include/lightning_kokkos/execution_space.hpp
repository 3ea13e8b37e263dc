// lightning::Distributed: a Kokkos execution space whose kernels run across every device of
// the lightning runtime. Everything that differs between Kokkos 3.4 and 4.x is in this header
// (the space's static interface) and in adapters/kokkos/execution_space.cpp (registration).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

// A Kokkos 3 built with no parallel host back-end (Debian's 3.4: Serial only) picks "serial"
// atomics, plain reads and writes, for Kokkos::atomic_*; but the members of a team run on
// threads of their own on host devices, so a team kernel's atomics would lose updates.
#if defined(KOKKOS_ENABLE_SERIAL_ATOMICS)
#error \
    "lightning_kokkos: this Kokkos makes Kokkos::atomic_* plain reads and writes (it has no parallel host back-end), but team members run on threads of their own on host devices: compile with -DKOKKOS_ENABLE_GNU_ATOMICS (targets linking LightningKokkos::lightning_kokkos get it)"
#endif

namespace lightning {

class WorkDistribution;
class Distributed;

/// The memory of lightning::View data: distributed over the devices, never addressable from
/// the host. Kokkos needs a memory space type for the execution space; no Kokkos::View can be
/// allocated in it.
struct DistributedMemory {
  using memory_space = DistributedMemory;
  using execution_space = Distributed;
  using device_type = Kokkos::Device<Distributed, DistributedMemory>;
  using size_type = std::size_t;
  static constexpr const char* name() { return "LightningDistributedMemory"; }
};

/// The execution space. An instance is a shared handle (two pointers) that may carry a work
/// distribution: `lightning::Distributed space(lightning::work::block(64000));` cuts every
/// launch on it into superblocks of 64000 threads. Without one, a launch follows the chunks
/// of its first written array. Instances compare equal when they share the same distribution.
class Distributed {
 public:
  using execution_space = Distributed;
  using memory_space = DistributedMemory;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using size_type = int64_t;
  using array_layout = Kokkos::LayoutRight;
  using scratch_memory_space = Kokkos::ScratchMemorySpace<Distributed>;

  Distributed() = default;
  explicit Distributed(const WorkDistribution& work);

  /// The work distribution of launches on this instance, or nullptr (follow the data).
  const WorkDistribution* work_distribution() const { return work_.get(); }

  /// The number of devices of the runtime (1 before it exists).
  static int concurrency();
  static int in_parallel() { return 0; }
  static const char* name() { return "LightningDistributed"; }
  uint32_t impl_instance_id() const noexcept { return 1; }

  /// Waits for everything submitted to the runtime (all instances share one queue).
  void fence(const std::string& name = "lightning::Distributed::fence") const;
  static void impl_static_fence(const std::string& name);
  /// The runtime's configuration and devices.
  void print_configuration(std::ostream& os, bool verbose = false) const;

  static bool impl_is_initialized();
#if KOKKOS_VERSION >= 40000
  static void impl_initialize(const Kokkos::InitializationSettings& settings);
#endif
  /// Called by Kokkos::finalize: finalizes the lightning runtime if it still exists.
  static void impl_finalize();

  friend bool operator==(const Distributed& a, const Distributed& b) {
    return a.work_ == b.work_;
  }
  friend bool operator!=(const Distributed& a, const Distributed& b) {
    return !(a == b);
  }

 private:
  std::shared_ptr<const WorkDistribution> work_;
};

static_assert(sizeof(Distributed) <= 2 * sizeof(void*), "Kokkos wants a small instance");

}  // namespace lightning

namespace Kokkos::Tools::Experimental {
template <>
struct DeviceTypeTraits<lightning::Distributed> {
  static constexpr DeviceType id = DeviceType::Unknown;
  static int device_id(const lightning::Distributed&) { return 0; }
};
}  // namespace Kokkos::Tools::Experimental

// A Kokkos::View in lightning's memory (the spelling of a program that names its memory or
// execution space: Kokkos::View<double*, Layout, lightning::DistributedMemory>) would fail
// deep inside Kokkos; instead it stops at one static_assert that says what to write.
namespace lightning::detail {
template <class DataType>
struct RefusedKokkosView {
  static_assert(sizeof(DataType) == 0,
                "Kokkos::View<DataType, [Layout,] lightning::DistributedMemory> (or "
                "lightning::Distributed) cannot be allocated: lightning's memory holds "
                "lightning::Views, distributed over the devices. Write "
                "lightning::View<DataType, Layout> (or lightning::ViewOf<Space, DataType, Layout> "
                "for one program on every execution space)");
};
}  // namespace lightning::detail

namespace Kokkos {
#define LIGHTNING_REFUSE_KOKKOS_VIEW_IN(...)                   \
  template <class DataType, class... Properties>               \
  class View<DataType, __VA_ARGS__, Properties...>             \
      : lightning::detail::RefusedKokkosView<DataType> {};     \
  template <class DataType, class Layout, class... Properties> \
  class View<DataType, Layout, __VA_ARGS__, Properties...>     \
      : lightning::detail::RefusedKokkosView<DataType> {};
LIGHTNING_REFUSE_KOKKOS_VIEW_IN(lightning::DistributedMemory)
LIGHTNING_REFUSE_KOKKOS_VIEW_IN(lightning::Distributed)
LIGHTNING_REFUSE_KOKKOS_VIEW_IN(Device<lightning::Distributed, lightning::DistributedMemory>)
#undef LIGHTNING_REFUSE_KOKKOS_VIEW_IN
}  // namespace Kokkos

#include "lightning_kokkos/scratch_memory_space.hpp"
