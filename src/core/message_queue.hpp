// A blocking multi-producer, single-consumer queue: how the runtime's threads talk (the
// worker's threads, the driver's cluster inbox).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "core/ring_queue.hpp"

namespace lightning {

/// How long a runtime thread out of work keeps looking for more, yielding its core, before it
/// goes to sleep (MessageQueue, the worker's thread pools).
inline constexpr std::chrono::microseconds kSpinBeforeSleep{50};

/// Messages for one consumer thread. push() never blocks; pop() waits for a message.
template <class T>
class MessageQueue {
 public:
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
    // Messages of a chain of small tasks follow one another within microseconds: waiting
    // for the next one a little while, yielding the core, costs less than going to sleep and
    // being woken (two system calls and a reschedule on each side).
    if (size_.load(std::memory_order_acquire) == 0) {
      const auto until = std::chrono::steady_clock::now() + kSpinBeforeSleep;
      while (size_.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty(); });
    return lock;
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  RingQueue<T> queue_;
  std::atomic<size_t> size_{0};  // queue_.size(), read without the lock while spinning
};

}  // namespace lightning
