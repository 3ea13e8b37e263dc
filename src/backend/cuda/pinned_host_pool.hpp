// Page-locked host memory, kept for reuse: the GPU copies to and from it asynchronously and at
// full speed, but allocating it is slow (it maps and locks pages), so freed blocks are cached.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

#include "backend/cuda/gpu_context.hpp"

namespace lightning::cuda {

/// Pinned host blocks (cuMemHostAlloc, portable: every context of the process may use them),
/// in units of kUnit bytes. release() keeps a block for the next allocate() of the same
/// rounded size; allocate() frees cached blocks beyond `cache_limit` bytes. Thread-safe; the
/// calling thread's current context is the same after allocate() as before.
/// release() never calls the driver, so host functions running in the driver's callback
/// thread may call it.
class PinnedHostPool {
 public:
  static constexpr uint64_t kUnit = 4096;

  /// Allocates in `context` (any GPU's: the blocks are portable).
  explicit PinnedHostPool(const GpuContext& context, uint64_t cache_limit = uint64_t{1} << 30);
  /// Frees every block, cached or not.
  ~PinnedHostPool();
  PinnedHostPool(const PinnedHostPool&) = delete;
  PinnedHostPool& operator=(const PinnedHostPool&) = delete;

  /// A block of at least `bytes` (at least one unit), 4096-byte aligned. Throws
  /// Error(kCuda) naming the size when the driver cannot pin that much.
  void* allocate(uint64_t bytes);
  /// Returns a block from allocate() to the cache. Throws Error(kInternal) for another pointer.
  void release(void* block);

  /// Blocks handed out and not released.
  int64_t live_blocks() const;
  /// Bytes of released blocks kept for reuse.
  uint64_t cached_bytes() const;

 private:
  const GpuContext& context_;
  uint64_t cache_limit_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, uint64_t> live_;  // block -> rounded size
  std::multimap<uint64_t, void*> cached_;     // rounded size -> block
  uint64_t cached_bytes_ = 0;
};

}  // namespace lightning::cuda
