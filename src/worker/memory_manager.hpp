// Where a worker's chunk data lives: device memories, host memory and disk, with eviction
// device -> host -> disk in the order of planned use, and all-or-nothing staging of a task's
// chunks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ids.hpp"
#include "core/reused_nodes.hpp"
#include "worker/byte_range.hpp"
#include "worker/memory_backend.hpp"
#include "worker/memory_pool.hpp"
#include "worker/memory_space.hpp"
#include "worker/next_use.hpp"
#include "worker/spill_store.hpp"

namespace lightning::worker {

/// Capacities of a worker's memories.
struct MemoryLimits {
  /// Every device of the worker with the size of its pool (its cap), in bytes, rounded down
  /// to MemoryPool::kAlignment (the cap is never exceeded). A pool's address range is
  /// reserved up front; its memory is backed as chunks need it (MemoryBackend::grow_device_pool),
  /// so processes of one node can share a GPU.
  std::vector<std::pair<DeviceId, uint64_t>> devices;
  /// Cap on host copies of chunks (evicted from devices or staged for host tasks); empty =
  /// unlimited.
  std::optional<uint64_t> host_bytes;
  /// Parent of the spill directory ("" = $TMPDIR or /tmp): see SpillStore.
  std::string spill_dir;
};

/// One chunk a task needs: where, and whether the task writes it.
struct StageRequest {
  ChunkId chunk;
  MemorySpace where;  ///< a device of the manager, or the host
  bool will_write = false;
  /// Bytes of the chunk the task writes every one of and reads none of (a Recv or copy into
  /// a region of it, a kernel's dense `overwrite`): a copy staged for it is filled around
  /// them only, and not at all when they are the whole chunk. Implies will_write.
  ByteRange overwritten = {};
};

enum class StageResult {
  kStaged,      ///< every chunk has a valid copy where requested, locked for the token
  kRetryLater,  ///< nothing changed: space or chunks are held by other tokens; retry after an
                ///< unstage()
};

/// What the manager has done so far: for tests, traces and the soak test.
struct MemoryCounters {
  uint64_t stagings = 0;             ///< tokens staged (stage() and stage_in_place())
  uint64_t device_evictions = 0;     ///< copies removed from a device memory to make room
  uint64_t host_evictions = 0;       ///< copies removed from host memory to make room
  uint64_t write_backs_to_host = 0;  ///< evicted device copies written to host memory
  uint64_t disk_writes = 0;          ///< spill files written
  uint64_t disk_reads = 0;           ///< spill files read back (checksum verified)
  uint64_t bytes_copied = 0;         ///< bytes moved by MemoryBackend::copy
  uint64_t bytes_written_to_disk = 0;
  uint64_t bytes_read_from_disk = 0;
  uint64_t zero_fills = 0;     ///< copies materialised as zeros (never-written chunks)
  uint64_t invalidations = 0;  ///< copies dropped because a task wrote another copy
  uint64_t fills_skipped = 0;  ///< copies staged without their old bytes (overwritten whole)
  uint64_t partial_fills = 0;  ///< copies filled around the bytes their task overwrites
  /// Device copies written back to the host ahead of their eviction (start_write_back), off
  /// the staging path; counted in bytes_copied, not in write_backs_to_host.
  uint64_t written_back_early = 0;
  uint64_t pool_growths = 0;  ///< times a device pool's backed memory grew
};

/// A device copy to write back to the host ahead of its eviction (MemoryManager::start_write_back):
/// the caller copies `bytes` from `src` (in `from`) to `dst` (host memory), then calls
/// MemoryManager::finish_write_back.
struct WriteBack {
  ChunkId chunk;
  MemorySpace from;
  const void* src = nullptr;
  void* dst = nullptr;
  uint64_t bytes = 0;
};

/// The memory manager of one worker.
///
/// Each chunk has at most one copy per memory (each device, the host, the disk). Every copy
/// that exists holds the chunk's current contents ("valid"): when a task stages a chunk for
/// writing, the other copies are dropped at once, so the written copy is the only one (and is
/// dirty: it must be written back before it is evicted). A chunk that was never staged has no
/// copy; its first staging materialises zeros. A copy staged for a task that overwrites the
/// whole chunk (StageRequest::overwrites) is not filled at all.
///
/// stage() locks copies for a token (one task); unstage() unlocks them. Locked copies are
/// never moved or evicted. When a memory is full, unlocked copies are evicted in the order of
/// their chunks' planned use (plan_next_use: what the worker's tasks will use): first those of
/// chunks no task will use, least recently used first (by a counter bumped at every stage and
/// unstage), then those whose next use is farthest (Belady's order, as far as the worker
/// knows the future; a streamed loop over more data than fits keeps what the next pass
/// reads first, where LRU would keep none of it). A copy with another valid copy
/// somewhere (another memory or a spill file) is dropped; the only copy of a chunk is written
/// back, from a device to the host (making room there the same way) or, when the host cannot
/// take it, to disk; from the host to disk.
///
/// NOT thread-safe: owned by one thread (the worker's staging thread). It starts no threads.
class MemoryManager {
 public:
  /// Allocates one pool per device of `limits` from `backend`, which must outlive the manager,
  /// and creates the spill directory.
  MemoryManager(MemoryLimits limits, MemoryBackend& backend);
  /// Frees every copy and pool and removes the spill files and directory.
  ~MemoryManager();
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;

