// What the planner knows of one array.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/data_type.hpp"
#include "core/ids.hpp"
#include "core/point.hpp"
#include "distribution/data_layout.hpp"
#include "distribution/work_distribution.hpp"

namespace lightning::planner {

/// An array as the planner sees it: its layout and the ids of its chunks. Arrays with equal
/// layouts share one DataLayout object (so launches over them can share cached plans).
struct ArrayState {
  ArrayId id;
  std::string name;
  DataType type = DataType::kFloat32;
  Point extent;
  std::shared_ptr<const DataLayout> layout;
  /// work::like(*layout), built once per interned layout: launches that follow the array's
  /// chunks share its superblock list, so the plan cache compares them by pointer.
  WorkDistribution like_work;
  std::vector<ChunkId> chunk_ids;      ///< chunk_ids[i] names layout chunk i
  std::vector<WorkerId> chunk_worker;  ///< the worker holding layout chunk i

  size_t element_size() const { return size_of(type); }
};

}  // namespace lightning::planner
