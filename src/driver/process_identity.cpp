#include "driver/process_identity.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace lightning::driver {

namespace {

// Field 22 of /proc/<pid>/stat (its start time), or 0 when the process does not exist or has
// ended (a zombie waiting for its parent).
uint64_t start_time_of(int64_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return 0;
  // The command name (field 2) is in parentheses and may hold spaces: count after its end.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int f = 3; f <= 22 && fields >> field; ++f) {
    if (f == 3 && (field == "Z" || field == "X")) return 0;
    if (f == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

}  // namespace

ProcessIdentity ProcessIdentity::of_this_process() {
  return of(static_cast<int64_t>(getpid()));
}

ProcessIdentity ProcessIdentity::of(int64_t pid) {
  ProcessIdentity p;
  gethostname(p.host, sizeof p.host - 1);
  p.pid = pid;
  p.start_time = start_time_of(pid);
  return p;
}

std::string ProcessIdentity::host_name() const {
  return std::string(host, strnlen(host, sizeof host));
}

bool ProcessIdentity::same_host(const ProcessIdentity& other) const {
  return host_name() == other.host_name();
}

bool ProcessIdentity::is_alive_here() const {
  if (!same_host(of_this_process()) || pid <= 0 || start_time == 0) return false;
  return start_time_of(pid) == start_time;
}

bool end_process(const ProcessIdentity& process) {
  if (process.pid == static_cast<int64_t>(getpid()) || !process.is_alive_here()) return false;
  const auto pid = static_cast<pid_t>(process.pid);
  // SIGTERM first, so that it removes its spill directory; SIGCONT wakes it if it is stopped.
  if (kill(pid, SIGTERM) != 0) return false;
  kill(pid, SIGCONT);
  for (int waited_ms = 0; waited_ms < 2000 && process.is_alive_here(); waited_ms += 20)
    usleep(20 * 1000);
  if (process.is_alive_here()) kill(pid, SIGKILL);
  return true;
}

}  // namespace lightning::driver
