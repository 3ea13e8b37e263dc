// Who an MPI rank's process is on its host, so that a survivor can end a lost rank that
// mpirun does not (a stopped or hung process under `mpirun --enable-recovery`).
#pragma once

#include <cstdint>
#include <string>

namespace lightning::driver {

/// A process as its host knows it: host name, pid and start time (in clock ticks since
/// boot), which together tell it from a later process that reuses the pid. Plain bytes, so
/// that ranks exchange it with one MPI_Allgather.
struct ProcessIdentity {
  char host[64] = {};
  int64_t pid = 0;
  uint64_t start_time = 0;

  /// The calling process.
  static ProcessIdentity of_this_process();
  /// Process `pid` of this host (start time 0 when there is none).
  static ProcessIdentity of(int64_t pid);

  /// The host's name, as `host` holds it.
  std::string host_name() const;
  /// Whether both run on one host (by host name).
  bool same_host(const ProcessIdentity& other) const;
  /// Whether it runs on the calling process's host and is still the same process (its pid
  /// alive with the start time recorded).
  bool is_alive_here() const;
};

/// Ends `process` when it is alive on this host and is not the caller: SIGTERM (and SIGCONT,
/// for a stopped one), so that the runtime's handler removes its spill directory; SIGKILL
/// when it still lives 2 s later. Returns whether it was signalled.
bool end_process(const ProcessIdentity& process);

}  // namespace lightning::driver
