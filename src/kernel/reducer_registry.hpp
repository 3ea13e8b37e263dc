// The reducers a launch may name besides its kernel's own init/join: Kokkos' reducer classes
// (LAnd, MinLoc, MinMaxLoc, ...) on the values they fold, registered at static
// initialisation so that every rank of one binary knows each by the same id.
#pragma once

#include <cstdint>
#include <string>

#include "lightning_kokkos/internal/core/reduction.hpp"

namespace lightning::kernel {

/// One registered reducer: how its values fold on the host, and how GPU code spells it.
struct ReducerInfo {
  std::string name;  ///< unique: "Kokkos::MinLoc<double, int>"
  uint32_t value_size = 0;
  void (*init)(const void* unused_functor, void* value) = nullptr;
  void (*join)(const void* unused_functor, void* dst, const void* src) = nullptr;
  /// The reducer class under NVRTC (device/kokkos_core.hpp), constructible from a value_type&
  /// and with init(value_type&) and join(value_type&, const value_type&): "Kokkos::MinLoc<
  /// double, int32_t>". Empty: host devices only.
  std::string device_type;
  /// The update parameters a kernel's operator takes for one value: 1, or for several
  /// reducers of one parallel_reduce one per reducer (GPU code passes `value.part<k>()`).
  uint32_t updates = 1;
};

/// The process's reducers, by id (a hash of the name).
class ReducerRegistry {
 public:
  /// Registers `info` (once per name; a second registration of one name returns its id).
  /// Throws Error(kInvalidArgument) when two names share an id.
  static uint64_t add(ReducerInfo info);
  /// Throws Error(kInvalidArgument) for an id no reducer has.
  static const ReducerInfo& get(uint64_t id);
  /// The Reduction of reducer `id`, its functions those of this process.
  static Reduction reduction(uint64_t id);
};

}  // namespace lightning::kernel
