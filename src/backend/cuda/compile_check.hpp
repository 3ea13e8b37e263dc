// The compile check: every registered kernel with GPU code compiled by NVRTC for one
// architecture, without a GPU, as a GPU worker would compile it (for CI and build steps).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace lightning::cuda {

/// A compute capability, e.g. 9.0.
struct Architecture {
  int major = 0;
  int minor = 0;

  /// "sm_90", "90" or "9.0"; nullopt for anything else.
  static std::optional<Architecture> parse(const std::string& text);
  std::string to_string() const;  ///< "sm_90"
};

/// What the compile check found for one kernel.
struct KernelCompileResult {
  std::string kernel;
  bool compiled = false;
  /// Not compiled, and no failure: its value folds only with the Kokkos reducer its launch
  /// names (MinLoc, ...), so its code is specialised, and compiled, at the launch.
  bool skipped = false;
  size_t cubin_bytes = 0;
  std::string error;  ///< the NVRTC error with the kernel's name, log and source lines
};

/// Compiles every registered kernel (KernelRegistry) for `arch`, in registration-id order;
/// reduction kernels with the reduction they are written for (those whose value only the
/// launch's reducer folds are skipped). A kernel without GPU code
/// (a lambda, a team kernel in this version) fails with the error a GPU launch would give.
std::vector<KernelCompileResult> compile_registered_kernels(const Architecture& arch);

}  // namespace lightning::cuda
