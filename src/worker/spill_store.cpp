#include "worker/spill_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/size_text.hpp"
#include "worker/spill_cleanup.hpp"

namespace lightning::worker {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}
uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

std::string errno_text(int err) {
  return std::error_code(err, std::generic_category()).message();
}

/// Closes a file descriptor on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void write_all(int fd, const unsigned char* p, uint64_t n, const std::string& path) {
  while (n > 0) {
    const size_t step = static_cast<size_t>(std::min<uint64_t>(n, uint64_t{1} << 30));
    const ssize_t w = ::write(fd, p, step);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      throw Error(ErrorKind::kTask,
                  "cannot write spill file " + path + ": " + errno_text(w < 0 ? errno : EIO));
    p += w;
    n -= static_cast<uint64_t>(w);
  }
}

/// Reads up to n bytes; returns how many were read (fewer only at end of file).
uint64_t read_all(int fd, unsigned char* p, uint64_t n, const std::string& path) {
  uint64_t done = 0;
  while (done < n) {
    const size_t step = static_cast<size_t>(std::min<uint64_t>(n - done, uint64_t{1} << 30));
    const ssize_t r = ::read(fd, p + done, step);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0)
      throw Error(ErrorKind::kTask, "cannot read spill file " + path + ": " + errno_text(errno));
    if (r == 0) break;
    done += static_cast<uint64_t>(r);
  }
  return done;
}

}  // namespace

SpillStore::SpillStore(const std::string& parent_dir) {
  std::string parent = parent_dir;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  } else {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
      throw Error(ErrorKind::kConfig,
                  "cannot create spill directory " + parent + ": " + ec.message());
  }
  if (const int removed = remove_abandoned_spill_dirs(parent); removed > 0)
    log().info("removed {} spill director{} under {} left by processes that ended", removed,
               removed == 1 ? "y" : "ies", parent);
  std::string templ = parent + "/" + kSpillDirPrefix + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    throw Error(ErrorKind::kConfig, "cannot create a spill directory under " + parent + ": " +
                                        errno_text(errno) + " (set LIGHTNING_SPILL_DIR)");
  dir_ = buf.data();
  parent_ = parent;
  // Held until the destructor: while it is, no other process sweeps this directory.
  const std::string lock = dir_ + "/" + kSpillOwnerLock;
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (lock_fd_ >= 0) ::close(lock_fd_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    throw Error(ErrorKind::kConfig, "cannot lock spill directory " + dir_ + ": " + errno_text(err));
  }
  signal_slot_ = register_spill_dir(dir_, parent_);
}

SpillStore::~SpillStore() {
  unregister_spill_dir(signal_slot_);
  for (ChunkId c : files_) ::unlink(path_of(c).c_str());
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);  // the lock and anything an interrupted write left
  ::close(lock_fd_);
  // And those of processes that ended meanwhile (a rank killed during the run), so that a
  // run that outlives a lost rank leaves nothing behind either.
  remove_abandoned_spill_dirs(parent_);
}

std::string SpillStore::path_of(ChunkId chunk) const {
  return dir_ + "/" + chunk.to_string() + ".spill";
}

uint64_t SpillStore::checksum(const void* data, uint64_t bytes) {
  return XXH3_64bits(data, static_cast<size_t>(bytes));
}

void SpillStore::write(ChunkId chunk, const void* data, uint64_t bytes) {
  const std::string path = path_of(chunk);
  unsigned char header[kHeaderSize] = {};
  std::memcpy(header, kMagic, sizeof kMagic);
  put_u32(header + 8, kVersion);
  put_u32(header + 12, kHeaderSize);
  put_u64(header + 16, chunk.value());
  put_u64(header + 24, bytes);
  put_u64(header + 32, checksum(data, bytes));
  // Replacing a file: its old contents are stale from here on, so forget it first; a failed
  // write then leaves no file that claims to be valid.
  remove(chunk);
  Fd f;
  f.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (f.fd < 0)
    throw Error(ErrorKind::kTask, "cannot create spill file " + path + " for chunk " +
                                      chunk.to_string() + ": " + errno_text(errno));
  try {
    write_all(f.fd, header, kHeaderSize, path);
    write_all(f.fd, static_cast<const unsigned char*>(data), bytes, path);
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
  files_.insert(chunk);
}

void SpillStore::read(ChunkId chunk, void* dst, uint64_t bytes) const {
  const std::string path = path_of(chunk);
  const std::string what = "spill file " + path + " of chunk " + chunk.to_string();
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) throw Error(ErrorKind::kTask, "cannot open " + what + ": " + errno_text(errno));
  unsigned char header[kHeaderSize];
  if (read_all(f.fd, header, kHeaderSize, path) != kHeaderSize)
    throw Error(ErrorKind::kTask, what + " is truncated: no complete header");
  if (std::memcmp(header, kMagic, sizeof kMagic) != 0)
    throw Error(ErrorKind::kTask, what + " is corrupt: bad magic");
  if (get_u32(header + 8) != kVersion || get_u32(header + 12) != kHeaderSize)
    throw Error(ErrorKind::kTask,
                what + " has unknown format version " + std::to_string(get_u32(header + 8)));
  if (get_u64(header + 16) != chunk.value())
    throw Error(ErrorKind::kTask, what + " is corrupt: its header names chunk C" +
                                      std::to_string(get_u64(header + 16)));
  if (get_u64(header + 24) != bytes)
    throw Error(ErrorKind::kTask, what + " is corrupt: its header says " +
                                      std::to_string(get_u64(header + 24)) + " bytes, expected " +
                                      std::to_string(bytes));
  auto* out = static_cast<unsigned char*>(dst);
  if (read_all(f.fd, out, bytes, path) != bytes)
    throw Error(ErrorKind::kTask,
                what + " is truncated: expected " + format_size(bytes) + " of data");
  unsigned char extra;
  if (read_all(f.fd, &extra, 1, path) != 0)
    throw Error(ErrorKind::kTask, what + " is corrupt: longer than its header says");
  const uint64_t expected = get_u64(header + 32);
  const uint64_t actual = checksum(dst, bytes);
  if (actual != expected)
    throw Error(ErrorKind::kTask, what + " is corrupt: payload checksum " + hex(actual) +
                                      ", header checksum " + hex(expected));
}

void SpillStore::remove(ChunkId chunk) {
  if (files_.erase(chunk) != 0) ::unlink(path_of(chunk).c_str());
}

}  // namespace lightning::worker
