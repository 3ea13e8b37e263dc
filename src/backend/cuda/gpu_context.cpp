#include "backend/cuda/gpu_context.hpp"

#include <string>

namespace lightning::cuda {

GpuContext::GpuContext(const GpuInfo& gpu) : api_(DriverApi::get()), gpu_(gpu) {
  const std::string where =
      "while opening cuda:" + std::to_string(gpu.ordinal) + " (" + gpu.name + ")";
  api_.check(api_.cuDeviceGet(&device_, gpu.ordinal), "cuDeviceGet", where);
  api_.check(api_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain", where);
}

GpuContext::~GpuContext() {
  api_.cuDevicePrimaryCtxRelease(device_);
}

void GpuContext::make_current() const {
  cuda::make_current(api_, context_);
}

}  // namespace lightning::cuda
