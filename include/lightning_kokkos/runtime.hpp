// The process's one lightning runtime: created by lightning::ScopeGuard (or initialize()),
// used by lightning::View, lightning::Distributed and the Kokkos dispatch specialisations.
#pragma once

#include <cstddef>

namespace lightning {

namespace driver {
class Driver;
}

/// Creates the runtime from the process's configuration (environment `LIGHTNING_*` and the
/// `--lightning-*` arguments, which are removed from argv). Call it after Kokkos::initialize
/// and before creating any lightning::View. Throws Error(kConfig) for a bad configuration and
/// Error(kInvalidArgument) when the runtime already exists.
void initialize(int& argc, char* argv[]);
/// Waits for everything submitted (throwing the first task error, as fence() does), then
/// destroys the runtime. Views still alive afterwards are empty shells: destroying them is
/// harmless, using them throws. Does nothing when no runtime exists.
void finalize();
/// Whether initialize() ran and finalize() did not.
bool is_initialized();
/// Waits for every launch, copy and fill submitted so far (Kokkos::fence() does it too);
/// throws an Error for the first task that failed since the last fence (kTask when a kernel
/// threw; the underlying error's kind, e.g. kOutOfMemory, otherwise).
void fence();

/// Whether the runtime runs in checked mode (setting `check-access`: kernels' element
/// accesses checked against their annotations on host devices). False without a runtime.
bool checks_accesses();

/// How many devices the runtime runs on, over all ranks (the same on every rank): what a
/// program divides its arrays and work by. Throws Error(kInvalidArgument) without a runtime.
std::size_t device_count();

/// initialize() in its constructor, finalize() in its destructor. Declare it after
/// Kokkos::ScopeGuard, so it goes first. A task error found by the final fence is printed
/// to stderr (a destructor must not throw).
class ScopeGuard {
 public:
  ScopeGuard(int& argc, char* argv[]);
  ~ScopeGuard();
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;
};

namespace detail {
/// The runtime's driver; throws Error(kInvalidArgument) saying how to create it when there is
/// none. Host application thread only.
driver::Driver& runtime();
}  // namespace detail

}  // namespace lightning
