// A blocking multi-producer, single-consumer queue: how the runtime's threads talk (the
// worker's threads, the driver's cluster inbox).
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace lightning {

/// Messages for one consumer thread. push() never blocks; pop() waits for a message.
template <class T>
class MessageQueue {
 public:
  void push(T message) {
    // Notify while holding the lock: once pop() returns, the consumer may destroy the queue
    // (a reply queue on its stack), so the producer must be done with it by then.
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(message));
    ready_.notify_one();
  }

  T pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty(); });
    T message = std::move(queue_.front());
    queue_.pop_front();
    return message;
  }

  std::optional<T> try_pop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) return std::nullopt;
    T message = std::move(queue_.front());
    queue_.pop_front();
    return message;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> queue_;
};

}  // namespace lightning
