// Chunk data on disk: one checksummed file per spilled chunk, in a private directory.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "core/ids.hpp"

namespace lightning::worker {

/// The spill files of one memory manager. Files live in a fresh directory made with mkdtemp:
/// `<parent>/lightning-spill-XXXXXX`, where parent is the configured spill directory
/// (LIGHTNING_SPILL_DIR; created when missing) or, when that is empty, $TMPDIR or /tmp. A
/// private directory per manager keeps processes that share a spill directory apart. The
/// destructor removes every file and the directory; so do SIGINT and SIGTERM (while their
/// handlers are the default ones), and a directory whose process ended otherwise (SIGKILL, a
/// crash, MPI_Abort) is removed by the next SpillStore made or destroyed under the same parent:
/// each directory holds a lock file its owner keeps locked (see spill_cleanup.hpp).
///
/// File format (`C<id>.spill`, little-endian), a 40-byte header then the payload:
///   offset 0  char[8]  magic "LKSPILL1"
///   offset 8  uint32   format version (1)
///   offset 12 uint32   header size in bytes (40)
///   offset 16 uint64   chunk id
///   offset 24 uint64   payload size in bytes
///   offset 32 uint64   XXH3-64 checksum of the payload (seed 0)
///   offset 40 payload
/// read() checks every header field and the payload checksum.
///
/// Not thread-safe (owned by the memory manager's thread).
class SpillStore {
 public:
  static constexpr char kMagic[8] = {'L', 'K', 'S', 'P', 'I', 'L', 'L', '1'};
  static constexpr uint32_t kVersion = 1;
  static constexpr uint32_t kHeaderSize = 40;

  /// Creates the private directory under `parent_dir` ("" = $TMPDIR or /tmp). Throws
  /// Error(kConfig) naming the directory when it cannot be created.
  explicit SpillStore(const std::string& parent_dir);
  ~SpillStore();
  SpillStore(const SpillStore&) = delete;
  SpillStore& operator=(const SpillStore&) = delete;

  /// The private directory holding the files.
  const std::string& directory() const { return dir_; }
  /// Path of a chunk's file (whether or not it exists).
  std::string path_of(ChunkId chunk) const;

  /// Writes (or replaces) a chunk's file with `bytes` bytes from host memory at `data`.
  /// Throws Error(kTask) naming the file on an I/O error (disk full, ...).
  void write(ChunkId chunk, const void* data, uint64_t bytes);
  /// Reads a chunk's file into host memory at `dst` (`bytes` bytes), verifying the header
  /// (magic, version, chunk, size) and the payload checksum. Throws Error(kTask) naming the
  /// file, the chunk and, on a checksum mismatch, both checksums.
  void read(ChunkId chunk, void* dst, uint64_t bytes) const;
  /// Removes a chunk's file, if any.
  void remove(ChunkId chunk);

  bool contains(ChunkId chunk) const { return files_.count(chunk) != 0; }
  /// Number of files written and not removed.
  size_t file_count() const { return files_.size(); }

  /// XXH3-64 of a buffer, as stored in the header.
  static uint64_t checksum(const void* data, uint64_t bytes);

 private:
  std::string dir_;
  std::string parent_;
  int lock_fd_ = -1;      // the owner's lock, held for the store's lifetime
  int signal_slot_ = -1;  // its registration for SIGINT/SIGTERM
  std::unordered_set<ChunkId> files_;
};

}  // namespace lightning::worker
