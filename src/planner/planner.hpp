// The planner: from requests (create an array, launch a kernel, copy to the host, ...) to
// per-worker task DAG fragments. Pure: no threads, no I/O, no MPI.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ids.hpp"
#include "distribution/device_set.hpp"
#include "planner/array_state.hpp"
#include "planner/dependency_tracker.hpp"
#include "planner/plan.hpp"
#include "planner/plan_cache.hpp"
#include "planner/request.hpp"
#include "planner/task_frontier.hpp"

namespace lightning::planner {

/// Counters of the plan cache.
struct PlanCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
};

class PlanBuilder;

/// Turns requests into plans, keeping the state that links them: the arrays and their chunks,
/// who touched which chunk region last (dependencies across requests), and a cache of planned
/// launch structures.
///
/// Semantics of the plans (what the runtime executes):
/// - Chunks are logical and belong to one worker; moving one between the memories of its
///   worker (devices, host, disk) is the worker's memory manager's business. The planner moves
///   data only between chunks: Copy inside a worker, Send/Recv between workers.
/// - Copies are kept coherent eagerly: after a task writes a region of an array, every other
///   chunk holding part of that region (halos, replicas) is updated from it, before anyone
///   reads that copy. So any chunk containing a region may serve a read of it.
/// - A kernel's access region inside a chunk of the superblock's worker uses that chunk
///   (preferring one on the superblock's device). Otherwise a temporary chunk of exactly the
///   region is created on the superblock's device: for reads it is assembled from the homes
///   of its elements (local copies preferred, Send/Recv otherwise; one temporary per array,
///   region and worker serves every superblock of the launch); for writes the kernel writes
///   it and it is scattered to every chunk that holds part of the region. It first assembles
///   the old contents, however dense the write pattern (AccessRegion::exact): a kernel may
///   leave alone elements its `write` rule names (a conditional write), which must keep their
///   values.
/// - `reduce(op)` into an array: each superblock reduces into its own temporary partial,
///   initialised to the identity of op; partials are folded per device, then per worker, then
///   into each destination chunk that owns part of the region (workers in order), and the
///   result is copied to the other copies. The destination's current contents take part:
///   after the launch, dest = dest op (contributions of all threads).
/// - Scalar reductions: see ScalarReduction.
/// - Dependencies: per chunk region; read-after-write, write-after-read and write-after-write;
///   only between tasks of one worker (workers meet through Send/Recv pairs).
/// - Temporaries are deleted in the plan that created them.
class Planner {
 public:
  /// A planner for a cluster of `devices`; the number of workers is devices.num_workers().
  explicit Planner(DeviceSet devices);
  ~Planner();
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  const DeviceSet& devices() const { return devices_; }
  size_t num_workers() const { return devices_.num_workers(); }

  /// Creates an array (its chunks, uninitialised): the new id and the plan creating the
  /// chunks. Throws Error(kInvalidArgument / kDistribution) when the description does not
  /// fit the cluster.
  std::pair<ArrayId, Plan> create_array(const ArrayDesc& desc);
  /// Deletes an array: every chunk is freed after every task that uses it.
  Plan delete_array(ArrayId array);
  /// Sets `region` of the array (and all copies) to `value` (one element's bytes).
  Plan fill(ArrayId array, const Rect& region, std::vector<uint8_t> value);
  /// Copies host buffer `buffer` (on the driver, holding `region` row-major) into the array.
  Plan write_from_host(ArrayId array, const Rect& region, HostBufferId buffer);
  /// Copies `region` of the array into host buffer `buffer` on the driver (row-major).
  Plan read_to_host(ArrayId array, const Rect& region, HostBufferId buffer);
  /// Plans a kernel launch. Throws Error(kInvalidArgument) naming the culprit when arrays and
  /// the annotation's signature disagree (unknown array, rank, element type), and the
  /// annotation's or distribution's errors for bad regions or superblocks.
  Plan launch(const LaunchRequest& request);
  /// One Barrier task per worker, after every task so far: the plan's completion.
  Plan fence();

  /// Forgets tasks below `first_live`: the driver saw them (and all before them) complete.
  void retire_before(TaskId first_live);
  /// The id the next planned task gets: every task planned so far has a lower one.
  TaskId next_task() const { return TaskId(next_task_); }

  const ArrayState& array(ArrayId id) const;
  bool has_array(ArrayId id) const { return arrays_.count(id) != 0; }
  PlanCacheStats cache_stats() const;
  /// Turns the plan cache on (the default) or off; plans are the same either way.
  void set_plan_cache_enabled(bool enabled) { cache_enabled_ = enabled; }
  /// Entries of the dependency tracker (for tests and benchmarks: bounded between fences).
  size_t tracked_entries() const { return tracker_.size(); }
  /// The most tasks one tracker entry holds (for tests: reader groups stay small).
  size_t largest_tracked_group() const { return tracker_.largest_group(); }

 private:
  friend class PlanBuilder;
  /// An interned layout and the work distribution that follows it.
  struct InternedLayout {
    std::shared_ptr<const DataLayout> layout;
    WorkDistribution like_work;
  };
  const InternedLayout& intern_layout(DataLayout layout);
  /// An empty plan for the next request, and a builder appending to it.
  Plan begin_plan() {
    Plan plan;
    plan.request = LaunchId(next_request_++);
    return plan;
  }
  PlanBuilder builder_for(Plan& plan);

  DeviceSet devices_;
  std::unordered_map<ArrayId, ArrayState> arrays_;
  std::vector<InternedLayout> layouts_;  // see ArrayState
  DependencyTracker tracker_;
  std::vector<TaskFrontier> frontier_;  // per worker: tasks nothing depends on yet
  std::unique_ptr<PlanCache> cache_;
  bool cache_enabled_ = true;
  // Scratch reused by every launch: one served from the plan cache allocates none of it.
  std::vector<const ArrayState*> launch_arrays_;
  LaunchShape probe_;
  uint64_t next_array_ = 0;
  uint64_t next_chunk_ = 0;
  uint64_t next_task_ = 0;
  uint64_t next_tag_ = 0;
  uint64_t next_request_ = 0;
};

}  // namespace lightning::planner
