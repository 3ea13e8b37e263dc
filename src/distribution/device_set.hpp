// The devices of a cluster, in global order: the list every distribution places chunks and
// superblocks over.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "lightning_kokkos/internal/core/ids.hpp"

namespace lightning {

/// One device of the cluster and the worker (process) that drives it.
struct DeviceInfo {
  DeviceId id;
  WorkerId worker;

  friend bool operator==(const DeviceInfo& a, const DeviceInfo& b) {
    return a.id == b.id && a.worker == b.worker;
  }
};

/// The devices of all workers in global order. Device ids are 0..n-1 and the devices of one
/// worker are contiguous, workers numbered 0..w-1 in order (a worker may have no device).
/// "Round-robin over all devices" means this order, so worker 0's devices come first.
/// A value type: cheap lookups, no references to the live runtime.
class DeviceSet {
 public:
  /// The empty set (no devices, no workers).
  DeviceSet() = default;
  /// Checks the invariants above; throws Error(kInvalidArgument) naming the first entry that
  /// breaks them. Workers skipped in the sequence (W0 then W2) are workers with no device.
  explicit DeviceSet(std::vector<DeviceInfo> devices);
  /// `devices_per_worker[w]` devices on worker w, numbered in order.
  static DeviceSet from_counts(const std::vector<int>& devices_per_worker);
  /// `workers` workers with `devices_per_worker` devices each.
  static DeviceSet uniform(int workers, int devices_per_worker);

  std::size_t size() const { return devices_.size(); }
  bool empty() const { return devices_.empty(); }
  /// All devices, in global order (index == id).
  const std::vector<DeviceInfo>& devices() const { return devices_; }
  const DeviceInfo& operator[](std::size_t i) const { return devices_[i]; }
  /// Number of workers, including those without devices.
  std::size_t num_workers() const { return worker_begin_.size() - 1; }

  bool contains(DeviceId id) const { return id.valid() && id.value() < devices_.size(); }
  bool contains(WorkerId w) const { return w.valid() && w.value() < num_workers(); }
  /// The worker driving `id`; throws Error(kInvalidArgument) for an unknown device.
  WorkerId worker_of(DeviceId id) const;
  /// The devices of worker `w`, in order (empty for a worker without devices); throws
  /// Error(kInvalidArgument) for an unknown worker.
  std::vector<DeviceId> devices_of(WorkerId w) const;
  /// Number of devices of worker `w` (0 for an unknown worker).
  std::size_t device_count(WorkerId w) const;

  /// "D0..D3 on W0..W1" (or "no devices"): for error messages that name what exists.
  std::string describe() const;
  /// Throws Error(kind) "<what> is on device D7, but the cluster has devices D0..D3" unless
  /// `id` is in the set. `what` names the culprit ("chunk 3 [0, 10)").
  void require(DeviceId id, const std::string& what) const;

  friend bool operator==(const DeviceSet& a, const DeviceSet& b) {
    return a.devices_ == b.devices_ && a.worker_begin_ == b.worker_begin_;
  }
  friend bool operator!=(const DeviceSet& a, const DeviceSet& b) { return !(a == b); }

 private:
  std::vector<DeviceInfo> devices_;
  // worker_begin_[w] is the global index of worker w's first device; one entry past the last
  // worker holds size(). Makes devices_of() and device_count() O(1).
  std::vector<std::size_t> worker_begin_{0};
};

}  // namespace lightning
