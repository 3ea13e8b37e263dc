#include "backend/host/host_platform.hpp"

#include "backend/host/host_device.hpp"

namespace lightning::host {

std::unique_ptr<worker::Device> HostPlatform::open(DeviceId id, size_t /*index*/) {
  return std::make_unique<HostDevice>(id, compute_threads_);
}

}  // namespace lightning::host
