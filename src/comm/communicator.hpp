// The point-to-point calls the MPI transport makes, behind an interface: the protocols built
// on them (announced payloads, pending sends) are tested with a fake, without MPI processes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lightning::comm {

/// A call for a peer that failed: the transport counts the peer as lost, for `reason`.
struct PeerFailure {
  int rank = -1;
  std::string reason;
};
using PeerFailures = std::vector<PeerFailure>;

/// Non-blocking messages between the ranks of a group. Not thread-safe: one thread (the
/// transport's communication thread) makes every call.
///
/// Calls that can fail return an empty string on success, else why they failed.
class Communicator {
 public:
  /// An operation under way, named as the communicator implementation likes (for MPI, the
  /// bits of an MPI_Request). Valid from the isend()/irecv() that set it until test() says it
  /// is done or free() lets go of it.
  using Request = uint64_t;

  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// The largest tag a message may carry.
  virtual int tag_ub() const = 0;

  /// Starts sending `size` bytes from `data` to `to` with `tag`; the bytes must stay valid and
  /// unchanged until the request is done (or freed).
  virtual std::string isend(const void* data, size_t size, int to, int tag, Request* request) = 0;
  /// Starts receiving `size` bytes from `from` with `tag` into `data`.
  virtual std::string irecv(void* data, size_t size, int from, int tag, Request* request) = 0;
  /// Sets `done` when the request has completed (it is then finished with).
  virtual std::string test(Request* request, bool* done) = 0;
  /// Asks for a receive that will never be matched to end (free() it afterwards).
  virtual void cancel(Request* request) = 0;
  /// Lets go of a request that will not be tested again: its peer was lost, or the transport
  /// stops.
  virtual void free(Request* request) = 0;
  /// Receives one message with `tag` from any rank, if one has arrived: returns whether one
  /// had, with its sender and bytes. A failure counts as nothing having arrived.
  virtual bool receive_any(int tag, int* from, std::vector<uint8_t>* bytes) = 0;
};

}  // namespace lightning::comm
