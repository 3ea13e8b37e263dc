// The devices one process contributes to the run: the one place that turns the `devices`
// setting into devices (emulated host devices, or the GPUs CUDA discovery finds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/config.hpp"
#include "core/node_rank.hpp"
#include "worker/worker.hpp"

namespace lightning::driver {

/// The devices one process drives.
struct LocalDevices {
  int count = 0;
  bool gpus = false;  ///< GPUs, else emulated host devices
};

/// What this process, at `node` on its host, drives under `config`: the selected GPUs
/// (`cuda`, `cuda:0,2`, or `auto` where the machine has some: its share by node rank), else
/// `host:N`'s N emulated host devices (`auto`: 1). Throws Error(kConfig) for devices this
/// build or machine cannot drive.
LocalDevices local_devices(const Config& config, NodeRank node);

/// The settings of `config` every worker takes as they are: host memory cap, spill
/// directory, staging limit, checked mode.
void apply_worker_settings(const Config& config, worker::WorkerOptions& options);

/// Gives the workers of this process (`options`, devices filled in; the process at `node` on
/// its host) their platform: when `config` selects GPUs, the i-th device of each worker is the i-th
/// selected GPU (workers of one process share the GPUs, each with its own pools, so the default
/// pool is a share of the smallest GPU; their operations count in the worker's
/// WorkerOptions::wait); otherwise emulated host devices.
void choose_platforms(const Config& config, NodeRank node,
                      std::vector<worker::WorkerOptions>& options);

/// The memory cap of each emulated device when the configuration sets none: a fair share of
/// the machine's memory among the `devices` this process drives (pools are reserved, not
/// touched, so an unused share costs nothing).
uint64_t default_device_memory(size_t devices);

}  // namespace lightning::driver
