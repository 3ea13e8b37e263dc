// NVRTC: CUDA C++ source text to a cubin for one GPU architecture, inside the process.
#pragma once

#include <string>
#include <vector>

namespace lightning::cuda {

/// One translation unit for NVRTC. `kernel_name` is the user's name for what is compiled
/// (a LIGHTNING_KERNEL type, a ported kernel); errors show it.
struct NvrtcSource {
  std::string kernel_name;
  std::string file_name;  ///< as NVRTC prints it in its log, e.g. "Stencil.cu"
  std::string text;
};

/// A successful compile: the cubin and NVRTC's log (warnings; often empty).
struct NvrtcOutput {
  std::vector<char> cubin;
  std::string log;
};

/// A header NVRTC may `#include` by `name`, given as text (NVRTC reads no files here).
struct EmbeddedHeader {
  const char* name;  ///< e.g. "lightning_kokkos/device/array_handle.hpp"
  const char* text;
};

/// The project's device headers (include/lightning_kokkos/device/), embedded at build time,
/// plus the few standard headers they use; every compile gets them.
const std::vector<EmbeddedHeader>& embedded_device_headers();

/// The options every compile for `sm_<major><minor>` gets: real architecture (so NVRTC
/// emits a cubin, not PTX), C++17, functions without an execution space are device
/// functions (kernel bodies written for the host compile unchanged), line info for profilers,
/// and no contraction of a * b + c into fused multiply-adds, so that + - * / round as on the
/// host and GPU devices compute what host devices compute.
std::vector<std::string> nvrtc_options(int sm_major, int sm_minor);

/// NVRTC's version, "major.minor" (part of every JIT cache key).
std::string nvrtc_version();

/// Compiles `source` with `options` and the embedded device headers. Throws
/// Error(ErrorKind::kCuda) naming the kernel, with NVRTC's log and the source lines around
/// each reported error.
NvrtcOutput compile_to_cubin(const NvrtcSource& source, const std::vector<std::string>& options);

/// The lines of `text` around each `file(line): error` of `log` (±`context` lines, numbered,
/// the reported line marked with '>'); empty when the log names no line. Used in compile
/// errors; public for tests.
std::string source_excerpt(const std::string& text, const std::string& file_name,
                           const std::string& log, int context = 3);

}  // namespace lightning::cuda
