#include "backend/cuda/pinned_host_pool.hpp"

#include <vector>

#include "core/error.hpp"
#include "core/size_text.hpp"

namespace lightning::cuda {

PinnedHostPool::PinnedHostPool(const GpuContext& context, uint64_t cache_limit)
    : context_(context), cache_limit_(cache_limit) {}

PinnedHostPool::~PinnedHostPool() {
  const DriverApi& api = context_.api();
  // The context may not be current on the destroying thread; freeing pinned memory needs one.
  if (api.cuCtxSetCurrent(context_.context()) != CUDA_SUCCESS) return;
  for (auto& [size, block] : cached_) api.cuMemFreeHost(block);
  for (auto& [block, size] : live_) api.cuMemFreeHost(block);
}

void* PinnedHostPool::allocate(uint64_t bytes) {
  const uint64_t rounded = bytes == 0 ? kUnit : (bytes + kUnit - 1) / kUnit * kUnit;
  std::vector<void*> to_free;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cached_.find(rounded);
    if (it != cached_.end()) {
      void* block = it->second;
      cached_.erase(it);
      cached_bytes_ -= rounded;
      live_[block] = rounded;
      return block;
    }
    // Make room in the cache for what this block will add once released.
    while (!cached_.empty() && cached_bytes_ + rounded > cache_limit_) {
      auto big = std::prev(cached_.end());
      cached_bytes_ -= big->first;
      to_free.push_back(big->second);
      cached_.erase(big);
    }
  }
  const DriverApi& api = context_.api();
  // The pool's context, for this call only: the caller (a device's thread) goes on issuing
  // work in its own, and an event created in the wrong context cannot be recorded on its
  // streams.
  CUcontext caller = nullptr;
  api.check(api.cuCtxGetCurrent(&caller), "cuCtxGetCurrent");
  struct Restore {
    const DriverApi& api;
    CUcontext context;
    ~Restore() {
      if (context) api.cuCtxSetCurrent(context);
    }
  } restore{api, caller};
  context_.make_current();
  for (void* block : to_free) api.check(api.cuMemFreeHost(block), "cuMemFreeHost");
  void* block = nullptr;
  api.check(api.cuMemHostAlloc(&block, rounded, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc",
            "while pinning " + format_size(rounded) + " of host memory");
  std::lock_guard<std::mutex> lock(mutex_);
  live_[block] = rounded;
  return block;
}

void PinnedHostPool::release(void* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(block);
  if (it == live_.end())
    throw Error(ErrorKind::kInternal, "releasing a pinned block this pool did not hand out");
  cached_.emplace(it->second, block);
  cached_bytes_ += it->second;
  live_.erase(it);
}

int64_t PinnedHostPool::live_blocks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(live_.size());
}

uint64_t PinnedHostPool::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

}  // namespace lightning::cuda
