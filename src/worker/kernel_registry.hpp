// Kernels known to the runtime: registered once per process, at static initialisation, under
// an id derived from the kernel's name, so every process of one binary agrees on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lightning_kokkos/internal/annotation/kernel_signature.hpp"
#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"
#include "lightning_kokkos/internal/worker/device_code.hpp"

namespace lightning::worker {

/// Where the handle of one array parameter sits in the kernel's bytes.
struct ArraySlot {
  int param = 0;           ///< position in the signature
  size_t byte_offset = 0;  ///< of its ArrayHandle inside the functor
  int rank = 1;
};

/// Where an integer scalar parameter sits in the kernel's bytes (annotations may name it).
struct ScalarSlot {
  int param = 0;
  size_t byte_offset = 0;
  DataType type = DataType::kInt64;
};

/// How a kernel reduces to one value (parallel_reduce), when it does.
struct ReducerInfo {
  size_t value_size = 0;
  void (*init)(void* value) = nullptr;
  void (*join)(void* dst, const void* src) = nullptr;
  /// The value's type (kUInt8: bytes of a custom value). Launches choose the operator.
  DataType type = DataType::kUInt8;
};

/// What a kernel touches and where its parameters sit in its bytes, when it is given per
/// launch rather than registered (lambdas: their captures are found at launch time).
struct KernelDescription {
  std::string annotation;
  annotation::KernelSignature signature;
  std::vector<ArraySlot> arrays;
  std::vector<ScalarSlot> scalars;
};

/// Everything the runtime needs to run a kernel on a host device.
struct KernelInfo {
  std::string name;
  std::string annotation;
  annotation::KernelSignature signature;
  size_t functor_size = 0;
  std::vector<ArraySlot> arrays;
  std::vector<ScalarSlot> scalars;
  /// Runs every thread of `threads` (global indices, row-major) on a functor whose array
  /// handles point at the superblock's chunks; reduction kernels accumulate into `partial`
  /// (already initialised), others get nullptr.
  void (*run_host)(const void* functor, const Rect& threads, void* partial) = nullptr;
  ReducerInfo reducer;  ///< value_size 0: not a reduction kernel
  DeviceCode device;    ///< GPU source; kind kNone: host devices only
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

}  // namespace lightning::worker
