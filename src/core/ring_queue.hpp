// A first-in first-out queue in one growing array: the queues between the runtime's threads
// carry a message or two per task, and std::deque allocates and frees a block every few.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace lightning {

/// A FIFO queue whose storage only grows (doubling when full, a power of two): once it has
/// held as many elements as it holds at any later time, push_back and pop_front allocate
/// nothing. A popped slot is reset to T() at once, so it keeps nothing of what it held.
/// T must be default-constructible and move-assignable. Not thread-safe.
template <class T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  /// Elements it can hold before it grows.
  size_t capacity() const { return slots_.size(); }

  /// The oldest element (the queue must not be empty).
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  /// The i-th element from the oldest (i < size()).
  T& operator[](size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }

  void push_back(T value) {
    if (size_ == slots_.size()) grow();
    (*this)[size_] = std::move(value);
    ++size_;
  }

  /// Removes and returns the oldest element (the queue must not be empty).
  T pop_front() {
    T value = std::move(slots_[head_]);
    slots_[head_] = T();
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return value;
  }

  /// Removes every element, keeping the storage.
  void clear() {
    while (size_ > 0) pop_front();
    head_ = 0;
  }

  void swap(RingQueue& other) noexcept {
    slots_.swap(other.slots_);
    std::swap(head_, other.head_);
    std::swap(size_, other.size_);
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : 2 * slots_.size());
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace lightning
