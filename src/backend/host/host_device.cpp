#include "backend/host/host_device.hpp"

namespace lightning::host {

HostDevice::HostDevice(DeviceId id, int compute_threads)
    : id_(id),
      compute_(id.to_string() + " compute", compute_threads),
      copy_(id.to_string() + " copy", 1) {}

}  // namespace lightning::host
