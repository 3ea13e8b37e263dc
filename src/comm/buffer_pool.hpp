// Payload buffers kept from finished sends for later receives.
#pragma once

#include <cstddef>
#include <deque>

#include "comm/transport.hpp"

namespace lightning::comm {

/// Payload buffers of finished sends, reused for receives into buffers: a fresh large buffer
/// costs a page fault per page (glibc maps blocks of 32 MiB and more anew each time), a reused
/// one nothing. Bounded (kKeptBuffers, kKeptBytes), so that an idle transport holds little.
/// Not thread-safe: the communication thread alone uses it.
class BufferPool {
 public:
  static constexpr size_t kKeptBuffers = 4;                ///< at most this many kept
  static constexpr size_t kKeptBytes = size_t{256} << 20;  ///< holding at most this in all

  /// Buffers of `smallest_kept` bytes or fewer are not kept: payloads that small travel inside
  /// their header and are never received into a buffer of the pool's.
  explicit BufferPool(size_t smallest_kept) : smallest_kept_(smallest_kept) {}

  /// Keeps `buffer` for a later take() (the oldest kept go first when over the bounds).
  void keep(Payload buffer);
  /// A buffer of `size` bytes, not zeroed: the smallest kept one that holds it, else a new one.
  Payload take(size_t size);
  /// How many buffers are kept.
  size_t kept() const { return kept_.size(); }

 private:
  size_t smallest_kept_;
  std::deque<Payload> kept_;
};

}  // namespace lightning::comm
