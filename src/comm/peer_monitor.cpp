#include "comm/peer_monitor.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace lightning::comm {

namespace {

std::string seconds_text(Clock::time_point::duration d) {
  std::ostringstream os;
  os.precision(1);
  os << std::fixed << std::chrono::duration<double>(d).count() << " s";
  return os.str();
}

}  // namespace

PeerMonitor::PeerMonitor(int rank, int size, std::vector<int> watched,
                         std::chrono::milliseconds heartbeat_interval,
                         std::chrono::milliseconds peer_timeout, const Clock& clock)
    : watched_(std::move(watched)),
      heartbeat_interval_(heartbeat_interval),
      peer_timeout_(peer_timeout),
      clock_(clock),
      next_heartbeat_(clock.now()),
      last_poll_(next_heartbeat_),
      last_heard_(static_cast<size_t>(size), next_heartbeat_),
      state_(static_cast<size_t>(size), State::kAlive) {
  for (int r : watched_)
    if (r < 0 || r >= size || r == rank)
      throw Error(ErrorKind::kInvalidArgument,
                  "MPI transport: cannot watch rank " + std::to_string(r) + " from rank " +
                      std::to_string(rank) + " of " + std::to_string(size));
}

void PeerMonitor::said_goodbye(int r) {
  State& s = state_[static_cast<size_t>(r)];
  if (s == State::kAlive) s = State::kGone;
}

bool PeerMonitor::mark_lost(int r) {
  State& s = state_[static_cast<size_t>(r)];
  if (s == State::kLost) return false;
  s = State::kLost;
  return true;
}

PeerMonitor::Due PeerMonitor::poll() {
  Due due;
  const Clock::time_point now = clock_.now();
  const Clock::time_point::duration gap = now - last_poll_;
  last_poll_ = now;
  if (gap > heartbeat_interval_)  // this rank was not running: its peers' silence stands still
    for (Clock::time_point& heard : last_heard_) heard = std::min(now, heard + gap);
  if (now < next_heartbeat_) return due;
  next_heartbeat_ = now + heartbeat_interval_;
  for (int r : watched_) {
    if (!alive(r)) continue;
    const auto silent = now - last_heard_[static_cast<size_t>(r)];
    if (silent > peer_timeout_) {
      mark_lost(r);
      due.timed_out.push_back({r, "nothing heard from it for " + seconds_text(silent) +
                                      " (no heartbeat: the process died or hangs)"});
      continue;
    }
    due.heartbeats.push_back(r);
  }
  return due;
}

}  // namespace lightning::comm
