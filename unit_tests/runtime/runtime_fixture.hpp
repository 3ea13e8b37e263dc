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
#include "driver/cluster.hpp"
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

/// The shapes every end-to-end test runs on (under mpirun, `workers` is the number of ranks).
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

/// The run's ranks when the tests run under mpirun (set by mpi_runtime_main.cpp); null in
/// one process.
inline std::shared_ptr<driver::Cluster>& test_cluster() {
  static std::shared_ptr<driver::Cluster> cluster;
  return cluster;
}

/// A driver with `config`'s devices per worker: one worker per rank under mpirun, else
/// `workers` workers in this process.
inline std::unique_ptr<driver::Driver> make_driver(const Config& config, int workers = 1) {
  if (test_cluster()) return std::make_unique<driver::Driver>(config, test_cluster());
  return std::make_unique<driver::Driver>(config, workers);
}

/// Workers of a driver from make_driver(config, workers).
inline int worker_count(int workers) {
  return test_cluster() ? test_cluster()->size() : workers;
}

class RuntimeTest : public ::testing::TestWithParam<RuntimeShape> {
 protected:
  void SetUp() override { driver = make_driver(config_of(GetParam()), GetParam().workers); }
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
