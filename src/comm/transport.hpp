// How workers exchange bulk data: messages matched by tag.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.hpp"

namespace lightning::comm {

/// An allocator whose default construction leaves elements uninitialised: a payload is
/// resized and then written in full (packing a region, receiving from MPI), so zeroing it
/// first would be one more pass over the bytes.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// The bytes a DataMessage carries.
using Payload = std::vector<uint8_t, UninitializedAllocator<uint8_t>>;

/// The bytes of one Send, for the Recv with the same tag. A Send that failed (or was skipped
/// because something before it failed) still sends a message, carrying the error, so that its
/// Recv fails instead of waiting forever.
struct DataMessage {
  WorkerId from;
  WorkerId to;
  uint64_t tag = 0;
  Payload payload;
  std::string error;
};

/// Moves DataMessages between workers. send() does not block; the receiving worker's handler
/// is called, from a thread of the transport, once per message.
class Transport {
 public:
  using Handler = std::function<void(DataMessage)>;
  virtual ~Transport() = default;
  /// Where messages for local worker `w` go. Set before any message for it is sent.
  virtual void set_handler(WorkerId w, Handler handler) = 0;
  virtual void send(DataMessage message) = 0;
};

}  // namespace lightning::comm
