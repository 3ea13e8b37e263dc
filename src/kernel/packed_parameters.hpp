// The bytes of a ported CUDA kernel: its parameters packed in order, then its launch shape.
// The one statement of that layout, for the registration (from the declared parameters) and
// for the host code of the CUDA shim (from the function's parameter types).
#pragma once

#include <cstddef>

namespace lightning::kernel {

/// Arrays are their ArrayHandle, aligned to 8 bytes; scalars are aligned to their size.
inline constexpr size_t kPackedArrayAlignment = 8;

/// Where a parameter of `alignment` goes when the ones before it end at byte `end`.
constexpr size_t packed_offset(size_t end, size_t alignment) {
  return (end + alignment - 1) / alignment * alignment;
}
/// Where the launch shape (jit::PortedLaunch) goes when the parameters end at byte `end`.
constexpr size_t packed_launch_offset(size_t end) {
  return packed_offset(end, 8);
}

}  // namespace lightning::kernel
