// What the driver asks the planner for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "annotation/bound_annotation.hpp"
#include "core/data_type.hpp"
#include "core/ids.hpp"
#include "core/point.hpp"
#include "core/rect.hpp"
#include "distribution/data_distribution.hpp"
#include "distribution/work_distribution.hpp"
#include "planner/task.hpp"

namespace lightning::planner {

/// A distributed array to create.
struct ArrayDesc {
  std::string name;  ///< for messages and graphs
  DataType type = DataType::kFloat32;
  Point extent;  ///< rank 1-3
  DataDistribution distribution;
};

/// A launch that also reduces to one value on the driver (parallel_reduce to a scalar or a
/// reducer): every superblock writes a partial of `reduction.value_size` bytes, which the
/// workers fold in superblock order and the driver folds, in worker order, into the host
/// buffer `result` (which the driver has initialised to the reduction's identity). So the
/// result is deterministic for a given device set and work distribution.
struct ScalarReduction {
  Reduction reduction;  ///< a custom one joins with the launch's kernel's functions
  HostBufferId result;
};

/// A parallel_scan: the kernel runs every superblock but the last (in index order) with
/// `final` false to get the superblock's total (a partial), then every superblock with `final`
/// true from the fold of every earlier superblock's partial, in index order across devices and
/// workers (the carry). The last superblock's final pass ends at the scan's total, which is
/// copied to the driver's host buffer `total` when there is one. The domain is rank 1.
struct ScanRequest {
  Reduction reduction;  ///< how values join (a custom one: the launch's kernel's functions)
  std::optional<HostBufferId> total;
};

/// One kernel launch.
struct LaunchRequest {
  KernelId kernel;
  std::string name;  ///< the kernel's name, for messages and graphs
  /// The kernel's annotation, bound to its signature and to the launch's rank. Owned by the
  /// caller (an AnnotationCache), alive as long as the planner: plans are cached by it.
  const annotation::BoundAnnotation* annotation = nullptr;
  /// Per signature parameter: the array passed for an array parameter, an invalid id for a
  /// scalar.
  std::vector<ArrayId> arrays;
  /// Per signature parameter: the value of an integer scalar (0 elsewhere): annotations may
  /// name integer scalar parameters (`read A[i + offset]`).
  std::vector<int64_t> scalars;
  Rect domain;       ///< thread indices, rank 1-3
  Point block_size;  ///< of the domain's rank
  WorkDistribution work;
  std::optional<ScalarReduction> scalar_reduction;
  std::optional<ScanRequest> scan;  ///< never with scalar_reduction
};

}  // namespace lightning::planner
