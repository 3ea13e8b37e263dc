#include "backend/cuda/cuda_memory_backend.hpp"

#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/size_text.hpp"

namespace lightning::cuda {

CudaMemoryBackend::CudaMemoryBackend(std::unordered_map<DeviceId, const GpuContext*> gpus,
                                     PinnedHostPool& pinned)
    : gpus_(std::move(gpus)), pinned_(pinned) {}

CudaMemoryBackend::~CudaMemoryBackend() {
  for (auto& [key, s] : streams_) {
    const GpuContext& g = gpu(key.first);
    if (g.api().cuCtxSetCurrent(g.context()) == CUDA_SUCCESS) g.api().cuStreamDestroy(s);
  }
}

const GpuContext& CudaMemoryBackend::gpu(DeviceId device) const {
  auto it = gpus_.find(device);
  if (it == gpus_.end())
    throw Error(ErrorKind::kInternal, "the GPU memory backend has no device " + device.to_string());
  return *it->second;
}

CUstream CudaMemoryBackend::stream(DeviceId device, bool to_host) {
  const GpuContext& g = gpu(device);
  g.make_current();
  std::lock_guard<std::mutex> lock(streams_mutex_);
  auto it = streams_.find({device, to_host});
  if (it != streams_.end()) return it->second;
  CUstream s = nullptr;
  g.api().check(g.api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  streams_[{device, to_host}] = s;
  return s;
}

void* CudaMemoryBackend::allocate_device_pool(DeviceId device, uint64_t bytes) {
  const GpuContext& g = gpu(device);
  g.make_current();
  CUdeviceptr p = 0;
  const CUresult r = g.api().cuMemAlloc(&p, bytes == 0 ? 256 : bytes);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw Error(ErrorKind::kOutOfMemory,
                "cannot allocate the " + format_size(bytes) + " memory pool of " +
                    device.to_string() + " on cuda:" + std::to_string(g.gpu().ordinal) + " (" +
                    g.gpu().name + ", " + format_size(g.gpu().total_memory) +
                    "); set LIGHTNING_DEVICE_MEMORY lower");
  g.api().check(r, "cuMemAlloc",
                "while allocating the " + format_size(bytes) + " pool of " + device.to_string());
  {
    std::lock_guard<std::mutex> lock(pools_mutex_);
    pool_sizes_[reinterpret_cast<void*>(p)] = bytes;
  }
  ++live_pools_;
  return reinterpret_cast<void*>(p);
}

bool CudaMemoryBackend::grow_device_pool(DeviceId /*device*/, void* pool, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(pools_mutex_);
  auto it = pool_sizes_.find(pool);
  if (it == pool_sizes_.end())
    throw Error(ErrorKind::kInternal, "growing a device pool this backend did not allocate");
  return bytes <= it->second;
}

void CudaMemoryBackend::free_device_pool(DeviceId device, void* pool) {
  if (pool == nullptr) return;
  const GpuContext& g = gpu(device);
  g.make_current();
  {
    std::lock_guard<std::mutex> lock(pools_mutex_);
    pool_sizes_.erase(pool);
  }
  g.api().check(g.api().cuMemFree(reinterpret_cast<CUdeviceptr>(pool)), "cuMemFree");
  --live_pools_;
}

void* CudaMemoryBackend::allocate_host(uint64_t bytes) {
  return pinned_.allocate(bytes);
}

void CudaMemoryBackend::free_host(void* p) {
  if (p != nullptr) pinned_.release(p);
}

void CudaMemoryBackend::copy(void* dst, worker::MemorySpace dst_space, const void* src,
                             worker::MemorySpace src_space, uint64_t bytes) {
  if (bytes == 0) return;
  if (!dst_space.is_device() && !src_space.is_device()) {
    std::memcpy(dst, src, bytes);
    return;
  }
  // Unified addressing: the driver tells host from device pointers, and copies between GPUs.
  const DeviceId on = src_space.is_device() ? src_space.device : dst_space.device;
  const CUstream s = stream(on, !dst_space.is_device());
  const DriverApi& api = gpu(on).api();
  const std::string what = "while copying " + format_size(bytes) + " from " +
                           src_space.to_string() + " to " + dst_space.to_string();
  api.check(api.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                              reinterpret_cast<CUdeviceptr>(src), bytes, s),
            "cuMemcpyAsync", what);
  api.check(api.cuStreamSynchronize(s), "cuStreamSynchronize", what);
}

void CudaMemoryBackend::fill_zero(void* dst, worker::MemorySpace space, uint64_t bytes) {
  if (bytes == 0) return;
  if (!space.is_device()) {
    std::memset(dst, 0, bytes);
    return;
  }
  const CUstream s = stream(space.device, false);
  const DriverApi& api = gpu(space.device).api();
  api.check(api.cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(dst), 0, bytes, s),
            "cuMemsetD8Async");
  api.check(api.cuStreamSynchronize(s), "cuStreamSynchronize",
            "while zeroing " + format_size(bytes) + " of " + space.to_string());
}

}  // namespace lightning::cuda
