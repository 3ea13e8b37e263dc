// Runtimes of different shapes for the end-to-end tests: devices per worker, workers in the
// process, and memory caps small enough to force eviction to host memory and to disk.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "driver/driver.hpp"

namespace lightning::runtime_test {

struct RuntimeShape {
  const char* name;
  int workers;
  int devices;
  std::optional<uint64_t> device_memory;
  std::optional<uint64_t> host_memory;
};

inline std::ostream& operator<<(std::ostream& os, const RuntimeShape& s) {
  return os << s.name;
}

/// The shapes every end-to-end test runs on.
inline std::vector<RuntimeShape> runtime_shapes() {
  return {
      {"one_device", 1, 1, std::nullopt, std::nullopt},
      {"two_devices_evicting_to_host", 1, 2, 6 << 10, std::nullopt},
      {"four_devices_spilling_to_disk", 1, 4, 6 << 10, 12 << 10},
      {"two_workers_two_devices_spilling", 2, 2, 6 << 10, 12 << 10},
  };
}

inline Config config_of(const RuntimeShape& s) {
  Config c;
  c.devices.kind = DeviceSelection::Kind::kHost;
  c.devices.host_count = s.devices;
  c.device_memory = s.device_memory;
  c.host_memory = s.host_memory;
  return c;
}

class RuntimeTest : public ::testing::TestWithParam<RuntimeShape> {
 protected:
  void SetUp() override {
    driver = std::make_unique<driver::Driver>(config_of(GetParam()), GetParam().workers);
  }
  void TearDown() override { driver.reset(); }

  /// Memory in use and spill files over all workers must be back to zero.
  void expect_no_memory_held() {
    for (const auto& r : driver->memory_reports()) {
      EXPECT_EQ(r.device_bytes, 0u);
      EXPECT_EQ(r.host_bytes, 0u);
      EXPECT_EQ(r.spill_files, 0u);
      EXPECT_EQ(r.chunks, 0u);
    }
  }

  std::unique_ptr<driver::Driver> driver;
};

#define LIGHTNING_RUNTIME_SHAPES(Suite)                     \
  INSTANTIATE_TEST_SUITE_P(                                 \
      Shapes, Suite, ::testing::ValuesIn(runtime_shapes()), \
      [](const ::testing::TestParamInfo<RuntimeShape>& i) { return std::string(i.param.name); })

}  // namespace lightning::runtime_test
