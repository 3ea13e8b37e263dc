// Emulated host devices behind the worker's Device interface: kernels run natively on the
// host device's compute executor, data jobs on its copy engine.
#pragma once

#include <memory>
#include <string>

#include "backend/host/host_device.hpp"
#include "worker/device.hpp"
#include "worker/device_platform.hpp"
#include "worker/host_memory_backend.hpp"

namespace lightning::worker {

/// One emulated device (host::HostDevice): every memory is host memory, so copies and host
/// jobs work on the buffers in place.
class EmulatedDevice final : public Device {
 public:
  EmulatedDevice(DeviceId id, int compute_threads);

  DeviceId id() const override { return device_.id(); }
  std::string description() const override;
  void launch(KernelRun run, Done done) override;
  void copy(PlacedBuffer dst, PlacedBuffer src, Rect region, Done done) override;
  void run_on_host(std::vector<HostAccess> accesses, HostJob job, Done done) override;

 private:
  host::HostDevice device_;
  int compute_threads_;
};

/// Runs `job` on `executor` and reports it through `done` with the job's own span.
void run_timed(host::Executor& executor, host::Executor::Job job, Device::Done done);

/// Emulated host devices (`host:N`) with the host memory backend.
class EmulatedPlatform final : public DevicePlatform {
 public:
  explicit EmulatedPlatform(int compute_threads = 1) : compute_threads_(compute_threads) {}
  MemoryBackend& memory() override { return memory_; }
  std::unique_ptr<Device> open(DeviceId id, size_t index) override;
  bool host_addresses_device_memory() const override { return true; }

 private:
  int compute_threads_;
  HostMemoryBackend memory_;
};

}  // namespace lightning::worker
