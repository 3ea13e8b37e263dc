// How a kind of device provides memory and moves bytes: the memory manager's only contact
// with hardware. host::HostMemoryBackend emulates devices in host memory; the CUDA backend
// implements the same calls with cuMemAlloc, pinned host memory and cuMemcpy.
#pragma once

#include <cstdint>

#include "core/ids.hpp"
#include "worker/memory_space.hpp"

namespace lightning::worker {

/// Memory and copies for one worker's devices and its host. Every call is synchronous.
/// Throws lightning::Error (kOutOfMemory, kCuda, ...) on failure; never returns null. Calls
/// come from the worker's staging thread, but `copy` from device to host memory also from its
/// write-back engine, at the same time as the staging thread's calls.
class MemoryBackend {
 public:
  virtual ~MemoryBackend() = default;

  /// The address range of a pool of up to `bytes` on `device`, sub-allocated by the memory
  /// manager. Aligned to at least 256 bytes. Only what grow_device_pool backed may be used:
  /// a pool costs the device memory its chunks take, not its cap.
  virtual void* allocate_device_pool(DeviceId device, uint64_t bytes) = 0;
  /// Backs at least the first `bytes` of `pool` (at most its size) with memory; what earlier
  /// calls backed stays. Returns false, changing nothing, when the device has no memory left
  /// for it; throws for other failures.
  virtual bool grow_device_pool(DeviceId device, void* pool, uint64_t bytes) = 0;
  virtual void free_device_pool(DeviceId device, void* pool) = 0;

  /// Host memory for one chunk copy (pinned where the device kind benefits). Aligned to at
  /// least 256 bytes; `bytes` may be 0 (a valid, unique pointer is still returned).
  virtual void* allocate_host(uint64_t bytes) = 0;
  virtual void free_host(void* p) = 0;

  /// Copies `bytes` from `src` in `src_space` to `dst` in `dst_space` (device or host; the
  /// disk is the manager's business). Returns when the copy is complete.
  virtual void copy(void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space,
                    uint64_t bytes) = 0;

  /// Sets `bytes` at `dst` in `space` (device or host) to zero.
  virtual void fill_zero(void* dst, MemorySpace space, uint64_t bytes) = 0;
};

}  // namespace lightning::worker
