// One GPU's primary context, held for as long as the runtime drives the GPU.
#pragma once

#include <cuda.h>

#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_discovery.hpp"

namespace lightning::cuda {

/// Retains the primary context of a GPU (the one the CUDA runtime and other libraries of the
/// process share) and releases it on destruction. Threads make it current with
/// make_current() before talking to the GPU.
class GpuContext {
 public:
  /// Throws Error(kCuda) naming the GPU when the driver refuses.
  explicit GpuContext(const GpuInfo& gpu);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  const GpuInfo& gpu() const { return gpu_; }
  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  /// Makes the context current on the calling thread.
  void make_current() const;
  const DriverApi& api() const { return api_; }

 private:
  const DriverApi& api_;
  GpuInfo gpu_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

}  // namespace lightning::cuda
