#include "backend/cuda/gpu_discovery.hpp"

#include "backend/cuda/driver_api.hpp"
#include "core/error.hpp"
#include "core/size_text.hpp"

namespace lightning::cuda {

std::vector<GpuInfo> discover_gpus() {
  if (!DriverApi::available()) return {};
  const DriverApi& api = DriverApi::get();
  int count = 0;
  api.check(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<GpuInfo> gpus;
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    api.check(api.cuDeviceGet(&dev, i), "cuDeviceGet", "while listing GPU " + std::to_string(i));
    GpuInfo g;
    g.ordinal = i;
    char name[256] = {};
    api.check(api.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
    g.name = name;
    size_t bytes = 0;
    api.check(api.cuDeviceTotalMem(&bytes, dev), "cuDeviceTotalMem");
    g.total_memory = bytes;
    auto attribute = [&](CUdevice_attribute a) {
      int v = 0;
      api.check(api.cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute",
                "while listing GPU " + std::to_string(i));
      return v;
    };
    g.compute_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    g.compute_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    g.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    g.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    g.max_shared_per_block_optin = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    g.unified_addressing = attribute(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) != 0;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::vector<GpuInfo> select_gpus(const DeviceSelection& selection, const std::vector<GpuInfo>& gpus,
                                 NodeRank node) {
  const std::string what = "devices '" + selection.to_string() + "'";
  switch (selection.kind) {
    case DeviceSelection::Kind::kHost:
      return {};
    case DeviceSelection::Kind::kAuto: {
      std::vector<GpuInfo> mine;
      for (size_t g : gpu_share(gpus.size(), node).gpus) mine.push_back(gpus[g]);
      return mine;
    }
    case DeviceSelection::Kind::kCuda:
      break;
  }
  if (gpus.empty()) {
    const std::string reason = DriverApi::unavailable_reason();
    throw Error(ErrorKind::kConfig, what + ": this machine has no GPU" +
                                        (reason.empty() ? "" : " (" + reason + ")") +
                                        "; use host:N for emulated devices");
  }
  if (selection.cuda_ordinals.empty()) return gpus;
  std::vector<GpuInfo> picked;
  for (int ordinal : selection.cuda_ordinals) {
    if (ordinal < 0 || ordinal >= static_cast<int>(gpus.size()))
      throw Error(ErrorKind::kConfig,
                  what + ": GPU " + std::to_string(ordinal) + " does not exist (this machine has " +
                      std::to_string(gpus.size()) +
                      ": cuda:0 to cuda:" + std::to_string(gpus.size() - 1) + ")");
    picked.push_back(gpus[static_cast<size_t>(ordinal)]);
  }
  return picked;
}

std::string describe(const std::vector<GpuInfo>& gpus) {
  std::string s;
  for (const GpuInfo& g : gpus)
    s += "cuda:" + std::to_string(g.ordinal) + " " + g.name + ", " + format_size(g.total_memory) +
         ", compute capability " + std::to_string(g.compute_major) + "." +
         std::to_string(g.compute_minor) + ", " + std::to_string(g.multiprocessors) + " SMs\n";
  return s;
}

}  // namespace lightning::cuda
