#include "comm/buffer_pool.hpp"

#include <utility>

namespace lightning::comm {

void BufferPool::keep(Payload buffer) {
  if (buffer.capacity() <= smallest_kept_ || buffer.capacity() > kKeptBytes) return;
  kept_.push_back(std::move(buffer));
  size_t total = 0;
  for (const Payload& b : kept_) total += b.capacity();
  while (kept_.size() > kKeptBuffers || total > kKeptBytes) {  // the oldest go first
    total -= kept_.front().capacity();
    kept_.pop_front();
  }
}

Payload BufferPool::take(size_t size) {
  auto best = kept_.end();
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->capacity() >= size && (best == kept_.end() || it->capacity() < best->capacity()))
      best = it;
  Payload buffer;
  if (best != kept_.end()) {
    buffer = std::move(*best);
    kept_.erase(best);
  }
  buffer.resize(size);  // uninitialised: the receive writes every byte
  return buffer;
}

}  // namespace lightning::comm
