#include "driver/local_devices.hpp"

#include <unistd.h>

#include <algorithm>

#include "core/error.hpp"

namespace lightning::driver {

int local_device_count(const Config& config) {
  switch (config.devices.kind) {
    case DeviceSelection::Kind::kAuto:
      return 1;
    case DeviceSelection::Kind::kHost:
      return config.devices.host_count;
    case DeviceSelection::Kind::kCuda:
      break;
  }
  throw Error(ErrorKind::kConfig, "devices '" + config.devices.to_string() +
                                      "': this build runs on host devices only (host:N); the "
                                      "CUDA backend is not available yet");
}

uint64_t default_device_memory(size_t devices) {
  const uint64_t physical =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return std::max<uint64_t>(uint64_t{64} << 20, physical / (2 * std::max<size_t>(devices, 1)));
}

}  // namespace lightning::driver