  /// Registers a chunk of `bytes` bytes (metadata only: memory comes at its first staging).
  /// Its copies on devices start `phase` bytes (modulo MemoryPool::kAlignment) after a
  /// multiple of kAlignment, so that a chunk can keep the alignment its elements have in the
  /// whole array (the GPU reads misaligned rows noticeably slower); the pool block is that
  /// much bigger. Throws Error(kInvalidArgument) when the chunk already exists or the id is
  /// invalid.
  void create_chunk(ChunkId chunk, uint64_t bytes, uint64_t phase = 0);
  /// Frees every copy of a chunk, its spill file included. Throws Error(kInvalidArgument) when
  /// the chunk is unknown or staged (locked) by a token.
  void delete_chunk(ChunkId chunk);
  bool has_chunk(ChunkId chunk) const { return chunks_.count(chunk) != 0; }
  uint64_t chunk_bytes(ChunkId chunk) const;

  /// Gives every requested chunk a valid copy in its requested memory, locked for `token`,
  /// all or nothing. A chunk may be requested several times (the writes are or-ed) and in
  /// several memories when no request of it writes. Returns kRetryLater, changing nothing,
  /// when another token holds a requested chunk that this request would write (or writes a
  /// chunk it would read), or when locked copies hold the space needed. Throws
  /// Error(kOutOfMemory), with the sizes, when the chunks requested on one memory exceed its
  /// capacity (they could never fit); Error(kInvalidArgument) for an unknown chunk or device,
  /// the disk as a target, a token already staged, or a written chunk also requested in
  /// another memory; Error(kTask) when a spill file fails its checksum.
  StageResult stage(uint64_t token, const std::vector<StageRequest>& requests);
  /// Stages `token` behind the tokens `behind`, which must all be staged, without moving or
  /// evicting anything: every requested chunk must already have a copy in its requested
  /// memory, and a chunk it writes no copy anywhere else; except a new chunk (no bytes
  /// anywhere yet), which gets its first copy there if the memory has room as it is (filled
  /// as stage() fills one). Locks other tokens hold there do
  /// not stand in the way: the caller guarantees that the task runs after every holder whose
  /// access conflicts with its own (they run in order on one in-order queue of that memory's
  /// device). Returns false, changing nothing, when any of this does not hold (the task is then
  /// staged the ordinary way once its predecessors are done). Throws as stage() for unknown
  /// chunks and a token already staged.
  bool stage_in_place(uint64_t token, const std::vector<StageRequest>& requests,
                      const std::vector<uint64_t>& behind);
  /// The chunk's next planned use: the id of the first task the worker holds that will use it
  /// (kNoPlannedUse: none). Eviction keeps the chunks used soonest (see the class comment).
  /// Taken for a chunk not created yet too (its creation may come later); ignored for one
  /// that is gone.
  void plan_next_use(ChunkId chunk, uint64_t task);
  /// Cleaning ahead of eviction: what a device would evict to have 1/kCleanShareOfMemory of
  /// its memory free (beyond its free memory and the copies being written back) should cost no
  /// copy. The first copy among those, in eviction order, that is its chunk's only one and
  /// that a task will use (plan_next_use) is written back: its host copy is allocated (making
  /// room there as eviction does; nothing is started when the host cannot take it), and both copies
  /// stay locked until finish_write_back. Meanwhile no task can stage the chunk (stage()
  /// answers kRetryLater, stage_in_place() false) nor can it be deleted. The caller makes the
  /// copy, on another thread: when the chunk is evicted later, its copy is dropped without a
  /// copy on the staging path. Nothing when no device needs it.
  std::optional<WriteBack> start_write_back();
  /// The copy of a write-back ended: with `ok`, the host copy is valid (so the device copy is
  /// no longer the only one); else the host copy is dropped.
  void finish_write_back(ChunkId chunk, bool ok);
  /// Whether a write-back of the chunk is under way.
  bool writing_back(ChunkId chunk) const { return write_backs_.count(chunk) != 0; }
  /// Devices keep at least 1/kCleanShareOfMemory of their memory free or clean
  /// (start_write_back).
  static constexpr uint64_t kCleanShareOfMemory = 4;
  /// Whether eviction may soon need the next uses: some device's memory is more than
  /// 1/kPlansFromShareOfMemory used. Below that the staging thread does not ask for them.
  bool wants_next_uses() const;
  static constexpr uint64_t kPlansFromShareOfMemory = 2;
  /// A device pool grows by multiples of this (or up to its capacity): few driver calls,
  /// little memory held beyond what chunks use.
  static constexpr uint64_t kPoolGrowthStep = uint64_t{64} << 20;
  /// Unlocks a token's chunks and bumps their LRU time. Throws Error(kInvalidArgument) for a
  /// token that is not staged.
  void unstage(uint64_t token);
  bool is_staged(uint64_t token) const { return tokens_.count(token) != 0; }

