// Sends under way from this rank, until the communicator is done with their bytes.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "comm/buffer_pool.hpp"
#include "comm/communicator.hpp"
#include "comm/transport.hpp"

namespace lightning::comm {

/// Every send that has started and not completed: each keeps its bytes (a frame, a payload,
/// lent bytes) alive until the communicator is done with them, then gives lent bytes back to
/// their sender and a payload's buffer to the pool. Also numbers the payloads sent apart from
/// their header, per destination. Not thread-safe: the communication thread alone uses it.
///
/// Calls that start or test sends append the peers whose calls failed to `failed`, for the
/// transport to lose them (dropping their other sends with drop_to()); the failed send itself
/// is forgotten.
class PendingSends {
 public:
  PendingSends(Communicator& comm, BufferPool& buffers);

  /// The tag for the next payload to `to` (from kFirstPayloadTag, wrapping at the
  /// communicator's tag_ub, when the oldest are long done).
  int payload_tag(int to);
  /// Starts sending `frame` to `to` on the control tag.
  void send_frame(int to, std::vector<uint8_t> frame, PeerFailures& failed);
  /// Starts sending the payload of `message` (its lent bytes when it lends some, else its
  /// payload) to `to` with `tag`, straight from where the bytes are. When that fails, lent
  /// bytes are released at once.
  void send_payload(int to, int tag, DataMessage message, PeerFailures& failed);
  /// Completes the sends that are done; returns whether any finished (or failed). Once a send
  /// to a rank fails, its other sends are not tested in this call: they wait for drop_to().
  bool test(PeerFailures& failed);
  /// `r` was lost: lets go of the sends to it (their requests are freed, lent bytes released).
  void drop_to(int r);
  /// From now on lent bytes are not released (the transport's destructor has begun: no
  /// callback is made once it has).
  void stop_releasing() { releasing_ = false; }
  /// Lets go of every send still under way (at the end, once waiting for them is over).
  void abandon();
  /// Whether no send is under way (the communication thread then need not poll).
  bool empty() const { return sends_.empty(); }
  /// How many sends are under way.
  size_t size() const { return sends_.size(); }

 private:
  struct Send {
    Communicator::Request request = 0;
    int to = -1;
    std::vector<uint8_t> frame;  // kept alive until the send completes
    DataMessage message;         // ditto, for a payload sent from its own (or lent) buffer
  };

  // Gives lent bytes back to their sender (once they are sent, or will never be).
  void release(DataMessage& m);

  Communicator& comm_;
  BufferPool& buffers_;
  std::deque<Send> sends_;
  std::vector<int> next_payload_tag_;  // by destination
  bool releasing_ = true;
};

}  // namespace lightning::comm
