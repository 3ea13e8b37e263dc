// One emulated host device: a compute executor (the device's "cores") and a copy engine.
#pragma once

#include <string>
#include <utility>

#include "backend/host/executor.hpp"
#include "core/ids.hpp"

namespace lightning::host {

/// An emulated device on the host, standing in for a GPU: kernels run on its compute
/// executor ("D<n> compute", `compute_threads` threads: that many jobs, e.g. superblocks, run
/// at once), and copy, fill, fold and pack jobs on its copy engine ("D<n> copy", one thread),
/// so data movement overlaps computation as with a GPU's copy engines.
/// The disk and network engines belong to the worker, not to a device: Executor("disk") and
/// Executor("network").
class HostDevice {
 public:
  explicit HostDevice(DeviceId id, int compute_threads = 1);

  DeviceId id() const { return id_; }
  Executor& compute() { return compute_; }
  Executor& copy_engine() { return copy_; }

  /// Runs a compute job (a kernel over a superblock): compute().execute(job, done).
  void execute(Executor::Job job, Executor::Done done) {
    compute_.execute(std::move(job), std::move(done));
  }

 private:
  DeviceId id_;
  Executor compute_;  // destroyed last: copy jobs finish first
  Executor copy_;
};

}  // namespace lightning::host
