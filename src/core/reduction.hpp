// How values combine in a reduction: the operator and the value's type, with the identity and
// the join that every layer (planner, devices, generated GPU code, the Kokkos binding) uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lightning_kokkos/internal/core/data_type.hpp"

namespace lightning {

/// The operator of a reduction: an annotation's `reduce(op)`, a Kokkos reducer. kCustom joins
/// with functions of the kernel (a Kokkos functor's init/join); the language cannot spell it.
enum class ReduceOp : uint8_t { kSum, kProd, kMin, kMax, kCustom };

/// "+", "*", "min", "max" (as the annotation language writes them) or "reducer".
std::string_view name_of(ReduceOp op);

/// A reduction's operator on values of one type. Built-in operators fold `type` elements:
///   - + and * on integers wrap around modulo 2^bits (two's complement), never UB;
///   - min and max on floating point follow IEEE 754-2019 minimum/maximum (a NaN operand gives
///     NaN, -0 < +0), so the fold is commutative and associative and a result does not depend
///     on the shape of the fold tree.
/// A custom reduction joins `value_size` bytes with `custom_init`/`custom_join`; those are
/// addresses in this process (from the kernel registry), so they never travel: a receiver
/// takes them from its own registry (see kernel::KernelInfo::resolve). A kernel's own init and
/// join are members of its functor (Kokkos calls them on the functor: an array reduction's
/// read its value_count), so they are called on `functor`, the launch's functor bytes.
struct Reduction {
  ReduceOp op = ReduceOp::kSum;
  DataType type = DataType::kFloat64;  ///< kCustom: kUInt8 (the value is bytes)
  /// Bytes of one value (size_of(type) when built in). In a kernel's registered reduction, 0
  /// means an array reduction (Kokkos' value_type T[]): each launch gives the size.
  uint32_t value_size = 8;
  /// kCustom: the registered reducer (kernel::ReducerRegistry) it is, a Kokkos reducer such as
  /// MinLoc; 0 for the launch's kernel's own init/join. Travels with the launch.
  uint64_t reducer = 0;
  /// The custom functions; `functor` is what they are called on (registered reducers ignore
  /// it).
  void (*custom_init)(const void* functor, void* value) = nullptr;
  void (*custom_join)(const void* functor, void* dst, const void* src) = nullptr;
  /// kCustom of a kernel's own init/join: the bytes of the launch's functor in this process
  /// (KernelInfo::resolve sets them); null elsewhere. Never travels.
  std::shared_ptr<const void> functor;

  /// `op` (not kCustom) on values of `type`.
  static Reduction builtin(ReduceOp op, DataType type);
  /// A reduction of `value_size`-byte values by the given functions (either may be null until
  /// resolved in the process that runs it).
  static Reduction custom(size_t value_size, void (*init)(const void*, void*) = nullptr,
                          void (*join)(const void*, void*, const void*) = nullptr);

  bool is_custom() const { return op == ReduceOp::kCustom; }
  /// A kernel's value that only the Kokkos reducer its launch names folds (MinLoc, ...): a
  /// custom reduction with neither a registered reducer nor functions of its own.
  bool awaits_launch_reducer() const { return is_custom() && reducer == 0 && !custom_join; }
  /// The identity's bytes (value_size of them): 0 for +, 1 for *, the largest value
  /// (+infinity) for min, the lowest (-infinity) for max. Error(kInternal) for kCustom.
  std::vector<uint8_t> identity() const;
  /// Sets `value` to the identity (custom: calls custom_init).
  void init(void* value) const;
  /// dst = dst op src, one value each (custom: calls custom_join). Values are loaded and
  /// stored with memcpy: no alignment needed.
  void join(void* dst, const void* src) const;
  /// join over `count` consecutive values: dst[i] = dst[i] op src[i]. Built-in only.
  void join_n(void* dst, const void* src, size_t count) const;
  /// Differs whenever generated code would: "+/double", "reducer/24" (a kernel's own),
  /// "reducer:<id in hex>/24" (a registered reducer).
  std::string key() const;

  /// Equal operator, type and size (the functions and the functor are not compared: a process
  /// has one set per kernel).
  friend bool operator==(const Reduction& a, const Reduction& b) {
    return a.op == b.op && a.type == b.type && a.value_size == b.value_size &&
           a.reducer == b.reducer;
  }
  friend bool operator!=(const Reduction& a, const Reduction& b) { return !(a == b); }
};

}  // namespace lightning
