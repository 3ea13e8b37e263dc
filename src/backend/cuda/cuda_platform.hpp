// A worker's GPUs: their contexts, memory backend and devices.
#pragma once

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/cuda/cuda_memory_backend.hpp"
#include "backend/cuda/gpu_context.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "backend/cuda/kernel_image.hpp"
#include "backend/cuda/pinned_host_pool.hpp"
#include "core/wait_policy.hpp"
#include "worker/device_platform.hpp"

namespace lightning::cuda {

/// The GPUs of one worker. Each device of the worker is one GPU (two devices may share one,
/// with a pool each); the primary contexts are retained for the platform's lifetime, and
/// peer access is enabled between every two of its GPUs that support it, so that copies
/// between them go over NVLink or PCIe directly.
class CudaPlatform final : public worker::DevicePlatform {
 public:
  /// `devices`: each device id of the worker with its GPU. `images` and `wait` (optional: the
  /// process's WaitPolicy, which the devices count their operations in) must outlive the
  /// platform. Throws Error(kCuda) when a context cannot be retained.
  CudaPlatform(const std::vector<std::pair<DeviceId, GpuInfo>>& devices,
               std::shared_ptr<KernelImageSource> images, WaitPolicy* wait = nullptr);
  ~CudaPlatform() override;

  worker::MemoryBackend& memory() override { return *memory_; }
  std::unique_ptr<worker::Device> open(DeviceId id, size_t index) override;

  /// Pairs of GPU ordinals (from, to) with peer access enabled.
  const std::vector<std::pair<int, int>>& peer_pairs() const { return peer_pairs_; }
  PinnedHostPool& pinned() { return *pinned_; }

 private:
  std::shared_ptr<KernelImageSource> images_;
  WaitPolicy* wait_;
  std::unordered_map<int, std::unique_ptr<GpuContext>> contexts_;  // by ordinal
  std::unordered_map<DeviceId, const GpuContext*> gpus_;
  std::vector<std::pair<int, int>> peer_pairs_;
  std::unique_ptr<PinnedHostPool> pinned_;
  std::unique_ptr<CudaMemoryBackend> memory_;
};

}  // namespace lightning::cuda
