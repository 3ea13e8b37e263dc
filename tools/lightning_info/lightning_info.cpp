// lightning-info: prints what the runtime would use here: the GPUs the CUDA driver shows,
// the devices the configuration selects, memories, the configuration itself, and the
// versions of lightning_kokkos, Kokkos, MPI and NVRTC.
//   lightning-info [--lightning-<key>=<value> ...]      (LIGHTNING_<KEY> variables apply too)
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>

#include "core/config.hpp"
#include "core/node_rank.hpp"
#include "core/size_text.hpp"
#include "lightning_kokkos/build_config.hpp"
#include "lightning_kokkos/version.hpp"

#if LIGHTNING_HAVE_CUDA
#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_context.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#endif

namespace {

using lightning::Config;
using lightning::DeviceSelection;
using lightning::node_rank_from;
using lightning::NodeRank;

void print_gpus(const Config& config) {
#if LIGHTNING_HAVE_CUDA
  using namespace lightning::cuda;
  if (!DriverApi::available()) {
    std::printf("CUDA driver: %s\n", DriverApi::unavailable_reason().c_str());
  } else {
    const DriverApi& api = DriverApi::get();
    std::printf("CUDA driver: %s\n", api.driver_version().c_str());
  }
  const auto gpus = discover_gpus();
  std::printf("GPUs: %zu\n", gpus.size());
  for (const GpuInfo& g : gpus) {
    GpuContext context(g);
    context.make_current();
    size_t free = 0, total = 0;
    context.api().check(context.api().cuMemGetInfo(&free, &total), "cuMemGetInfo");
    std::printf("  cuda:%d %s: %s memory (%s free), compute capability %d.%d (sm_%d%d), %d SMs\n",
                g.ordinal, g.name.c_str(), lightning::format_size(g.total_memory).c_str(),
                lightning::format_size(free).c_str(), g.compute_major, g.compute_minor,
                g.compute_major, g.compute_minor, g.multiprocessors);
  }
  for (const GpuInfo& a : gpus)
    for (const GpuInfo& b : gpus) {
      if (a.ordinal == b.ordinal) continue;
      const DriverApi& api = DriverApi::get();
      CUdevice da = 0, db = 0;
      int can = 0;
      api.check(api.cuDeviceGet(&da, a.ordinal), "cuDeviceGet");
      api.check(api.cuDeviceGet(&db, b.ordinal), "cuDeviceGet");
      api.check(api.cuDeviceCanAccessPeer(&can, da, db), "cuDeviceCanAccessPeer");
      std::printf("  peer access cuda:%d -> cuda:%d: %s\n", a.ordinal, b.ordinal,
                  can ? "yes" : "no (copies staged through host memory)");
    }
  const NodeRank node = node_rank_from(Config::process_environment());
  if (node.local_size > 1)
    std::printf("Node rank: %d of %d (devices=auto takes this process's share of the GPUs)\n",
                node.local_rank, node.local_size);
  const auto picked = select_gpus(config.devices, gpus, node);
  if (!picked.empty()) {
    std::printf("Devices (devices = %s): %zu GPU(s):", config.devices.to_string().c_str(),
                picked.size());
    for (const GpuInfo& g : picked) std::printf(" cuda:%d", g.ordinal);
    std::printf("\n");
    return;
  }
#else
  std::printf("CUDA driver: not used (this build has no CUDA backend)\n");
  if (config.devices.kind == DeviceSelection::Kind::kCuda)
    throw lightning::Error(lightning::ErrorKind::kConfig, "devices '" + config.devices.to_string() +
                                                              "': this build has no CUDA backend");
#endif
  const int n = config.devices.kind == DeviceSelection::Kind::kHost ? config.devices.host_count : 1;
  std::printf("Devices (devices = %s): %d emulated host device%s\n",
              config.devices.to_string().c_str(), n, n == 1 ? "" : "s");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Config config = Config::load_from_process(&argc, argv);
    std::printf("%s", lightning::build_info().c_str());
    print_gpus(config);
    const uint64_t physical = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                              static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    std::printf("Host memory: %s physical\n", lightning::format_size(physical).c_str());
    std::printf("Configuration:\n");
    const std::string text = config.describe();
    for (size_t at = 0, nl; at < text.size(); at = nl + 1) {
      nl = text.find('\n', at);
      std::printf("  %s\n", text.substr(at, nl - at).c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lightning-info: %s\n", e.what());
    return 1;
  }
}
