// Emulated host devices (`host:N`) as a worker's platform: HostDevices and host memory.
#pragma once

#include <cstddef>
#include <memory>

#include "backend/host/host_memory_backend.hpp"
#include "worker/device_platform.hpp"

namespace lightning::host {

/// Emulated host devices with `compute_threads` compute threads each, over the host memory
/// backend.
class HostPlatform final : public worker::DevicePlatform {
 public:
  explicit HostPlatform(int compute_threads = 1) : compute_threads_(compute_threads) {}
  worker::MemoryBackend& memory() override { return memory_; }
  std::unique_ptr<worker::Device> open(DeviceId id, size_t index) override;
  bool host_addresses_device_memory() const override { return true; }

 private:
  int compute_threads_;
  HostMemoryBackend memory_;
};

}  // namespace lightning::host
