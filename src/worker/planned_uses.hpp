// The tasks a worker has been given that will still use each chunk: what eviction knows of
// the future.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/ids.hpp"
#include "core/reused_nodes.hpp"
#include "core/ring_queue.hpp"
#include "worker/next_use.hpp"

namespace lightning::worker {

/// Per chunk, the worker's tasks that will use it and have not ended, in plan order; tells
/// which chunks' next use changed, for the memory manager's eviction order (which the
/// scheduler thread sends the staging thread with its next request).
///
/// Tasks are added in plan order (growing ids) and usually end in it too; one that ends
/// before the tasks planned ahead of it is marked until they have ended (each call costs a
/// hash lookup and at most a binary search). Single-threaded: owned by the worker's scheduler
/// thread.
class PlannedUses {
 public:
  /// `task` will use `chunk`. Tasks come in growing id order (plan order); a task added again
  /// for the same chunk (a second access) changes nothing.
  void add(TaskId task, ChunkId chunk);
  /// `task` has ended (or holds its chunks now): it no longer counts as a future use of
  /// `chunk`. Ending a use not added, or twice, changes nothing.
  void end(TaskId task, ChunkId chunk);
  /// The chunk is gone: forgets it. Its next use becomes kNoPlannedUse; when one was reported,
  /// that is a change (the withdrawal) and the entry goes at the next take_changes(), else at
  /// once. So entries are bounded by the chunks alive and those whose withdrawal waits, however
  /// long no one takes the changes.
  void forget(ChunkId chunk);

  /// The chunk's next planned use (kNoPlannedUse when none).
  uint64_t next_use(ChunkId chunk) const;
  /// Whether some chunk's next use changed since the last take_changes().
  bool has_changes() const { return !changed_.empty(); }
  /// The chunks whose next use changed since the last call, with their next use now, each
  /// once, in no particular order; `into` is cleared first (its storage reused).
  void take_changes(std::vector<NextUse>& into);
  /// Chunks with an entry: those with uses, or whose withdrawal waits (for tests).
  size_t chunk_count() const { return chunks_.size(); }

 private:
  struct Uses {
    /// Task ids in plan order, oldest first; the front one has not ended, those behind it may
    /// have (marked, see planned_uses.cpp).
    RingQueue<uint64_t> pending;
    uint64_t reported = kNoPlannedUse;  ///< the next use last taken by take_changes
    bool changed = false;
    size_t change_index = 0;  ///< where it is in changed_, while changed
    bool forgotten = false;
  };
  uint64_t front(const Uses& u) const {
    return u.pending.empty() ? kNoPlannedUse : u.pending.front();
  }
  void note_change(ChunkId chunk, Uses& u);
  /// Takes a changed entry out of changed_.
  void drop_change(Uses& u);
  /// Removes an entry (its node kept for reuse).
  void release(std::unordered_map<ChunkId, Uses>::iterator it);

  std::unordered_map<ChunkId, Uses> chunks_;
  // Temporaries come and go with every launch: their entries are reused (a reused one is reset
  // when its chunk is forgotten, its ring keeping its storage).
  ReusedNodes<std::unordered_map<ChunkId, Uses>> reused_;
  std::vector<ChunkId> changed_;
};

}  // namespace lightning::worker