  /// Address of a chunk's copy in a memory (device address for a device). Valid while the
  /// chunk is locked there. Throws Error(kInvalidArgument) when there is no copy there.
  void* data(ChunkId chunk, MemorySpace where) const;

  /// Bytes held in a memory: pool bytes (rounded to the pool's alignment) for a device, chunk
  /// bytes for the host and the disk (payloads of spill files).
  uint64_t bytes_used(MemorySpace where) const;
  /// Capacity of a device or the host (empty = unlimited host, and the disk): a device's cap,
  /// or what its pool had reached when its memory could not grow further.
  std::optional<uint64_t> capacity(MemorySpace where) const;
  /// Bytes of a device's pool backed by memory so far (at most its capacity).
  uint64_t bytes_backed(MemorySpace where) const;
  /// Whether a chunk has a copy in a memory (a spill file for the disk).
  bool has_copy(ChunkId chunk, MemorySpace where) const;
  /// Whether a chunk's copy in a memory is locked by some token.
  bool is_locked(ChunkId chunk, MemorySpace where) const;
  size_t spill_file_count() const { return spill_.file_count(); }
  const std::string& spill_directory() const { return spill_.directory(); }
  size_t chunk_count() const { return chunks_.size(); }
  const MemoryCounters& counters() const { return counters_; }
  std::vector<DeviceId> devices() const;

  /// Checks the internal bookkeeping (pool and host accounting, LRU lists, locks, at least one
  /// copy for every chunk with data); throws Error(kInternal) describing the first problem.
  /// For tests: linear in the number of chunks.
  void check_invariants() const;

 private:
  struct Copy {
    void* ptr = nullptr;
    uint64_t offset = 0;  ///< in the device pool
    bool valid = false;   ///< false only while stage() fills it
    uint32_t locks = 0;
    uint64_t last_use = 0;
  };
  struct Chunk {
    uint64_t bytes = 0;
    uint64_t phase = 0;  ///< device copies start this far past an aligned pool block
    uint64_t pool_bytes() const { return bytes + phase; }
    std::map<size_t, Copy> copies;  ///< memory index -> copy
    bool on_disk = false;           ///< its spill file holds the current contents
    bool has_data = false;          ///< materialised at least once (else: zeros)
    uint32_t locks = 0;             ///< copies locked, over all tokens
    /// Tokens staging it for writing: one, or several staged in place behind one another
    /// (stage_in_place), which run in that order on one queue.
    uint32_t writers = 0;
    uint64_t next_use = kNoPlannedUse;  ///< plan_next_use
  };
  /// An unlocked copy's place in its memory's eviction order (first evicted first): chunks
  /// with no planned use by last use, then the others by next use, farthest first.
  struct EvictionKey {
    uint64_t planned;  ///< 0: no planned use; 1: planned
    uint64_t order;    ///< last use (unplanned), or kNoPlannedUse - next use (planned)
    ChunkId chunk;
    friend bool operator<(const EvictionKey& a, const EvictionKey& b) {
      if (a.planned != b.planned) return a.planned < b.planned;
      if (a.order != b.order) return a.order < b.order;
      return a.chunk.value() < b.chunk.value();
    }
  };
  struct Memory {
    MemorySpace space;
    /// Devices only: its capacity is what is backed so far, up to `capacity`.
    std::optional<MemoryPool> pool;
    void* base = nullptr;  ///< devices only
    /// Host: empty = unlimited. Device: the cap, lowered to the pool's size when the
    /// device had no memory left for it to grow (stopped_growing).
    std::optional<uint64_t> capacity;
    uint64_t cap = 0;                 ///< devices only: the cap it was given
    uint64_t host_used = 0;           ///< host only
    std::set<EvictionKey> evictable;  ///< unlocked copies, first evicted first
  };
  struct Held {
    ChunkId chunk;
    size_t memory;
    bool write;
  };
  /// One chunk in one memory as a task asks for it, its requests merged.
  struct Merged {
    ChunkId chunk;
    size_t memory;
    bool write;             ///< a request writes it
    ByteRange overwritten;  ///< what every request for it overwrites
  };

