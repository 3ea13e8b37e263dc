// Whether a process has the CPUs its runtime threads need. Under mpirun a rank is often bound
// to one core (Open MPI's default for up to two ranks), where the program's thread, the
// communication thread, the worker's scheduler and staging threads and each device's compute
// thread take turns: on one H100 machine a chain of small launches at np 2 cost 19-22 µs a
// launch bound that way and 11-12 µs with `--bind-to none` (docs/results.md).
#pragma once

#include <string>

namespace lightning {

/// The runtime threads of a process that work during every launch: the program's, the
/// communication thread, the worker's scheduler and staging threads, one device's compute
/// thread.
inline constexpr int kBusyRuntimeThreads = 5;

/// How many CPUs the calling thread may run on (its affinity mask); 0 where it cannot tell.
int cpus_allowed();

/// How many CPUs the machine has online; 0 where it cannot tell.
int cpus_online();

/// Advice for a process that may run on `allowed` of the machine's `online` CPUs, one of
/// `processes` on the machine (the node's ranks), while `busy_threads` runtime threads work at
/// once: empty unless it has fewer than its share could give it (fewer than both
/// `busy_threads` and online / processes).
std::string cpu_affinity_advice(int allowed, int online, int processes, int busy_threads);

}  // namespace lightning
