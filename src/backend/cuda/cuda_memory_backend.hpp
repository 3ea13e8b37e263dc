// MemoryBackend for GPUs: device pools as reserved address ranges backed as they grow,
// host copies of chunks in pinned memory, copies through the driver.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

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

  /// Reserves the pool's address range (cuMemAddressReserve); grow_device_pool maps memory
  /// into it (cuMemCreate, cuMemMap), readable and writable by the GPU and by every GPU of
  /// the worker that can access it as a peer. A GPU without virtual memory management gets
  /// the whole pool from cuMemAlloc at once.
  void* allocate_device_pool(DeviceId device, uint64_t bytes) override;
  bool grow_device_pool(DeviceId device, void* pool, uint64_t bytes) override;
  void free_device_pool(DeviceId device, void* pool) override;
  void* allocate_host(uint64_t bytes) override;
  void free_host(void* p) override;
  void copy(void* dst, worker::MemorySpace dst_space, const void* src,
            worker::MemorySpace src_space, uint64_t bytes) override;
  void fill_zero(void* dst, worker::MemorySpace space, uint64_t bytes) override;

  /// Device pools not yet freed (for tests).
  int64_t live_device_pools() const { return live_pools_.load(); }
  /// Bytes of device memory backing a pool (for tests).
  uint64_t device_pool_backed(void* pool);

 private:
  /// A pool: its address range and the pieces of memory mapped into it, from its start.
  struct Pool {
    uint64_t reserved = 0;         ///< bytes of address range
    uint64_t granularity = 0;      ///< of the GPU's allocations; 0: one cuMemAlloc, all backed
    std::vector<uint64_t> pieces;  ///< sizes of the mapped pieces, in address order
    uint64_t backed = 0;           ///< their sum
  };

  const GpuContext& gpu(DeviceId device) const;
  /// The stream for copies on `device` towards the host (`to_host`) or towards a GPU.
  CUstream stream(DeviceId device, bool to_host);

  std::unordered_map<DeviceId, const GpuContext*> gpus_;
  std::mutex streams_mutex_;
  std::map<std::pair<DeviceId, bool>, CUstream> streams_;  // created on first use
  PinnedHostPool& pinned_;
  std::mutex pools_mutex_;
  std::unordered_map<void*, Pool> pools_;
  std::atomic<int64_t> live_pools_{0};
};

}  // namespace lightning::cuda
