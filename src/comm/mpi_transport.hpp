// The transport between the ranks of an MPI run: bulk data and control messages, on one
// communication thread that owns every MPI call.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/transport.hpp"

namespace lightning::comm {

/// Serialised RPC bytes from one rank to another (what they mean is the caller's business).
struct ControlMessage {
  int from = -1;
  int to = -1;
  std::vector<uint8_t> bytes;
};

/// Moves DataMessages and ControlMessages between the ranks of MPI_COMM_WORLD. Worker `w`
/// lives on rank `w`; a message for a worker of this rank is handed to its handler directly.
///
/// Threads: one communication thread makes every MPI call (on a duplicate of MPI_COMM_WORLD,
/// so the application's own messages never match ours); send() and send_control() only queue.
/// Handlers are called on that thread and must only queue (they delay every other message).
///
/// Bulk data: a small header (tag, workers, size, error) goes on the control tag; a payload
/// larger than `inline_limit` follows with a non-blocking send straight from the message's
/// buffer (or the bytes it lends) on a tag of its own. The receiver delivers the header at
/// once, announcing the payload (DataMessage::pending_size), and posts the payload's receive
/// into the destination that receive() names, so that it lands in its final memory. A
/// payload not asked for within `direct_receive_wait` is received into a buffer of the
/// transport's instead (handed over by receive() later): a sender never holds its bytes
/// for long waiting for a busy receiver.
///
/// Liveness: every `heartbeat_interval` the thread sends a heartbeat to each watched rank; a
/// watched rank from which nothing arrived for `peer_timeout` is reported once to the
/// peer-lost handler (a killed process never says goodbye).
class MpiTransport final : public Transport {
 public:
  using ControlHandler = std::function<void(ControlMessage)>;
  using PeerLostHandler = std::function<void(int rank, const std::string& reason)>;

  struct Options {
    std::chrono::milliseconds heartbeat_interval{500};
    std::chrono::milliseconds peer_timeout{5000};
    size_t inline_limit = 16 << 10;  ///< payloads up to this size travel inside the header
    /// How long an announced payload waits for receive() to name its destination.
    std::chrono::microseconds direct_receive_wait{2000};
    /// How long the thread polls MPI after its last message before it sleeps between polls
    /// (50 µs at a time, woken by what is queued to send but not by what arrives).
    std::chrono::microseconds idle_poll{10'000};
    std::vector<int> watched;  ///< ranks whose liveness matters to this one
  };

  /// Collective over MPI_COMM_WORLD (it duplicates it). MPI must be initialised with at least
  /// MPI_THREAD_SERIALIZED: the communication thread is not the thread that initialised it.
  /// Throws Error(kCommunication) otherwise.
  MpiTransport(Options options, ControlHandler on_control, PeerLostHandler on_peer_lost);
  /// Sends what is queued (waiting for sends to live ranks), then stops the thread. No
  /// handler is called once the destructor has begun.
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  void set_handler(WorkerId w, Handler handler) override;
  void send(DataMessage message) override;
  void receive(WorkerId to, uint64_t tag, void* destination, ReceiveDone done) override;
  /// Queues `bytes` for the control handler of rank `to` (or of this rank).
  void send_control(int to, std::vector<uint8_t> bytes);

 private:
  class Engine;
  int rank_ = 0;
  int size_ = 1;
  std::unique_ptr<Engine> engine_;
};

}  // namespace lightning::comm
