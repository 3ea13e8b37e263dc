// What travels with a fragment besides its tasks: the bytes of its launches and, on the
// driver's worker, the application's host buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ids.hpp"
#include "core/point.hpp"
#include "core/rect.hpp"
#include "planner/task.hpp"
#include "worker/kernel_registry.hpp"

namespace lightning::worker {

/// One launch as the executors need it: which kernel, its functor's bytes (array handles are
/// patched per superblock), and the extents of its array parameters.
struct LaunchData {
  KernelId kernel;
  std::string name;
  std::vector<uint8_t> functor;
  std::vector<Point> extents;     ///< per signature parameter (rank 0 for scalars)
  std::vector<ArraySlot> arrays;  ///< where the array handles sit in `functor`
  /// For scalar reductions: how partials start and fold. kCustom: the kernel's ReducerInfo;
  /// otherwise the built-in operator on one `reduce_type` value (its identity to start).
  planner::FoldOp reduce_op = planner::FoldOp::kCustom;
  DataType reduce_type = DataType::kUInt8;
};

/// A buffer of the application on the driver: `box` of elements, row-major.
struct HostBuffer {
  void* data = nullptr;
  Rect box;
  size_t element_size = 0;
};

/// The launches and host buffers a fragment's tasks refer to.
struct FragmentContext {
  std::unordered_map<LaunchId, std::shared_ptr<const LaunchData>> launches;
  std::unordered_map<uint64_t, HostBuffer> host_buffers;  ///< by HostBufferId value
};

}  // namespace lightning::worker
