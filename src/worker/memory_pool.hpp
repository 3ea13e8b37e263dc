// Sub-allocation of one big allocation: best fit over a free list, coalescing on free.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

namespace lightning::worker {

/// Offsets into a region of `capacity` bytes. Pure bookkeeping (it never touches memory), so
/// it is a value type: copy it to try allocations without changing the original.
///
/// Every allocation is rounded up to kAlignment bytes (a zero-byte request takes one unit)
/// and starts at a multiple of kAlignment. allocate() picks the smallest free block that fits
/// (lowest offset among equals) and splits it from its start; free() merges the block with
/// free neighbours. The free list is therefore canonical: it depends only on which blocks are
/// allocated, not on the order of the calls that produced them.
class MemoryPool {
 public:
  static constexpr uint64_t kAlignment = 256;

  /// A pool of `capacity` bytes; only whole units are used (capacity rounded down).
  explicit MemoryPool(uint64_t capacity = 0);

  /// The bytes an allocation of `bytes` takes: rounded up to kAlignment, at least one unit.
  static uint64_t rounded(uint64_t bytes);

  /// Offset of a new block of at least `bytes`, or empty when no free block is big enough.
  std::optional<uint64_t> allocate(uint64_t bytes);
  /// Frees the block at `offset`. Throws Error(kInternal) when no block starts there.
  void free(uint64_t offset);
  /// Raises the capacity to `capacity` (rounded down to kAlignment; a lower value changes
  /// nothing): the new bytes are free, merged with a free block that ended at the old
  /// capacity. For a pool whose memory is backed as it is needed.
  void grow(uint64_t capacity);

  /// Sum of allocated (rounded) blocks.
  uint64_t used() const { return used_; }
  /// Usable bytes: the capacity rounded down to kAlignment.
  uint64_t capacity() const { return capacity_; }
  /// Size of the biggest free block (0 when full).
  uint64_t largest_free() const;
  /// Number of free blocks (fragmentation, for tests and traces).
  size_t free_block_count() const { return free_by_offset_.size(); }
  /// Size of the allocated block at `offset`, empty when none starts there.
  std::optional<uint64_t> block_size(uint64_t offset) const;

 private:
  void add_free(uint64_t offset, uint64_t size);
  void remove_free(std::map<uint64_t, uint64_t>::iterator it);

  uint64_t capacity_ = 0;
  uint64_t used_ = 0;
  std::map<uint64_t, uint64_t> free_by_offset_;           // offset -> size
  std::set<std::pair<uint64_t, uint64_t>> free_by_size_;  // (size, offset)
  std::unordered_map<uint64_t, uint64_t> allocated_;      // offset -> size
};

}  // namespace lightning::worker
