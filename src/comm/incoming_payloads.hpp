// Payloads announced to this rank's workers, from their header's arrival until receive().
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "comm/buffer_pool.hpp"
#include "comm/clock.hpp"
#include "comm/communicator.hpp"
#include "comm/transport.hpp"

namespace lightning::comm {

/// The payloads that headers announced and that wait at their senders, by receiving worker
/// and tag. A payload goes where receive() names, so that it lands in its final memory; one
/// not asked for within `direct_receive_wait` is received into a buffer instead (handed over
/// by receive() later), so that a sender never holds its bytes for long waiting for a busy
/// receiver. Each payload is handed to one receive() and then forgotten.
///
/// Not thread-safe: the communication thread alone uses it. ReceiveDone callbacks are called
/// from its calls. Calls that post or test receives append the peers whose calls failed to
/// `failed`, for the transport to lose them (with fail_from()).
class IncomingPayloads {
 public:
  /// `direct_receive_wait` of zero or less: every payload is received into a buffer at once.
  IncomingPayloads(Communicator& comm, BufferPool& buffers, const Clock& clock,
                   std::chrono::microseconds direct_receive_wait);

  /// A header from rank `from` announced `size` bytes for worker `to` with `tag`, to come with
  /// `payload_tag`. Throws Error(kCommunication) when one with that worker and tag is waiting.
  void announce(int from, WorkerId to, uint64_t tag, int payload_tag, size_t size,
                PeerFailures& failed);
  /// The Transport::receive() of the payload for `to` with `tag`: received into `destination`
  /// (or a buffer when null) unless it is on its way into a buffer already. `done` is called
  /// when it has arrived (at once when it had), or with an error when no such payload waits
  /// or its sender was lost.
  void receive(WorkerId to, uint64_t tag, void* destination, Transport::ReceiveDone done,
               PeerFailures& failed);
  /// Receives the payloads nobody asked for in time into buffers; returns whether there were.
  bool buffer_overdue(PeerFailures& failed);
  /// Notes the receives that have arrived, handing over those whose receive() came; returns
  /// whether any arrived (or failed).
  bool test(PeerFailures& failed);
  /// Rank `r` was lost, for `reason`: its payloads that have not arrived never will; their
  /// receive() gets the error (now, or when it comes).
  void fail_from(int r, const std::string& reason);
  /// Whether a receive is under way (the communication thread then polls without pause).
  bool receiving() const { return receiving_ > 0; }
  /// How many payloads wait (announced and not yet handed over).
  size_t size() const { return incoming_.size(); }
  /// From now on no ReceiveDone is called (the transport's destructor has begun).
  void stop_delivering() { delivering_ = false; }
  /// Cancels the receives under way and forgets every payload (at the end).
  void abandon();

 private:
  // One announced payload. Posted: its receive is under way, into `destination` or into
  // `buffer`.
  struct Incoming {
    int from = -1;
    int payload_tag = 0;
    size_t size = 0;
    Clock::time_point deadline;  // then into a buffer, if not asked for
    Communicator::Request request = 0;
    bool posted = false;
    bool arrived = false;
    void* destination = nullptr;
    Payload buffer;
    Transport::ReceiveDone done;  // set by receive()
    std::string error;            // the sender was lost: it never comes
  };
  using Key = std::pair<uint64_t, uint64_t>;  // (worker, tag)
  using Table = std::map<Key, Incoming>;

  // Starts receiving into `destination`, or into a buffer when null.
  void post(Incoming& in, void* destination, PeerFailures& failed);
  // Hands an arrived (or failed) payload to its receive() and forgets it.
  void complete(Table::iterator it);

  Communicator& comm_;
  BufferPool& buffers_;
  const Clock& clock_;
  std::chrono::microseconds direct_receive_wait_;
  Table incoming_;
  size_t receiving_ = 0;  // of them, posted and not yet arrived
  bool delivering_ = true;
};

}  // namespace lightning::comm
