#include "core/cpu_affinity.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace lightning {

int cpus_allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

int cpus_online() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 0;
}

std::string cpu_affinity_advice(int allowed, int online, int processes, int busy_threads) {
  if (allowed <= 0 || online <= 0 || processes <= 0) return {};
  const int share = std::min(busy_threads, online / processes);
  if (allowed >= share) return {};
  return "this process may run on " + std::to_string(allowed) + " of the machine's " +
         std::to_string(online) + " CPUs (its CPU affinity: mpirun binds each rank to one core " +
         "by default), but " + std::to_string(busy_threads) +
         " runtime threads work during every launch (the program's, communication, the "
         "worker's scheduler and staging threads, a device's compute thread), so they take "
         "turns and small launches cost up to twice as much. Give " +
         (processes == 1 ? std::string("the rank ")
                         : "each of the machine's " + std::to_string(processes) + " ranks ") +
         std::to_string(share) +
         " CPUs or more: mpirun --bind-to none, or --map-by slot:PE=<CPUs per rank>";
}

}  // namespace lightning
