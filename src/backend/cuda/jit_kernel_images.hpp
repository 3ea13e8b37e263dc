// The runtime's kernel images: generated and compiled by the JIT cache.
#pragma once

#include <string>

#include "backend/cuda/jit_cache.hpp"
#include "backend/cuda/kernel_image.hpp"

namespace lightning::cuda {

/// Kernel images from a JitCache (NVRTC, cached in memory and in `directory`). Kernels
/// without GPU code and reductions with a custom reducer fail with Error(kCuda) naming the
/// kernel.
class JitKernelImages final : public KernelImageSource {
 public:
  /// `directory` empty: memory only (see JitCache::directory_for).
  explicit JitKernelImages(std::string directory) : cache_(std::move(directory)) {}

  const KernelImage& image(const worker::KernelInfo& kernel, int sm_major, int sm_minor,
                           const KernelSpecialization& spec) override {
    return cache_.get(kernel, sm_major, sm_minor, spec);
  }
  JitCache& cache() { return cache_; }

 private:
  JitCache cache_;
};

}  // namespace lightning::cuda
