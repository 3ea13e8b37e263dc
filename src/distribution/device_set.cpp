#include "distribution/device_set.hpp"

#include <utility>

#include "core/error.hpp"

namespace lightning {

DeviceSet::DeviceSet(std::vector<DeviceInfo> devices) : devices_(std::move(devices)) {
  worker_begin_.clear();
  uint64_t next_worker = 0;  // workers seen so far
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const DeviceInfo& d = devices_[i];
    if (!d.id.valid() || d.id.value() != i)
      throw Error(ErrorKind::kInvalidArgument,
                  "device list entry " + std::to_string(i) + " has id " +
                      (d.id.valid() ? d.id.to_string() : std::string("(invalid)")) +
                      "; device ids must be D0..D" + std::to_string(devices_.size() - 1) +
                      " in order");
    if (!d.worker.valid() || d.worker.value() + 1 < next_worker)
      throw Error(ErrorKind::kInvalidArgument,
                  "device " + d.id.to_string() + " is on worker " +
                      (d.worker.valid() ? d.worker.to_string() : std::string("(invalid)")) +
                      ", after a device of W" + std::to_string(next_worker - 1) +
                      "; the devices of one worker must be contiguous, workers in order");
    while (next_worker <= d.worker.value()) {
      worker_begin_.push_back(i);
      ++next_worker;
    }
  }
  worker_begin_.push_back(devices_.size());
}

DeviceSet DeviceSet::from_counts(const std::vector<int>& devices_per_worker) {
  std::vector<DeviceInfo> list;
  DeviceSet set;
  set.worker_begin_.clear();
  for (std::size_t w = 0; w < devices_per_worker.size(); ++w) {
    if (devices_per_worker[w] < 0)
      throw Error(ErrorKind::kInvalidArgument, "worker W" + std::to_string(w) + " has " +
                                                   std::to_string(devices_per_worker[w]) +
                                                   " devices; counts must be zero or more");
    set.worker_begin_.push_back(list.size());
    for (int k = 0; k < devices_per_worker[w]; ++k)
      list.push_back({DeviceId(list.size()), WorkerId(w)});
  }
  set.worker_begin_.push_back(list.size());
  set.devices_ = std::move(list);
  return set;
}

DeviceSet DeviceSet::uniform(int workers, int devices_per_worker) {
  if (workers < 0)
    throw Error(ErrorKind::kInvalidArgument,
                "worker count must be zero or more, got " + std::to_string(workers));
  return from_counts(std::vector<int>(static_cast<std::size_t>(workers), devices_per_worker));
}

WorkerId DeviceSet::worker_of(DeviceId id) const {
  if (!contains(id))
    throw Error(ErrorKind::kInvalidArgument,
                "device " + (id.valid() ? id.to_string() : std::string("(invalid)")) +
                    " is not in the cluster (" + describe() + ")");
  return devices_[id.value()].worker;
}

std::vector<DeviceId> DeviceSet::devices_of(WorkerId w) const {
  if (!contains(w))
    throw Error(ErrorKind::kInvalidArgument,
                "worker " + (w.valid() ? w.to_string() : std::string("(invalid)")) +
                    " is not in the cluster (" + describe() + ")");
  std::vector<DeviceId> out;
  for (std::size_t i = worker_begin_[w.value()]; i < worker_begin_[w.value() + 1]; ++i)
    out.push_back(devices_[i].id);
  return out;
}

std::size_t DeviceSet::device_count(WorkerId w) const {
  if (!contains(w)) return 0;
  return worker_begin_[w.value() + 1] - worker_begin_[w.value()];
}

std::string DeviceSet::describe() const {
  if (devices_.empty()) return "no devices";
  std::string s = "D0..D" + std::to_string(devices_.size() - 1);
  s += " on W0..W" + std::to_string(num_workers() - 1);
  return s;
}

void DeviceSet::require(DeviceId id, const std::string& what) const {
  if (contains(id)) return;
  throw Error(ErrorKind::kDistribution,
              what + " is on device " + (id.valid() ? id.to_string() : std::string("(invalid)")) +
                  ", but the cluster has " +
                  (devices_.empty() ? std::string("no devices")
                                    : "devices D0..D" + std::to_string(devices_.size() - 1)));
}

}  // namespace lightning
