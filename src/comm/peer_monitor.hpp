// Which ranks are alive: heartbeats, silence, goodbyes.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "comm/clock.hpp"
#include "comm/communicator.hpp"

namespace lightning::comm {

/// The liveness of the other ranks, as one rank sees it. A killed process never says
/// goodbye, so a watched rank from which nothing has arrived for `peer_timeout` counts as
/// lost; to keep each other from falling silent, ranks send heartbeats every
/// `heartbeat_interval`. Silence counts only while this rank runs: a gap between two polls
/// longer than the heartbeat interval means this process itself was stopped or starved (a
/// SIGSTOP, a paused machine), and the peers could not be heard during it, so it is not held
/// against them (else a rank woken after a stop, as mpirun does to end a job, would declare
/// every peer lost at once and race the launcher's own ending of the job). Makes no calls
/// itself: poll() says what is due. Not thread-safe: the communication thread alone uses it.
class PeerMonitor {
 public:
  /// What is due at one poll().
  struct Due {
    std::vector<int> heartbeats;  ///< live watched ranks to send a heartbeat to
    PeerFailures timed_out;       ///< watched ranks silent for too long, now lost
  };

  /// Every rank starts alive, heard from now; the first heartbeat is due at once. Throws
  /// Error(kInvalidArgument) when `watched` names this rank or one outside [0, size).
  PeerMonitor(int rank, int size, std::vector<int> watched,
              std::chrono::milliseconds heartbeat_interval, std::chrono::milliseconds peer_timeout,
              const Clock& clock);

  /// The ranks whose liveness matters to this one.
  const std::vector<int>& watched() const { return watched_; }
  /// Whether messages to `r` should still go: it has neither said goodbye nor been lost.
  bool alive(int r) const { return state_[static_cast<size_t>(r)] == State::kAlive; }
  /// Something arrived from `r`: its silence starts again.
  void heard_from(int r) { last_heard_[static_cast<size_t>(r)] = clock_.now(); }
  /// `r` stops: it is no longer sent to, nor lost when it falls silent.
  void said_goodbye(int r);
  /// Makes `r` lost; returns false when it was already, so that a loss is handled once.
  bool mark_lost(int r);
  /// Nothing before the next heartbeat time (heartbeat_interval after the last one that was
  /// due); then a heartbeat for each live watched rank, except those silent for longer than
  /// peer_timeout, which are marked lost and returned once, with the reason. To be called
  /// often (every round of the communication loop): see the class comment on gaps.
  Due poll();

 private:
  enum class State : uint8_t { kAlive, kGone, kLost };

  std::vector<int> watched_;
  std::chrono::milliseconds heartbeat_interval_;
  std::chrono::milliseconds peer_timeout_;
  const Clock& clock_;
  Clock::time_point next_heartbeat_;
  Clock::time_point last_poll_;
  std::vector<Clock::time_point> last_heard_;  // by rank
  std::vector<State> state_;                   // by rank
};

}  // namespace lightning::comm
