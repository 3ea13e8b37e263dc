#include "driver/local_devices.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "backend/host/host_platform.hpp"
#include "core/error.hpp"
#include "lightning_kokkos/build_config.hpp"

#if LIGHTNING_HAVE_CUDA
#include "backend/cuda/cuda_platform.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "backend/cuda/jit_cache.hpp"
#endif

namespace lightning::driver {

namespace {
#if LIGHTNING_HAVE_CUDA
// The GPUs the configuration selects (devices=auto: this process's share of the node's, by
// its node rank; none means emulated host devices), and how many processes of the node share
// each: those devices=auto puts on one GPU split its default pool; explicit selections are
// the user's (each process takes its pools). The node's GPUs are discovered once.
struct GpuChoice {
  std::vector<cuda::GpuInfo> gpus;
  int processes_per_gpu = 1;
};

GpuChoice choose_gpus(const Config& config, NodeRank node) {
  if (config.devices.kind == DeviceSelection::Kind::kHost) return {};
  const std::vector<cuda::GpuInfo> node_gpus = cuda::discover_gpus();
  GpuChoice choice;
  choice.gpus = cuda::select_gpus(config.devices, node_gpus, node);
  if (config.devices.kind == DeviceSelection::Kind::kAuto)
    choice.processes_per_gpu = gpu_share(node_gpus.size(), node).processes_per_gpu;
  return choice;
}
#endif
}  // namespace

LocalDevices local_devices(const Config& config, NodeRank node) {
#if LIGHTNING_HAVE_CUDA
  const auto gpus = choose_gpus(config, node).gpus;
  if (!gpus.empty()) return {static_cast<int>(gpus.size()), true};
#else
  (void)node;
  if (config.devices.kind == DeviceSelection::Kind::kCuda)
    throw Error(ErrorKind::kConfig, "devices '" + config.devices.to_string() +
                                        "': this build has no CUDA backend (built without the "
                                        "CUDA toolkit); use host:N");
#endif
  return {config.devices.kind == DeviceSelection::Kind::kHost ? config.devices.host_count : 1,
          false};
}

void apply_worker_settings(const Config& config, worker::WorkerOptions& options) {
  options.memory.host_bytes = config.host_memory;
  options.memory.spill_dir = config.spill_dir;
  options.staging_limit = config.staging_limit;
  options.check_access = config.check_access;
}

void choose_platforms(const Config& config, NodeRank node,
                      std::vector<worker::WorkerOptions>& options) {
  for (worker::WorkerOptions& o : options) o.platform = std::make_shared<host::HostPlatform>();
#if LIGHTNING_HAVE_CUDA
  const GpuChoice choice = choose_gpus(config, node);
  const auto& gpus = choice.gpus;
  if (gpus.empty() || options.empty()) return;
  uint64_t smallest = gpus.front().total_memory;
  for (const auto& g : gpus) smallest = std::min(smallest, g.total_memory);
  const uint64_t share =
      smallest / 10 * 8 / options.size() / static_cast<uint64_t>(choice.processes_per_gpu);
  auto images = std::make_shared<cuda::JitCache>(
      cuda::JitCache::directory_for(config, Config::process_environment()));
  for (worker::WorkerOptions& o : options) {
    std::vector<std::pair<DeviceId, cuda::GpuInfo>> devices;
    for (size_t i = 0; i < o.devices.size(); ++i) devices.push_back({o.devices[i], gpus.at(i)});
    o.platform = std::make_shared<cuda::CudaPlatform>(devices, images, o.wait);
    for (auto& [device, bytes] : o.memory.devices) bytes = config.device_memory.value_or(share);
  }
#else
  (void)config;
  (void)node;
#endif
}

uint64_t default_device_memory(size_t devices) {
  const uint64_t physical =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return std::max<uint64_t>(uint64_t{64} << 20, physical / (2 * std::max<size_t>(devices, 1)));
}

}  // namespace lightning::driver
