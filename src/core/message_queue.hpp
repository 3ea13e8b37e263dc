// A blocking multi-producer, single-consumer queue: how the runtime's threads talk (the
// worker's threads, the driver's cluster inbox).
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>

#include "core/ring_queue.hpp"
#include "core/wait_policy.hpp"

namespace lightning {

/// Messages for one consumer thread. push() never blocks; pop() waits for a message, polling
/// first as `wait` (null: briefly) says.
template <class T>
class MessageQueue {
 public:
  explicit MessageQueue(const WaitPolicy* wait = nullptr) : wait_(wait) {}

  void push(T message) {
    // Notify while holding the lock: once pop() returns, the consumer may destroy the queue
    // (a reply queue on its stack), so the producer must be done with it by then.
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(message));
    size_.store(queue_.size(), std::memory_order_release);
    ready_.notify_one();
  }

  T pop() {
    std::unique_lock<std::mutex> lock = wait_for_message();
    T message = queue_.pop_front();
    size_.store(queue_.size(), std::memory_order_release);
    return message;
  }

  /// Waits as pop() does, then moves every message queued into `into` (emptied first),
  /// oldest first: one lock for a burst of messages rather than one each. The queue and
  /// `into` trade storage, so a consumer that passes the same queue each time allocates
  /// nothing for a burst that fits what both held before.
  void pop_all(RingQueue<T>& into) {
    into.clear();
    std::unique_lock<std::mutex> lock = wait_for_message();
    into.swap(queue_);
    size_.store(0, std::memory_order_release);
  }

  std::optional<T> try_pop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) return std::nullopt;
    T message = queue_.pop_front();
    size_.store(queue_.size(), std::memory_order_release);
    return message;
  }

 private:
  // Returns holding the lock, with a message queued.
  std::unique_lock<std::mutex> wait_for_message() {
    WaitPolicy::poll(wait_, [&] { return size_.load(std::memory_order_acquire) != 0; });
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty(); });
    return lock;
  }

  const WaitPolicy* wait_;
  std::mutex mutex_;
  std::condition_variable ready_;
  RingQueue<T> queue_;
  std::atomic<size_t> size_{0};  // queue_.size(), read without the lock while spinning
};

}  // namespace lightning
