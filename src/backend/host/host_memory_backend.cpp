#include "backend/host/host_memory_backend.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/size_text.hpp"

namespace lightning::host {

namespace {

void* aligned_bytes(uint64_t bytes, const std::string& what) {
  const uint64_t a = HostMemoryBackend::kAlignment;
  const uint64_t rounded = bytes == 0 ? a : (bytes + a - 1) / a * a;
  if (rounded < bytes) throw Error(ErrorKind::kOutOfMemory, "cannot allocate " + what);
  void* p = std::aligned_alloc(a, rounded);
  if (p == nullptr)
    throw Error(ErrorKind::kOutOfMemory,
                "cannot allocate " + format_size(bytes) + " of host memory for " + what);
  return p;
}

}  // namespace

// Pools are reserved, not allocated: an anonymous mapping without swap reservation costs
// nothing until its pages are touched, so a generous default cap costs nothing either (and
// sanitizers do not shadow-map what malloc would have handed out).
void* HostMemoryBackend::allocate_device_pool(DeviceId device, uint64_t bytes) {
  const uint64_t length = std::max<uint64_t>(bytes, kAlignment);
  void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw Error(ErrorKind::kOutOfMemory, "cannot reserve " + format_size(bytes) +
                                             " for the memory pool of emulated device " +
                                             device.to_string());
  {
    std::lock_guard<std::mutex> lock(pools_mutex_);
    pool_lengths_[p] = length;
  }
  ++live_pools_;
  return p;
}

bool HostMemoryBackend::grow_device_pool(DeviceId /*device*/, void* /*pool*/, uint64_t /*bytes*/) {
  return true;
}

void HostMemoryBackend::free_device_pool(DeviceId /*device*/, void* pool) {
  if (pool == nullptr) return;
  uint64_t length = 0;
  {
    std::lock_guard<std::mutex> lock(pools_mutex_);
    auto it = pool_lengths_.find(pool);
    if (it == pool_lengths_.end())
      throw Error(ErrorKind::kInternal, "freeing a device pool this backend did not reserve");
    length = it->second;
    pool_lengths_.erase(it);
  }
  munmap(pool, length);
  --live_pools_;
}

void* HostMemoryBackend::allocate_host(uint64_t bytes) {
  void* p = aligned_bytes(bytes, "a chunk copy");
  ++live_host_;
  return p;
}

void HostMemoryBackend::free_host(void* p) {
  if (p == nullptr) return;
  std::free(p);
  --live_host_;
}

void HostMemoryBackend::copy(void* dst, worker::MemorySpace /*dst_space*/, const void* src,
                             worker::MemorySpace /*src_space*/, uint64_t bytes) {
  if (bytes != 0) std::memcpy(dst, src, bytes);
}

void HostMemoryBackend::fill_zero(void* dst, worker::MemorySpace /*space*/, uint64_t bytes) {
  if (bytes != 0) std::memset(dst, 0, bytes);
}

}  // namespace lightning::host
