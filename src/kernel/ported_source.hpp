// What the runtime reads from a ported CUDA kernel's source text: its __launch_bounds__
// (which CUDA allows on __global__ functions only, so the generated entry point takes them
// over), and whether it reads gridDim, or blockIdx outside the kernel's function (which the
// entry point then provides for the whole launch, not the superblock's grid).
#pragma once

#include <cstdint>
#include <string>

namespace lightning::kernel {

/// A ported kernel's source as the generated entry point uses it.
struct PortedSource {
  /// The source with every `__launch_bounds__(...)` replaced by spaces (newlines kept, so
  /// that compiler messages point at the user's lines).
  std::string text;
  /// The arguments of `function`'s `__launch_bounds__`, e.g. "256, 2"; empty: it has none.
  std::string launch_bounds;
  /// Their first argument, the most threads per block, when it is an integer literal; else 0.
  int64_t max_threads = 0;
  /// Whether the source names gridDim (outside comments and literals).
  bool uses_grid_dim = false;
  /// Whether it names blockIdx outside `function` (in a __device__ helper), which must then
  /// see the block's index in the whole grid too, not the superblock's hardware one.
  bool uses_block_index_elsewhere = false;
  /// Whether it declares __constant__ memory, which a ported kernel cannot be given (no
  /// cudaMemcpyToSymbol reaches it: it would read zeros).
  bool uses_constant_memory = false;
};

/// Reads `source`, the translation unit that defines the __device__ function `function`.
/// Comments and string or character literals are skipped.
PortedSource read_ported_source(const std::string& source, const std::string& function);

}  // namespace lightning::kernel
