// How a kernel accesses an array: the modes and reduction operators of the language.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/reduction.hpp"

namespace lightning::annotation {

/// The access mode of a rule (and of an array's merged region).
enum class AccessMode : uint8_t {
  kRead,   ///< the threads only read the region
  kWrite,  ///< the threads only write (part of) the region
  /// The threads write every element of the region and read none: its old contents need
  /// not be fetched (the kernel promises what SYCL's no_init and Celerity's discard_write do)
  kOverwrite,
  kReadWrite,  ///< the threads read and write the region
  kReduce,     ///< the threads combine values into the region with a ReduceOp (never kCustom)
};

/// "read", "write", "overwrite", "readwrite" or "reduce".
std::string_view name_of(AccessMode mode);

}  // namespace lightning::annotation
