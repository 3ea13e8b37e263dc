#include "backend/cuda/jit_kernel_images.hpp"

#include "core/error.hpp"

namespace lightning::cuda {

const KernelImage& JitKernelImages::image(const worker::KernelInfo& kernel, int sm_major,
                                          int sm_minor) {
  if (kernel.reducer.value_size == 0) return cache_.get(kernel, sm_major, sm_minor);
  // The generated epilogue reduces each block with the operator; the host joins the blocks.
  KernelSpecialization spec;
  spec.reduce_op = kernel.reducer.op;
  spec.reduce_type = kernel.reducer.type;
  return cache_.get(kernel, sm_major, sm_minor, spec);
}

}  // namespace lightning::cuda
