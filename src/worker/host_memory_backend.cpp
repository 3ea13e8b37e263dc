#include "worker/host_memory_backend.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/size_text.hpp"

namespace lightning::worker {

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

void* HostMemoryBackend::allocate_device_pool(DeviceId device, uint64_t bytes) {
  void* p = aligned_bytes(bytes, "the memory pool of emulated device " + device.to_string());
  ++live_pools_;
  return p;
}

void HostMemoryBackend::free_device_pool(DeviceId /*device*/, void* pool) {
  if (pool == nullptr) return;
  std::free(pool);
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

void HostMemoryBackend::copy(void* dst, MemorySpace /*dst_space*/, const void* src,
                             MemorySpace /*src_space*/, uint64_t bytes) {
  if (bytes != 0) std::memcpy(dst, src, bytes);
}

void HostMemoryBackend::fill_zero(void* dst, MemorySpace /*space*/, uint64_t bytes) {
  if (bytes != 0) std::memset(dst, 0, bytes);
}

}  // namespace lightning::worker
