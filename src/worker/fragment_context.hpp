// What travels with a fragment besides its tasks: the bytes of its launches and, on the
// driver's worker, the application's host buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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

  /// Field by field (a repeated launch of a loop has data equal to the one before).
  friend bool operator==(const LaunchData& a, const LaunchData& b);
};

/// A buffer of the application on the driver: `box` of elements, row-major.
struct HostBuffer {
  void* data = nullptr;
  Rect box;
  size_t element_size = 0;
};

/// The launches and host buffers a fragment's tasks refer to. A fragment names one launch
/// and a buffer or two (a launch's result, a read's target): they are kept in small vectors,
/// built for every launch without a hash table.
class FragmentContext {
 public:
  /// Adds (or replaces) the data of `launch`.
  void add_launch(LaunchId launch, std::shared_ptr<const LaunchData> data);
  /// Adds (or replaces) the buffer named `buffer` (a HostBufferId's value).
  void add_host_buffer(uint64_t buffer, HostBuffer host);

  /// The data of `launch`, or nullptr when the fragment carries none.
  const std::shared_ptr<const LaunchData>* find_launch(LaunchId launch) const;
  /// The data of `launch`; throws Error(kInternal) when the fragment carries none.
  const std::shared_ptr<const LaunchData>& launch(LaunchId launch) const;
  /// The buffer named `buffer`; throws Error(kInternal) when the fragment carries none.
  const HostBuffer& host_buffer(uint64_t buffer) const;

  const std::vector<std::pair<LaunchId, std::shared_ptr<const LaunchData>>>& launches() const {
    return launches_;
  }

 private:
  std::vector<std::pair<LaunchId, std::shared_ptr<const LaunchData>>> launches_;
  std::vector<std::pair<uint64_t, HostBuffer>> host_buffers_;
};

}  // namespace lightning::worker
