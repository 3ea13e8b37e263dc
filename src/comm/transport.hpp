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

/// Bytes a sender lends the transport instead of copying them into a Payload: sent straight
/// from where they are (a chunk's memory). They must stay valid and unchanged until `release`
/// is called, exactly once, from a thread of the transport: when they are sent, or when they
/// never will be (the receiving rank was lost, the transport stopped). A send() that throws
/// has not taken them: it does not release them.
struct LentBytes {
  const void* data = nullptr;
  size_t size = 0;
  std::function<void()> release;
};

/// The bytes of one Send, for the Recv with the same tag. A Send that failed (or was skipped
/// because something before it failed) still sends a message, without bytes, naming the task
/// that failed (`failed_task`), so that its Recv is skipped instead of waiting forever.
///
/// A large payload may be delivered announced only: `pending_size` bytes wait at the sender
/// (and `payload` is empty) until the receiver names where they go with Transport::receive, so
/// that they land in their final memory without a copy.
struct DataMessage {
  WorkerId from;
  WorkerId to;
  uint64_t tag = 0;
  Payload payload;
  TaskId failed_task;       ///< valid: the Send did not run, because this task failed
  LentBytes lent;           ///< sending: when `lent.data` is set, sent in place of `payload`
  size_t pending_size = 0;  ///< delivered: bytes still to fetch with Transport::receive
};

/// Copies the bytes `m` lends into its own payload and releases them (for a receiver in this
/// process, which may run long after the sender has moved on). Does nothing to other messages.
void copy_lent_bytes(DataMessage& m);

/// Moves DataMessages between workers. send() does not block; the receiving worker's handler
/// is called, from a thread of the transport, once per message.
class Transport {
 public:
  using Handler = std::function<void(DataMessage)>;
  /// The end of a receive(): `error` is empty on success; `payload` holds the bytes when they
  /// could not go to the destination (none was given, or they had arrived before), else it is
  /// empty and the bytes are there.
  using ReceiveDone = std::function<void(Payload payload, std::string error)>;

  virtual ~Transport() = default;
  /// Where messages for local worker `w` go. Set before any message for it is sent.
  virtual void set_handler(WorkerId w, Handler handler) = 0;
  virtual void send(DataMessage message) = 0;
  /// Fetches the pending payload of the message with `tag` delivered to local worker `to`
  /// (one whose pending_size was set), into `destination` (pending_size bytes) or, when that
  /// is null, into a buffer of the transport's. `done` is called once, from a thread of the
  /// transport, and must only queue. Every announced payload must be received exactly once;
  /// a receiver that no longer wants it passes a null destination and drops the payload.
  /// Transports that deliver every payload whole never announce one: the default refuses.
  virtual void receive(WorkerId to, uint64_t tag, void* destination, ReceiveDone done);
};

}  // namespace lightning::comm
