// MemoryBackend for GPUs: device pools from cuMemAlloc, host copies of chunks in pinned
// memory, copies through the driver.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

#include "backend/cuda/gpu_context.hpp"
#include "backend/cuda/pinned_host_pool.hpp"
#include "worker/memory_backend.hpp"

namespace lightning::cuda {

/// The memory of a worker's GPUs. Every call makes the context of the GPU concerned current
/// on the calling thread and returns when the work is done: copies run on streams of their
/// own per GPU (non-blocking, so they never wait for the compute and copy streams of the
/// devices), followed by a stream synchronisation. Copies to the host and copies to a GPU go
/// on two streams, so that a write-back (on the staging thread's write-back engine) overlaps
/// the staging thread's copies to the GPU: `copy` may be called from two threads at once.
class CudaMemoryBackend final : public worker::MemoryBackend {
 public:
  /// `gpus` maps each device of the worker to its GPU's context; contexts and `pinned` must
  /// outlive the backend.
  CudaMemoryBackend(std::unordered_map<DeviceId, const GpuContext*> gpus, PinnedHostPool& pinned);
  ~CudaMemoryBackend() override;

  /// One cuMemAlloc of the whole pool: backed from the start (pools that grow on GPUs, with
  /// the driver's virtual memory management, are not yet verified on a GPU).
  void* allocate_device_pool(DeviceId device, uint64_t bytes) override;
  /// Nothing to map: true for any size within the pool.
  bool grow_device_pool(DeviceId device, void* pool, uint64_t bytes) override;
  void free_device_pool(DeviceId device, void* pool) override;
  void* allocate_host(uint64_t bytes) override;
  void free_host(void* p) override;
  void copy(void* dst, worker::MemorySpace dst_space, const void* src,
            worker::MemorySpace src_space, uint64_t bytes) override;
  void fill_zero(void* dst, worker::MemorySpace space, uint64_t bytes) override;

  /// Device pools not yet freed (for tests).
  int64_t live_device_pools() const { return live_pools_.load(); }

 private:
  const GpuContext& gpu(DeviceId device) const;
  /// The stream for copies on `device` towards the host (`to_host`) or towards a GPU.
  CUstream stream(DeviceId device, bool to_host);

  std::unordered_map<DeviceId, const GpuContext*> gpus_;
  std::mutex streams_mutex_;
  std::map<std::pair<DeviceId, bool>, CUstream> streams_;  // created on first use
  PinnedHostPool& pinned_;
  std::mutex pools_mutex_;
  std::unordered_map<void*, uint64_t> pool_sizes_;
  std::atomic<int64_t> live_pools_{0};
};

}  // namespace lightning::cuda