  size_t memory_index(MemorySpace where, const char* what) const;
  size_t host_index() const { return memories_.size() - 1; }
  bool is_device(size_t m) const { return m != host_index(); }
  Chunk& chunk_ref(ChunkId chunk, const char* what);
  const Chunk& chunk_ref(ChunkId chunk, const char* what) const;
  uint64_t footprint(size_t m, const Chunk& c) const;
  uint64_t memory_used(size_t m) const;

  static EvictionKey eviction_key(ChunkId id, const Chunk& c, const Copy& cp);
  void lock_copy(ChunkId id, Chunk& c, size_t m);
  void unlock_copy(ChunkId id, Chunk& c, size_t m);
  bool try_allocate(ChunkId id, Chunk& c, size_t m);
  void free_copy(ChunkId id, Chunk& c, size_t m);
  bool has_other_valid(const Chunk& c, size_t m) const;
  void evict(ChunkId id, size_t m);
  bool make_host_room(uint64_t bytes);
  void write_to_disk(ChunkId id, Chunk& c, size_t from);
  void fill(ChunkId id, Chunk& c, size_t m, ByteRange skipped = {});

  /// Fills merged_ from `requests`: one entry per (chunk, memory), sorted by both.
  void merge_requests(const std::vector<StageRequest>& requests, const char* what);
  /// Makes a new copy of a merged request valid: filled from another copy, the disk or with
  /// zeros, except the bytes the task overwrites (not at all when that is the whole chunk).
  void fill_unless_valid(const Merged& x);
  /// The merged request for `chunk` in memory `m` (one merge_requests made).
  const Merged& merged(ChunkId chunk, size_t m) const;
  /// Whether wanted_ can be staged, evicting what is not locked; marks in relocate_ the
  /// memories where copies already in place must move. Grows device pools (grow_pool) where
  /// the missing chunks do not fit in what is backed, before counting on evictions.
  bool feasible();
  bool try_allocate_all(size_t m, const std::vector<ChunkId>& missing,
                        std::vector<uint64_t>* offsets);
  /// Backs `more` bytes of device memory `m`'s pool beyond what it has (in steps of
  /// kPoolGrowthStep, never past its capacity). Returns false when it is at its capacity or
  /// the device has no memory left; the latter lowers the capacity to the pool's size.
  bool grow_pool(size_t m, uint64_t more);
  /// Throws when wanted_ asks a memory for more than its capacity.
  void check_wanted_fits() const;
  /// Whether device memory `mem` could not grow to its cap (its capacity was lowered).
  static bool stopped_growing(const Memory& mem) { return *mem.capacity < mem.cap; }
  [[noreturn]] void throw_too_big(size_t m, const std::vector<ChunkId>& chunks, uint64_t raw,
                                  uint64_t rounded) const;

  MemoryBackend& backend_;
  std::vector<Memory> memories_;  ///< devices in MemoryLimits order, then the host
  std::unordered_map<DeviceId, size_t> device_index_;
  std::unordered_map<ChunkId, Chunk> chunks_;
  std::unordered_map<uint64_t, std::vector<Held>> tokens_;
  ReusedNodes<std::unordered_map<uint64_t, std::vector<Held>>> reused_tokens_;
  // stage()'s scratch, kept between calls so that a stage allocates nothing in steady state.
  std::vector<Merged> merged_;
  std::vector<std::vector<ChunkId>> wanted_;  ///< per memory: its chunks, biggest first
  std::vector<char> relocate_;                ///< per memory (see feasible)
  std::vector<ChunkId> missing_;
  std::vector<uint64_t> offsets_;
  /// Write-backs under way (start_write_back): chunk -> the device memory written back.
  std::unordered_map<ChunkId, size_t> write_backs_;
  /// Next uses of chunks not created yet (plan_next_use before create_chunk).
  std::unordered_map<ChunkId, uint64_t> early_next_use_;
  SpillStore spill_;
  uint64_t clock_ = 0;
  uint64_t disk_bytes_ = 0;
  MemoryCounters counters_;
};

}  // namespace lightning::worker
