// MemoryBackend for emulated host devices: device memory is ordinary host memory, copies are
// memcpy. Lets transfers, eviction and spilling run on machines without GPUs.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "worker/memory_backend.hpp"

namespace lightning::host {

class HostMemoryBackend final : public worker::MemoryBackend {
 public:
  /// Alignment of every allocation, in bytes.
  static constexpr uint64_t kAlignment = 256;

  void* allocate_device_pool(DeviceId device, uint64_t bytes) override;
  /// Nothing to do: the pages of the reserved mapping are backed when first touched.
  bool grow_device_pool(DeviceId device, void* pool, uint64_t bytes) override;
  void free_device_pool(DeviceId device, void* pool) override;
  void* allocate_host(uint64_t bytes) override;
  void free_host(void* p) override;
  void copy(void* dst, worker::MemorySpace dst_space, const void* src,
            worker::MemorySpace src_space, uint64_t bytes) override;
  void fill_zero(void* dst, worker::MemorySpace space, uint64_t bytes) override;

  /// Allocations not yet freed (pools and host blocks): lets tests check for leaks.
  int64_t live_device_pools() const { return live_pools_.load(); }
  int64_t live_host_allocations() const { return live_host_.load(); }

 private:
  std::mutex pools_mutex_;
  std::unordered_map<void*, uint64_t> pool_lengths_;  // reserved mappings, for munmap
  std::atomic<int64_t> live_pools_{0};
  std::atomic<int64_t> live_host_{0};
};

}  // namespace lightning::host
