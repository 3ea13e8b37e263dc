// Generated GPU source: the entry point NVRTC compiles for a kernel, following the kernel
// ABI (docs/cuda.md):
//   extern "C" __global__ void <entry>(Functor f, lightning::jit::LaunchBox box, void* partials)
#pragma once

#include <string>

#include "core/data_type.hpp"
#include "core/reduction.hpp"
#include "kernel/kernel_registry.hpp"

namespace lightning::cuda {

/// What a launch fixes in the generated code beyond the kernel itself; part of the JIT
/// cache key. One compile per kernel and specialisation, not per superblock: per-superblock
/// values (chunk offsets, strides, the superblock) stay parameters (docs/cuda.md, "What is
/// baked").
struct KernelSpecialization {
  int block_size = 256;  ///< threads per block, baked: launch bounds and reduction scratch
  /// Reduction and scan kernels: how values combine (+ * min max on a number type, a registered
  /// reducer, the functor's own init/join; an array reduction's value_size is 0, its launches
  /// give it).
  Reduction reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  /// Checked mode: every array access goes through the handle's CheckedRegion
  /// (LIGHTNING_CHECKED_ACCESS; see worker::AccessCheck).
  bool checked = false;

  /// A text that differs whenever the generated code would ("b256", "b256/+/double",
  /// "b256/checked"); `has_value`: the kernel reduces or scans (KernelInfo::reduction).
  std::string key(bool has_value) const;
};

/// One generated translation unit.
struct GeneratedKernel {
  std::string source;
  std::string entry;  ///< the extern "C" __global__ function's name (grid-stride: any grid)
  /// A second entry point with the same parameters that runs one index per thread and no
  /// loop, valid only for grids that cover the box; empty when not generated (rank 1
  /// without reduction only).
  std::string cover_entry;
  std::string file_name;  ///< for NVRTC's messages, e.g. "lk_test__Saxpy.cu"
};

/// The name of the generated entry point (the same for every kernel: one per module).
inline constexpr const char* kEntryName = "lightning_entry";
/// The name of the one-index-per-thread entry point, where there is one (see GeneratedKernel).
inline constexpr const char* kCoverEntryName = "lightning_entry_cover";
/// A parallel_scan kernel's final pass (its kEntryName entry is the partial pass, a reduction
/// of the functor called with final = false), with a fourth parameter, jit::ScanState.
inline constexpr const char* kScanFinalEntryName = "lightning_scan_final";
// An array reduction's kEntryName entry (KernelInfo::reduces_array) takes a fourth parameter,
// `unsigned long long value_bytes` (the launch's value size), and keeps each thread's value in
// the block's dynamic shared memory: blockDim.x * value_bytes bytes.

/// Indices each lane of a scan's final pass runs per tile, for values of `value_size` bytes:
/// their contributions stay in registers between the tile's two walks, at most 48 of them
/// and 256 bytes. For int32 on an H100, 48 (and 56) measured 0.81 of the driver's copy
/// bandwidth, 64 measured 0.76, 40 0.77, 32 0.68 (docs/results.md): more keep the walk's
/// loads in flight, fewer let more blocks stay resident. A tile is the block's threads
/// times this many indices (jit::ScanState).
constexpr int scan_rounds(size_t value_size) {
  return value_size >= 16 ? 16 : value_size >= 8 ? static_cast<int>(256 / value_size) : 48;
}

/// Generates the entry point of `info` (DeviceCode kFunctorBody, kTeamFunctorBody or kPorted).
/// Throws Error(ErrorKind::kCuda) naming the kernel when it has no GPU code, when a
/// reduction's fold cannot be written for GPUs (a functor's own init/join outside its source,
/// a reducer without a GPU spelling, values of another size), or when its layout cannot be
/// reproduced (overlapping members).
GeneratedKernel generate_kernel(const kernel::KernelInfo& info, const KernelSpecialization& spec);

/// Breaks one-line source text (a stringified macro argument) into lines after `{`, `;` and
/// `}` outside parentheses and literals, indented by brace depth, so that compile errors
/// point at a statement. Public for tests.
std::string reflow_source(const std::string& text);

}  // namespace lightning::cuda
