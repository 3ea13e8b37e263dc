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
#include "kernel/kernel_registry.hpp"
#include "planner/task.hpp"

namespace lightning::worker {

/// One launch as the executors need it: which kernel, its functor's bytes (array handles are
/// patched per superblock), and the extents of its array parameters.
struct LaunchData {
  KernelId kernel;
  std::string name;
  std::vector<uint8_t> functor;
  std::vector<Point> extents;             ///< per signature parameter (rank 0 for scalars)
  std::vector<kernel::ArraySlot> arrays;  ///< where the array handles sit in `functor`
  /// For scalar reductions: how partials start and fold, as this process runs it (a custom
  /// one has the kernel's init/join: KernelInfo::resolve).
  Reduction reduction;
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
