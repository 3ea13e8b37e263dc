// Where a worker's devices come from: the kind of device it drives, with the memory backend
// that serves them.
#pragma once

#include <cstddef>
#include <memory>

#include "core/ids.hpp"
#include "worker/device.hpp"
#include "worker/memory_backend.hpp"

namespace lightning::worker {

/// The devices of one worker and their memory: emulated host devices (host::HostPlatform) or
/// GPUs (cuda::CudaPlatform). The worker opens its devices once, at construction, and keeps
/// the platform alive until every device and the memory manager are gone.
class DevicePlatform {
 public:
  virtual ~DevicePlatform() = default;
  /// Allocations and copies for every device of the platform and for host copies of chunks.
  virtual MemoryBackend& memory() = 0;
  /// Opens device `id`, the `index`-th device of the worker (WorkerOptions::devices order).
  virtual std::unique_ptr<Device> open(DeviceId id, size_t index) = 0;
  /// Whether the host can read and write the devices' memory in place (emulated devices): then
  /// a Send lends a chunk's bytes to the transport, and a Recv receives into the chunk.
  virtual bool host_addresses_device_memory() const { return false; }
};

}  // namespace lightning::worker
