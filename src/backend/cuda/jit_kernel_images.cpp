#include "backend/cuda/jit_kernel_images.hpp"

#include "core/error.hpp"

namespace lightning::cuda {

const KernelImage& JitKernelImages::image(const worker::KernelInfo& kernel, int sm_major,
                                          int sm_minor) {
  // The kernel's registration says how its values combine only as host functions: the
  // generated reduction epilogue needs the operator and value type (KernelSpecialization).
  if (kernel.reducer.value_size != 0)
    throw Error(ErrorKind::kCuda, "kernel '" + kernel.name +
                                      "': reductions do not run on GPUs yet (the runtime does "
                                      "not know the reduction's operator); use host devices");
  return cache_.get(kernel, sm_major, sm_minor);
}

}  // namespace lightning::cuda
