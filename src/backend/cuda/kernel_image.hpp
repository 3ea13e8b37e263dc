// Where a GPU device gets the machine code of a kernel: a cubin with the name of its entry
// point, compiled for the device's architecture (by the JIT cache in the runtime; by hand in
// tests).
#pragma once

#include <string>
#include <vector>

#include "backend/cuda/kernel_codegen.hpp"
#include "kernel/kernel_registry.hpp"

namespace lightning::cuda {

/// A loadable image of one kernel: cuModuleLoadData takes `cubin`; `entry` names the
/// generated `extern "C" __global__ void entry(Functor f, lightning::jit::LaunchBox box,
/// void* partials)` (see lightning_kokkos/device/launch_box.hpp for the ABI).
struct KernelImage {
  std::vector<char> cubin;
  std::string entry;
};

/// Produces kernel images; shared by every GPU of a process, so implementations are
/// thread-safe. An image returned stays valid and unchanged for the source's lifetime.
class KernelImageSource {
 public:
  virtual ~KernelImageSource() = default;
  /// The image of `kernel` for compute capability `sm_major`.`sm_minor`, specialised with
  /// `spec` (block size; a reduction's operator and value type). Throws lightning::Error
  /// (kCuda with the compiler's log, or for a kernel without GPU source) naming the kernel.
  virtual const KernelImage& image(const kernel::KernelInfo& kernel, int sm_major, int sm_minor,
                                   const KernelSpecialization& spec) = 0;
};

}  // namespace lightning::cuda
