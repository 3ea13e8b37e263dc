#include "worker/spill_cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>

namespace lightning::worker {

namespace fs = std::filesystem;

int remove_abandoned_spill_dirs(const std::string& parent) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path dir = it->path();
    std::error_code e;
    if (dir.filename().string().rfind(kSpillDirPrefix, 0) != 0 || !it->is_directory(e)) continue;
    const std::string lock = (dir / kSpillOwnerLock).string();
    const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
    bool abandoned = false;
    if (fd >= 0) {
      abandoned = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    } else if (errno == ENOENT) {
      const auto age = fs::file_time_type::clock::now() - fs::last_write_time(dir, e);
      abandoned = !e && age > std::chrono::minutes(1);
    }
    if (abandoned && fs::remove_all(dir, e) > 0 && !e) ++removed;
    if (fd >= 0) ::close(fd);
  }
  return removed;
}

namespace {

// The directories a signal handler must remove. Global because a signal handler can reach
// nothing else; fixed-size, so that the handler reads no memory that could be freed under it.
constexpr int kSlots = 64;
constexpr size_t kPathMax = 512;
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax] = {};
  char parent[kPathMax] = {};
};
Slot g_slots[kSlots];
std::once_flag g_handlers_installed;

// Calls `f(name)` for every entry of the directory open at `dir_fd` but "." and "..", with
// async-signal-safe calls only (getdents64, not readdir).
template <class F>
void for_each_entry(int dir_fd, F f) {
  alignas(8) char buf[4096];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dir_fd, buf, sizeof buf);
    if (n <= 0) return;
    for (long off = 0; off < n;) {
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
      unsigned short reclen;
      std::memcpy(&reclen, buf + off + 16, sizeof reclen);
      const char* name = buf + off + 19;
      off += reclen;
      if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) f(name);
    }
  }
}

// Removes the files of one directory (spill directories are flat) and the directory, with
// async-signal-safe calls only (open, getdents64, unlinkat, close, rmdir).
void remove_flat_dir(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  for_each_entry(fd, [fd](const char* name) { ::unlinkat(fd, name, 0); });
  ::close(fd);
  ::rmdir(path);
}

// remove_abandoned_spill_dirs without the age rule, with async-signal-safe calls only: when
// mpirun ends a job after a rank was killed, the survivors' handlers remove its directory too.
void remove_abandoned_signal_safe(const char* parent) {
  const int fd = ::open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  const size_t prefix = std::strlen(kSpillDirPrefix);
  const size_t parent_length = std::strlen(parent);
  for_each_entry(fd, [&](const char* name) {
    const size_t length = std::strlen(name);
    if (std::strncmp(name, kSpillDirPrefix, prefix) != 0 ||
        parent_length + length + std::strlen(kSpillOwnerLock) + 3 > kPathMax)
      return;
    char dir[kPathMax], lock[kPathMax];
    std::memcpy(dir, parent, parent_length);
    dir[parent_length] = '/';
    std::memcpy(dir + parent_length + 1, name, length + 1);
    std::memcpy(lock, dir, parent_length + 1 + length);
    lock[parent_length + 1 + length] = '/';
    std::memcpy(lock + parent_length + 2 + length, kSpillOwnerLock,
                std::strlen(kSpillOwnerLock) + 1);
    const int lock_fd = ::open(lock, O_RDWR | O_CLOEXEC);
    if (lock_fd < 0) return;
    if (::flock(lock_fd, LOCK_EX | LOCK_NB) == 0) remove_flat_dir(dir);
    ::close(lock_fd);
  });
  ::close(fd);
}

void on_fatal_signal(int sig) {
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) remove_flat_dir(s.path);
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) remove_abandoned_signal_safe(s.parent);
  std::signal(sig, SIG_DFL);
  std::raise(sig);  // ends the process as the signal would have
}

void install_handlers() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction act {};
    act.sa_handler = on_fatal_signal;
    sigemptyset(&act.sa_mask);
    ::sigaction(sig, &act, nullptr);
  }
}

}  // namespace

int register_spill_dir(const std::string& dir, const std::string& parent) {
  if (dir.size() >= kPathMax || parent.size() >= kPathMax) return -1;
  std::call_once(g_handlers_installed, install_handlers);
  static std::mutex claim;  // registrations are rare; the handler reads only `used`
  std::lock_guard<std::mutex> lock(claim);
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.used.load(std::memory_order_relaxed)) continue;
    std::memcpy(s.path, dir.c_str(), dir.size() + 1);
    std::memcpy(s.parent, parent.c_str(), parent.size() + 1);
    s.used.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_spill_dir(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].used.store(false, std::memory_order_release);
}

}  // namespace lightning::worker
