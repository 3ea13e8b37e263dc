// Plans one kernel launch: superblocks, access regions, chunks or temporaries for each,
// coherence updates and reductions.
#pragma once

#include <unordered_map>
#include <vector>

#include "annotation/access_region.hpp"
#include "distribution/device_set.hpp"
#include "planner/array_state.hpp"
#include "planner/plan_builder.hpp"
#include "planner/reduction_planner.hpp"
#include "planner/region_mover.hpp"
#include "planner/request.hpp"

namespace lightning::planner {

/// Plans the tasks of one launch into a PlanBuilder. `arrays[p]` is the state of the array
/// passed for signature parameter p (nullptr for scalars). Returns the tasks the driver
/// waits for (the scalar result), if any.
class LaunchPlanner {
 public:
  LaunchPlanner(PlanBuilder& builder, const DeviceSet& devices, const LaunchRequest& request,
                LaunchId launch, std::vector<const ArrayState*> arrays);

  std::vector<TaskId> plan();

 private:
  struct ReadKey {
    uint64_t array;
    WorkerId worker;
    Rect region;
    bool operator==(const ReadKey& o) const {
      return array == o.array && worker == o.worker && region == o.region;
    }
  };
  struct ReadKeyHash {
    size_t operator()(const ReadKey& k) const;
  };
  struct PendingUpdate {
    const ArrayState* array;
    Rect region;
    ChunkRef written;
    std::optional<size_t> index;  // when `written` is one of the array's chunks
  };

  /// A chunk on `worker` holding `region` for reading: an array chunk of that worker, or a
  /// temporary assembled once per launch for each (array, region, worker).
  ChunkRef chunk_for_read(const ArrayState& array, const Rect& region, DeviceId device,
                          WorkerId worker);
  /// A chunk the superblock writes `region` into; queues the update of the other copies. A
  /// temporary holds the region's old contents first (see the planner's contract), unless
  /// the superblock `overwrites` every element of it.
  ChunkRef chunk_for_write(const ArrayState& array, const Rect& region, DeviceId device,
                           WorkerId worker, bool overwrites = false);

  /// The Execute task of superblock `sb` (its access `regions`): the chunk each access binds,
  /// with what reading them needs planned; writes queue their coherence updates (pending_),
  /// `reduce` accesses their partials. With `reads_only`, every access is bound for reading
  /// (a scan's partial pass).
  ExecuteTask bind_superblock(const Superblock& sb, const annotation::AccessRegion* regions,
                              bool reads_only = false);
  /// Plans the coherence updates of the writes queued since the last call.
  void propagate_pending();
  /// A parallel_scan's passes and carry (see ScanRequest); returns the task that delivers the
  /// total, if asked for.
  std::vector<TaskId> plan_scan(const std::vector<Superblock>& superblocks,
                                const std::vector<annotation::AccessRegion>& all_regions);

  PlanBuilder& builder_;
  RegionMover mover_;
  const DeviceSet& devices_;
  const LaunchRequest& request_;
  LaunchId launch_;
  std::vector<const ArrayState*> arrays_;
  std::unordered_map<ReadKey, ChunkRef, ReadKeyHash> read_temporaries_;
  std::vector<PendingUpdate> pending_;
  std::vector<std::vector<Partial>> partials_;  // per bound array: reduce partials
  std::vector<Partial> scalar_partials_;
};

}  // namespace lightning::planner
