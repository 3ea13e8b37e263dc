#include "backend/cuda/cuda_platform.hpp"

#include "backend/cuda/cuda_device.hpp"
#include "core/error.hpp"

namespace lightning::cuda {

CudaPlatform::CudaPlatform(const std::vector<std::pair<DeviceId, GpuInfo>>& devices,
                           std::shared_ptr<KernelImageSource> images, WaitPolicy* wait)
    : images_(std::move(images)), wait_(wait) {
  if (devices.empty())
    throw Error(ErrorKind::kInvalidArgument, "a GPU platform needs at least one device");
  for (const auto& [id, gpu] : devices) {
    auto& context = contexts_[gpu.ordinal];
    if (!context) context = std::make_unique<GpuContext>(gpu);
    gpus_[id] = context.get();
  }
  const DriverApi& api = DriverApi::get();
  for (const auto& [from, a] : contexts_)
    for (const auto& [to, b] : contexts_) {
      if (from == to) continue;
      int can = 0;
      api.check(api.cuDeviceCanAccessPeer(&can, a->device(), b->device()), "cuDeviceCanAccessPeer");
      if (!can) continue;
      a->make_current();
      const CUresult r = api.cuCtxEnablePeerAccess(b->context(), 0);
      if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        api.check(r, "cuCtxEnablePeerAccess",
                  "while enabling access from cuda:" + std::to_string(from) +
                      " to cuda:" + std::to_string(to));
      peer_pairs_.emplace_back(from, to);
    }
  pinned_ = std::make_unique<PinnedHostPool>(*gpus_.at(devices.front().first));
  memory_ = std::make_unique<CudaMemoryBackend>(gpus_, *pinned_);
}

CudaPlatform::~CudaPlatform() {
  memory_.reset();
  pinned_.reset();
}

std::unique_ptr<worker::Device> CudaPlatform::open(DeviceId id, size_t /*index*/) {
  auto it = gpus_.find(id);
  if (it == gpus_.end())
    throw Error(ErrorKind::kInternal, "the GPU platform has no device " + id.to_string());
  return std::make_unique<CudaDevice>(id, *it->second, gpus_, *pinned_, *images_, wait_);
}

}  // namespace lightning::cuda
