// What the binding learns from Kokkos through its tools interface, which is the only way
// Kokkos hands out a dispatch's label or tells of its allocations.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace lightning::detail {

/// Kokkos Tools callbacks, installed while the runtime exists and chained to a tool loaded
/// before (its callbacks still run, first): the label of the parallel_for, parallel_reduce or
/// parallel_scan being dispatched on each thread, and the address ranges of the live Kokkos
/// allocations (so that a kernel capturing a plain Kokkos::View is caught at its launch).
/// One instance at a time (the C interface takes plain function pointers); the runtime owns it.
class KokkosToolHooks {
 public:
  /// Installs the callbacks.
  KokkosToolHooks();
  /// Puts back the callbacks found at installation.
  ~KokkosToolHooks();
  KokkosToolHooks(const KokkosToolHooks&) = delete;
  KokkosToolHooks& operator=(const KokkosToolHooks&) = delete;

  /// The label of the Kokkos dispatch in progress on this thread, as Kokkos gives it (its
  /// default, a type name, when the program gave none); empty outside a dispatch.
  static std::string current_label();

  /// The label of the live Kokkos allocation holding `address` (allocated while the hooks
  /// were installed), or nothing.
  std::optional<std::string> allocation_holding(uintptr_t address) const;

 private:
  struct Allocation {
    uintptr_t end = 0;
    std::string label;
  };
  static void begin_dispatch(const char* label, uint32_t device, uint64_t* id);
  static void begin_parallel_for(const char* label, uint32_t device, uint64_t* id);
  static void begin_parallel_reduce(const char* label, uint32_t device, uint64_t* id);
  static void begin_parallel_scan(const char* label, uint32_t device, uint64_t* id);
  static void end_parallel_for(uint64_t id);
  static void end_parallel_reduce(uint64_t id);
  static void end_parallel_scan(uint64_t id);
  static void end_dispatch();
  static void allocate(Kokkos::Tools::SpaceHandle space, const char* label, const void* ptr,
                       uint64_t size);
  static void deallocate(Kokkos::Tools::SpaceHandle space, const char* label, const void* ptr,
                         uint64_t size);

  Kokkos::Tools::Experimental::EventSet previous_;  ///< the callbacks found at installation
  mutable std::mutex mutex_;
  std::map<uintptr_t, Allocation> allocations_;   ///< by first byte
  uintptr_t lowest_ = UINTPTR_MAX, highest_ = 0;  ///< bounds of every allocation seen
};

}  // namespace lightning::detail
