// The memories a worker keeps chunk data in: one per device, the host, and the disk.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/ids.hpp"

namespace lightning::worker {

/// One memory of a worker. `device` is meaningful only for kDevice.
struct MemorySpace {
  enum class Kind : uint8_t { kDevice, kHost, kDisk };
  Kind kind = Kind::kHost;
  DeviceId device;

  static MemorySpace of_device(DeviceId d) { return {Kind::kDevice, d}; }
  static MemorySpace host() { return {Kind::kHost, DeviceId()}; }
  static MemorySpace disk() { return {Kind::kDisk, DeviceId()}; }

  bool is_device() const { return kind == Kind::kDevice; }

  /// "D2 memory", "host" or "disk": for messages and traces.
  std::string to_string() const;

  friend bool operator==(const MemorySpace& a, const MemorySpace& b) {
    return a.kind == b.kind && (a.kind != Kind::kDevice || a.device == b.device);
  }
  friend bool operator!=(const MemorySpace& a, const MemorySpace& b) { return !(a == b); }
};

}  // namespace lightning::worker

template <>
struct std::hash<lightning::worker::MemorySpace> {
  size_t operator()(const lightning::worker::MemorySpace& s) const noexcept {
    const uint64_t dev = s.is_device() ? s.device.value() : 0;
    return std::hash<uint64_t>{}(dev * 4 + static_cast<uint64_t>(s.kind));
  }
};
