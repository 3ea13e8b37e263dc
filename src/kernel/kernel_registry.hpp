// Kernels known to the runtime: registered once per process, at static initialisation, under
// an id derived from the kernel's name, so every process of one binary agrees on it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"
#include "lightning_kokkos/internal/core/reduction.hpp"
#include "lightning_kokkos/internal/kernel/device_code.hpp"
#include "lightning_kokkos/internal/kernel/kernel_description.hpp"

namespace lightning::kernel {

/// Runs every thread of `threads` (global indices, row-major) on a functor whose array
/// handles point at the superblock's chunks; reduction kernels accumulate into `partial`
/// (already initialised), others get nullptr.
using HostEntry = void (*)(const void* functor, const Rect& threads, void* partial);

/// Runs one pass of a parallel_scan over `threads` (ascending), threading `value` through
/// every call of the functor with Kokkos' `final` flag: on return `value` holds its start
/// joined with every thread's contribution.
using HostScanEntry = void (*)(const void* functor, const Rect& threads, void* value, bool final);

/// Everything the runtime needs to run a kernel: on host devices (`run_host`), on GPUs
/// (`device`), and to plan it (`description`, unless a launch gives its own).
struct KernelInfo {
  std::string name;
  size_t functor_size = 0;
  KernelDescription description;  ///< empty for kernels described per launch (lambdas)
  HostEntry run_host = nullptr;
  /// For scan kernels (Kokkos parallel_scan, `operator()(i, Value& update, bool final)`):
  /// their entry point; run_host is then null.
  HostScanEntry run_host_scan = nullptr;
  /// For reduction and scan kernels: the reduction the kernel is written for (the type of
  /// its `Value& update`; a custom one carries the kernel's init/join). A reducing launch may
  /// fold with another built-in operator on the same type. Empty: the kernel does neither.
  std::optional<Reduction> reduction;
  DeviceCode device;  ///< GPU source; kind kNone: host devices only
  /// Its host code reaches arrays through lightning::View, which takes checked handles
  /// (checked mode; see worker::AccessCheck). Kernels over raw ArrayHandles run unchecked.
  bool takes_checked_handles = false;

  /// A parallel_reduce kernel (a scan kernel has a reduction too, but does not reduce).
  bool reduces() const { return reduction.has_value() && !scans(); }
  bool scans() const { return run_host_scan != nullptr; }
  /// A functor array reduction (Kokkos' value_type T[]): its values are sized by each launch
  /// (the registered reduction's value_size is 0).
  bool reduces_array() const { return reduces() && reduction->value_size == 0; }
  /// The description a launch runs under: its own (`per_launch`, for lambdas) or the
  /// registered one.
  const KernelDescription& described_by(const KernelDescription* per_launch) const {
    return per_launch ? *per_launch : description;
  }
  /// `launch` as this process runs it: a custom reduction gets its functions in this process
  /// (they never travel): a registered reducer's (Reduction::reducer) or the kernel's own
  /// init/join, called on a copy of `functor` (the launch's functor bytes) and, for an array
  /// reduction, of the launch's value size. Error(kInvalidArgument) naming the kernel when the
  /// launch's reduction does not fit the kernel's value.
  Reduction resolve(const Reduction& launch, const std::vector<uint8_t>& functor) const;
};

/// The process's kernels. Written only during static initialisation (and by tests, before
/// any runtime exists); read-only afterwards, so lookups need no lock.
class KernelRegistry {
 public:
  /// Registers `info` under the id of its name. Throws Error(kInvalidArgument) when another
  /// kernel has the same name or id (names must be unique in a binary).
  static KernelId add(KernelInfo info);
  /// The kernel with `id`; throws Error(kInvalidArgument) naming the id when unknown.
  static const KernelInfo& get(KernelId id);
  static bool contains(KernelId id);
  /// The id a kernel called `name` gets: a 64-bit hash of the name.
  static KernelId id_of(const std::string& name);
  /// Every registered kernel's id, in no particular order (e.g. to compile them all).
  static std::vector<KernelId> ids();
};

}  // namespace lightning::kernel
