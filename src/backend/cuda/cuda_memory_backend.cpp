#include "backend/cuda/cuda_memory_backend.hpp"

#include <algorithm>
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

namespace {

uint64_t round_up(uint64_t bytes, uint64_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

CUmemAllocationProp device_memory(const GpuContext& g) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = static_cast<int>(g.device());
  return prop;
}

std::string pool_name(DeviceId device, const GpuContext& g) {
  return "the memory pool of " + device.to_string() +
         " on cuda:" + std::to_string(g.gpu().ordinal) + " (" + g.gpu().name + ", " +
         format_size(g.gpu().total_memory) + ")";
}

}  // namespace

void* CudaMemoryBackend::allocate_device_pool(DeviceId device, uint64_t bytes) {
  const GpuContext& g = gpu(device);
  const DriverApi& api = g.api();
  g.make_current();
  bytes = std::max<uint64_t>(bytes, 256);
  int vmm = 0;
  api.check(api.cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                                     g.device()),
            "cuDeviceGetAttribute");
  Pool pool;
  CUdeviceptr p = 0;
  if (vmm) {
    const CUmemAllocationProp prop = device_memory(g);
    size_t granularity = 0;
    api.check(
        api.cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
        "cuMemGetAllocationGranularity");
    pool.granularity = granularity;
    pool.reserved = round_up(bytes, granularity);
    api.check(api.cuMemAddressReserve(&p, pool.reserved, 0, 0, 0), "cuMemAddressReserve",
              "while reserving the address range of " + pool_name(device, g));
  } else {
    const CUresult r = api.cuMemAlloc(&p, bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      throw Error(ErrorKind::kOutOfMemory, "cannot allocate the " + format_size(bytes) + " of " +
                                               pool_name(device, g) +
                                               "; set LIGHTNING_DEVICE_MEMORY lower");
    api.check(r, "cuMemAlloc", "while allocating " + pool_name(device, g));
    pool.reserved = pool.backed = bytes;
  }
  {
    std::lock_guard<std::mutex> lock(pools_mutex_);
    pools_.emplace(reinterpret_cast<void*>(p), std::move(pool));
  }
  ++live_pools_;
  return reinterpret_cast<void*>(p);
}

bool CudaMemoryBackend::grow_device_pool(DeviceId device, void* base, uint64_t bytes) {
  const GpuContext& g = gpu(device);
  const DriverApi& api = g.api();
  std::lock_guard<std::mutex> lock(pools_mutex_);
  auto it = pools_.find(base);
  if (it == pools_.end())
    throw Error(ErrorKind::kInternal, "growing a device pool this backend did not reserve");
  Pool& pool = it->second;
  if (bytes <= pool.backed || pool.granularity == 0) return bytes <= pool.backed;
  const uint64_t target = std::min(pool.reserved, round_up(bytes, pool.granularity));
  const uint64_t size = target - pool.backed;
  const CUdeviceptr at = reinterpret_cast<CUdeviceptr>(base) + pool.backed;
  const std::string what = "while growing " + pool_name(device, g) + " from " +
                           format_size(pool.backed) + " to " + format_size(target);
  g.make_current();
  const CUmemAllocationProp prop = device_memory(g);
  CUmemGenericAllocationHandle handle = 0;
  const CUresult r = api.cuMemCreate(&handle, size, &prop, 0);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) return false;
  api.check(r, "cuMemCreate", what);
  // The mapping keeps the memory; releasing the handle now frees it with the unmapping.
  const CUresult mapped = api.cuMemMap(at, size, 0, handle, 0);
  api.cuMemRelease(handle);
  api.check(mapped, "cuMemMap", what);
  // Readable and writable by the GPU, and by the worker's GPUs that reach it as peers
  // (copies between GPUs; peer access of contexts does not extend to mapped memory).
  std::vector<CUmemAccessDesc> access;
  std::vector<CUdevice> seen;
  for (const auto& [id, other] : gpus_) {
    const CUdevice d = other->device();
    if (std::find(seen.begin(), seen.end(), d) != seen.end()) continue;
    seen.push_back(d);
    int can = d == g.device() ? 1 : 0;
    if (!can) api.check(api.cuDeviceCanAccessPeer(&can, d, g.device()), "cuDeviceCanAccessPeer");
    if (!can) continue;
    CUmemAccessDesc desc{};
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = static_cast<int>(d);
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    access.push_back(desc);
  }
  const CUresult set = api.cuMemSetAccess(at, size, access.data(), access.size());
  if (set != CUDA_SUCCESS) {
    api.cuMemUnmap(at, size);
    api.check(set, "cuMemSetAccess", what);
  }
  pool.pieces.push_back(size);
  pool.backed = target;
  return true;
}

void CudaMemoryBackend::free_device_pool(DeviceId device, void* base) {
  if (base == nullptr) return;
  const GpuContext& g = gpu(device);
  const DriverApi& api = g.api();
  Pool pool;
  {
    std::lock_guard<std::mutex> lock(pools_mutex_);
    auto it = pools_.find(base);
    if (it == pools_.end())
      throw Error(ErrorKind::kInternal, "freeing a device pool this backend did not reserve");
    pool = std::move(it->second);
    pools_.erase(it);
  }
  g.make_current();
  const CUdeviceptr p = reinterpret_cast<CUdeviceptr>(base);
  --live_pools_;
  if (pool.granularity == 0) {
    api.check(api.cuMemFree(p), "cuMemFree");
    return;
  }
  uint64_t offset = 0;
  for (uint64_t size : pool.pieces) {  // each mapping is unmapped whole
    api.check(api.cuMemUnmap(p + offset, size), "cuMemUnmap");
    offset += size;
  }
  api.check(api.cuMemAddressFree(p, pool.reserved), "cuMemAddressFree");
}

uint64_t CudaMemoryBackend::device_pool_backed(void* base) {
  std::lock_guard<std::mutex> lock(pools_mutex_);
  auto it = pools_.find(base);
  return it == pools_.end() ? 0 : it->second.backed;
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
