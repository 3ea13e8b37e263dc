// Reuse of planned launch structures: a launch shaped like an earlier one replays its tasks
// with fresh ids instead of planning again.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "core/ids.hpp"
#include "core/point.hpp"
#include "core/rect.hpp"
#include "distribution/data_layout.hpp"
#include "distribution/work_distribution.hpp"
#include "planner/array_state.hpp"
#include "planner/plan_builder.hpp"
#include "planner/request.hpp"
#include "planner/task.hpp"

namespace lightning::planner {

struct PlanCacheStats;

/// What makes two launches plan alike: the same kernel and bound annotation, the same integer
/// scalars (annotations may use them), domain, block size and work distribution, and, per
/// parameter, arrays with the same layout (and the same aliasing between parameters).
struct LaunchShape {
  KernelId kernel;
  const annotation::BoundAnnotation* annotation = nullptr;
  std::vector<int64_t> scalars;
  Rect domain;
  Point block_size;
  WorkDistribution work;
  std::vector<const DataLayout*> layouts;  ///< per parameter; nullptr for scalars
  std::vector<int> aliases;                ///< per parameter: first parameter with its array
  std::optional<Reduction> scalar_reduction;
  std::optional<Reduction> scan;  ///< a parallel_scan's
  bool scan_returns_total = false;

  /// Becomes the shape of `request` over `arrays` (one per parameter, null for scalars),
  /// reusing this shape's storage (the planner probes the cache with one shape it keeps: a hit
  /// allocates nothing).
  void assign(const LaunchRequest& request, const std::vector<const ArrayState*>& arrays);
  friend bool operator==(const LaunchShape& a, const LaunchShape& b);
  size_t hash() const;
};

/// A launch's tasks with symbolic ids: array chunks as (parameter, chunk number), temporaries
/// and tags as ordinals, the launch and its result buffer as placeholders. Dependencies are
/// not stored: replaying recomputes them (so they reach the current state of every chunk).
struct PlanTemplate {
  struct Entry {
    WorkerId worker;
    TaskKind kind;
    std::vector<uint32_t> explicit_deps;  ///< positions of earlier entries
  };
  std::vector<Entry> tasks;
  std::vector<uint32_t> completion;
  uint64_t temporaries = 0;
  uint64_t tags = 0;
  std::vector<uint32_t> tasks_per_worker;  ///< by worker: a replay reserves its fragments
};

/// Everything about ids that record() needs to know of the launch being recorded.
struct RecordedLaunch {
  LaunchId launch;
  HostBufferId result;
  uint64_t first_temporary = 0;  ///< the chunk counter when the launch began
  uint64_t first_tag = 0;        ///< the tag counter when the launch began
  uint64_t first_task = 0;       ///< the task counter when the launch began
};

/// Turns a just-planned launch (`plan`, whose explicit dependencies `builder` logged) into a
/// template.
PlanTemplate record_template(const Plan& plan, const PlanBuilder& builder,
                             const std::vector<const ArrayState*>& arrays,
                             const RecordedLaunch& recorded);

/// Emits `tmpl` through `builder` for a launch over `arrays`; returns the completion tasks.
std::vector<TaskId> replay_template(const PlanTemplate& tmpl, PlanBuilder& builder,
                                    const std::vector<const ArrayState*>& arrays, LaunchId launch,
                                    HostBufferId result);

/// A bounded cache of templates by LaunchShape (oldest entries leave first).
class PlanCache {
 public:
  static constexpr size_t kCapacity = 256;

  const PlanTemplate* find(const LaunchShape& shape);
  void insert(LaunchShape shape, PlanTemplate tmpl);
  PlanCacheStats stats() const;

 private:
  struct Item {
    LaunchShape shape;
    size_t hash;
    PlanTemplate tmpl;
  };
  std::deque<Item> items_;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace lightning::planner
