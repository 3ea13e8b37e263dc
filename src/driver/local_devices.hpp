// The devices one process contributes to the run: the one place that turns the `devices`
// setting into a device count (CUDA discovery belongs here too).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/config.hpp"

namespace lightning::driver {

/// How many devices this process drives under `config`. Throws Error(kConfig) for devices
/// this build cannot drive.
int local_device_count(const Config& config);

/// The memory cap of each emulated device when the configuration sets none: a fair share of
/// the machine's memory among the `devices` this process drives (pools are reserved, not
/// touched, so an unused share costs nothing).
uint64_t default_device_memory(size_t devices);

}  // namespace lightning::driver
