#include "worker/memory_pool.hpp"

#include <iterator>
#include <string>

#include "core/error.hpp"

namespace lightning::worker {

MemoryPool::MemoryPool(uint64_t capacity) {
  grow(capacity);
}

uint64_t MemoryPool::rounded(uint64_t bytes) {
  if (bytes == 0) return kAlignment;
  if (bytes > UINT64_MAX - (kAlignment - 1)) return UINT64_MAX / kAlignment * kAlignment;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

std::optional<uint64_t> MemoryPool::allocate(uint64_t bytes) {
  const uint64_t size = rounded(bytes);
  if (size > capacity_ - used_) return std::nullopt;
  auto best = free_by_size_.lower_bound({size, 0});
  if (best == free_by_size_.end()) return std::nullopt;
  const auto [block_size, offset] = *best;
  remove_free(free_by_offset_.find(offset));
  if (block_size > size) add_free(offset + size, block_size - size);
  allocated_.emplace(offset, size);
  used_ += size;
  return offset;
}

void MemoryPool::free(uint64_t offset) {
  auto a = allocated_.find(offset);
  if (a == allocated_.end())
    throw Error(ErrorKind::kInternal,
                "memory pool: no allocated block at offset " + std::to_string(offset));
  uint64_t start = offset;
  uint64_t size = a->second;
  allocated_.erase(a);
  used_ -= size;
  // Merge with the free block right after, then with the one right before.
  auto next = free_by_offset_.lower_bound(offset);
  if (next != free_by_offset_.end() && next->first == offset + size) {
    size += next->second;
    next = std::next(next);
    remove_free(std::prev(next));
  }
  if (next != free_by_offset_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      remove_free(prev);
    }
  }
  add_free(start, size);
}

void MemoryPool::grow(uint64_t capacity) {
  capacity = capacity / kAlignment * kAlignment;
  if (capacity <= capacity_) return;
  uint64_t start = capacity_;
  if (!free_by_offset_.empty()) {
    auto last = std::prev(free_by_offset_.end());
    if (last->first + last->second == capacity_) {
      start = last->first;
      remove_free(last);
    }
  }
  add_free(start, capacity - start);
  capacity_ = capacity;
}

uint64_t MemoryPool::largest_free() const {
  return free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
}

std::optional<uint64_t> MemoryPool::block_size(uint64_t offset) const {
  auto a = allocated_.find(offset);
  if (a == allocated_.end()) return std::nullopt;
  return a->second;
}

void MemoryPool::add_free(uint64_t offset, uint64_t size) {
  free_by_offset_.emplace(offset, size);
  free_by_size_.emplace(size, offset);
}

void MemoryPool::remove_free(std::map<uint64_t, uint64_t>::iterator it) {
  free_by_size_.erase({it->second, it->first});
  free_by_offset_.erase(it);
}

}  // namespace lightning::worker
