// An emulated host device behind the worker's Device interface, standing in for a GPU:
// kernels run natively on its compute engine, data jobs on its copy engine.
#pragma once

#include <string>
#include <vector>

#include "core/ids.hpp"
#include "worker/device.hpp"
#include "worker/engine.hpp"

namespace lightning::host {

/// One emulated device. Kernels run on its compute engine ("D<n> compute", `compute_threads`
/// threads: that many superblocks run at once); copies, fills, folds and packs on its copy
/// engine ("D<n> copy", one thread), so data movement overlaps computation as on a GPU. Every
/// memory is host memory, so copies and host jobs work on the buffers in place.
class HostDevice final : public worker::Device {
 public:
  HostDevice(DeviceId id, int compute_threads);

  DeviceId id() const override { return id_; }
  std::string description() const override;
  /// Host code reaches arrays through lightning::View, which takes checked handles.
  bool checks_accesses(const kernel::KernelInfo& kernel) const override {
    return kernel.takes_checked_handles;
  }
  /// With one compute thread, launches run in the order they are queued.
  bool runs_launches_in_order() const override { return compute_threads_ == 1; }
  void launch(worker::KernelRun run, Done done) override;
  void copy(worker::PlacedBuffer dst, worker::PlacedBuffer src, Rect region, Done done) override;
  void run_on_host(std::vector<worker::HostAccess> accesses, HostJob job, Done done) override;
  /// On the compute engine: in order only with one compute thread.
  void run_on_host_behind_launches(std::vector<worker::HostAccess> accesses, HostJob job,
                                   worker::FailureFlags skip_if_failed, Done done) override;

 private:
  DeviceId id_;
  int compute_threads_;
  worker::Engine compute_;  // destroyed last: copy jobs finish first
  worker::Engine copy_;
};

}  // namespace lightning::host
