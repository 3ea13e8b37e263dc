// lightning::Distributed's members and its registration with Kokkos. The registration is the
// one place where Kokkos 3.4 and 4.x differ in this file.
#include "lightning_kokkos/execution_space.hpp"

#include <ostream>

#include "driver/driver.hpp"
#include "lightning_kokkos/runtime.hpp"

#if KOKKOS_VERSION >= 40000
#define KOKKOS_IMPL_PUBLIC_INCLUDE
#include <impl/Kokkos_ExecSpaceManager.hpp>
#undef KOKKOS_IMPL_PUBLIC_INCLUDE
#else
#include <impl/Kokkos_ExecSpaceInitializer.hpp>
#endif

namespace lightning {

Distributed::Distributed(const WorkDistribution& work)
    : work_(std::make_shared<const WorkDistribution>(work)) {}

int Distributed::concurrency() {
  return is_initialized() ? static_cast<int>(detail::runtime().devices().size()) : 1;
}

namespace {
// The name of the fence Kokkos 4 makes around each event it hands a tool (not the fence a
// tool asks for, which is honoured).
constexpr const char* kToolEventFence = "Kokkos::Tools::invoke_kokkosp_callback";
}  // namespace

void Distributed::fence(const std::string& name) const {
  impl_static_fence(name);
}

// Kokkos Tools see the fence as one of this space's (begin and end fence events, with the
// name the caller gave), as they do for Kokkos' own spaces.
void Distributed::impl_static_fence(const std::string& name) {
  // Kokkos 4 fences every space around each dispatch event it hands a tool (the binding's
  // own hooks count as one), under this name. Taking part would make every launch wait for
  // all earlier ones; a tool times a launch's submission instead.
  if (name.rfind(kToolEventFence, 0) == 0) return;
  uint64_t handle = 0;
  Kokkos::Tools::beginFence(name, Kokkos::Tools::Experimental::device_id(Distributed()), &handle);
  try {
    lightning::fence();
  } catch (...) {
    Kokkos::Tools::endFence(handle);
    throw;
  }
  Kokkos::Tools::endFence(handle);
}

bool Distributed::impl_is_initialized() {
  return is_initialized();
}

#if KOKKOS_VERSION >= 40000
void Distributed::impl_initialize(const Kokkos::InitializationSettings&) {}
#endif

void Distributed::impl_finalize() {
  finalize();
}

namespace detail {
// Declared here only: it needs the runtime's configuration (see runtime.cpp).
std::string runtime_configuration();
}  // namespace detail

void Distributed::print_configuration(std::ostream& os, bool /*verbose*/) const {
  os << "lightning::Distributed:\n";
  if (!is_initialized()) {
    os << "  runtime not created (lightning::ScopeGuard)\n";
    return;
  }
  os << detail::runtime_configuration();
}

}  // namespace lightning

namespace {

#if KOKKOS_VERSION >= 40000
const int registered =
    Kokkos::Impl::initialize_space_factory<lightning::Distributed>("999_Lightning");
#else
class Initializer : public Kokkos::Impl::ExecSpaceInitializerBase {
 public:
  void initialize(const Kokkos::InitArguments&) override {}
  void finalize(const bool) override { lightning::Distributed::impl_finalize(); }
  void fence() override { lightning::Distributed::impl_static_fence("Kokkos::fence"); }
  void print_configuration(std::ostream& os, const bool detail) override {
    lightning::Distributed().print_configuration(os, detail);
  }
};
const int registered = Kokkos::Impl::initialize_space_factory<Initializer>("999_Lightning");
#endif

}  // namespace
