// The tasks a worker has been given that will still use each chunk: what eviction knows of
// the future.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/ids.hpp"
#include "core/ring_queue.hpp"
#include "worker/next_use.hpp"

namespace lightning::worker {

/// Per chunk, the worker's tasks that will use it and have not ended, in plan order; tells
/// which chunks' next use changed, for the memory manager's eviction order (which the
/// scheduler thread sends the staging thread with its next request).
///
/// Tasks are added in plan order (growing ids) and usually end in it too; one that ends
/// before the tasks planned ahead of it is remembered until they have ended. Single-threaded:
/// owned by the worker's scheduler thread.
class PlannedUses {
 public:
  /// `task` will use `chunk`. Tasks come in growing id order (plan order); a task added again
  /// for the same chunk (a second access) changes nothing.
  void add(TaskId task, ChunkId chunk);
  /// `task` has ended (or holds its chunks now): it no longer counts as a future use of
  /// `chunk`. Ending a use not added, or twice, changes nothing.
  void end(TaskId task, ChunkId chunk);
  /// The chunk is gone: forgets it. Its next use becomes kNoPlannedUse (a change, so that a
  /// next use already reported is withdrawn) and its entry goes at the next take_changes().
  void forget(ChunkId chunk);

  /// The chunk's next planned use (kNoPlannedUse when none).
  uint64_t next_use(ChunkId chunk) const;
  /// Whether some chunk's next use changed since the last take_changes().
  bool has_changes() const { return !changed_.empty(); }
  /// The chunks whose next use changed since the last call, with their next use now, each
  /// once, in the order they first changed; `into` is cleared first (its storage reused).
  void take_changes(std::vector<NextUse>& into);
  /// Chunks with an entry (for tests: forgotten chunks have none).
  size_t chunk_count() const { return chunks_.size(); }

 private:
  struct Uses {
    RingQueue<uint64_t> pending;        ///< task ids, oldest first; some may have ended (`ended`)
    std::vector<uint64_t> ended;        ///< tasks ended while an older one was still pending
    uint64_t reported = kNoPlannedUse;  ///< the next use last taken by take_changes
    bool changed = false;
    bool forgotten = false;
  };
  uint64_t front(const Uses& u) const {
    return u.pending.empty() ? kNoPlannedUse : u.pending.front();
  }
  void note_change(ChunkId chunk, Uses& u);

  std::unordered_map<ChunkId, Uses> chunks_;
  std::vector<ChunkId> changed_;
};

}  // namespace lightning::worker
