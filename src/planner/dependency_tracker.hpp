// Who touched which part of which chunk last: the source of a plan's dependencies.
#pragma once

#include <unordered_map>
#include <vector>

#include "core/ids.hpp"
#include "core/rect.hpp"
#include "planner/task.hpp"

namespace lightning::planner {

/// Tracks, per chunk and per region, the last writer and the readers since, so that a new
/// access depends exactly on the earlier tasks it conflicts with: read-after-write,
/// write-after-read and write-after-write. Regions, not whole chunks: superblocks that write
/// disjoint parts of one chunk stay concurrent, and a launch waits for the previous one only
/// where their data meet.
///
/// Every entry is either one writer or a group of readers of one region. A write removes the
/// entries it covers (their tasks are now ordered before it, so later accesses that meet them
/// meet the write too); entries it only overlaps stay. A reader group loses the members a
/// newer member depends on (prune_readers): they are ordered before it, so a later writer that
/// depends on it follows them too, and a chain of launches reading one array keeps a group of
/// one. retire_before() forgets tasks that are known to be done.
///
/// Planning a launch served from the plan cache records its accesses here: in steady state
/// nothing is allocated (entries and groups reuse their storage).
class DependencyTracker {
 public:
  /// Adds to `deps` the tasks `access` by `task` must follow, then records the access.
  /// `deps` may hold duplicates; the caller deduplicates once per task.
  void record(TaskId task, const ChunkAccess& access, std::vector<TaskId>& deps);
  /// After `task`'s accesses were recorded and its dependencies are final (`deps`, sorted):
  /// removes from the reader groups `task` joined the members it depends on.
  void prune_readers(TaskId task, const std::vector<ChunkAccess>& accesses,
                     const std::vector<TaskId>& deps);

  /// Forgets a chunk (after its DeleteChunk was recorded).
  void forget(ChunkId chunk) { per_chunk_.erase(chunk); }

  /// Drops every task id below `first_live` (all done: e.g. after a fence completed).
  void retire_before(TaskId first_live);

  /// Number of entries kept (for tests and for the plan benchmark).
  size_t size() const;
  /// The most tasks any entry holds (for tests: reader groups stay small).
  size_t largest_group() const;

 private:
  struct Entry {
    Rect region;
    bool is_write = false;
    std::vector<TaskId> tasks;  // the writer, or the readers
  };
  std::unordered_map<ChunkId, std::vector<Entry>> per_chunk_;
};

}  // namespace lightning::planner
