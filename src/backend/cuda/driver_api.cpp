#include "backend/cuda/driver_api.hpp"

#include <dlfcn.h>

#include <mutex>

#include "core/error.hpp"

namespace lightning::cuda {

namespace {

// Two steps, so that a name cuda.h maps to a versioned symbol is expanded first.
#define LIGHTNING_CUDA_SYMBOL_TEXT(name) #name
#define LIGHTNING_CUDA_SYMBOL(name) LIGHTNING_CUDA_SYMBOL_TEXT(name)

struct Loaded {
  DriverApi* api = nullptr;  // never freed: the driver stays loaded for the process
  std::string failure;
};

}  // namespace

const DriverApi& DriverApi::get() {
  // Loaded once; a failure is remembered so that every caller gets the same explanation.
  static const Loaded loaded = []() -> Loaded {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr)
      return {nullptr, std::string("no CUDA driver on this machine (") + dlerror() + ")"};
    auto* api = new DriverApi();
    api->library_ = library;
    std::string missing;
#define LIGHTNING_CUDA_LOOKUP(name)                                                               \
  api->name = reinterpret_cast<decltype(api->name)>(dlsym(library, LIGHTNING_CUDA_SYMBOL(name))); \
  if (api->name == nullptr)                                                                       \
    missing += (missing.empty() ? "" : ", ") + std::string(LIGHTNING_CUDA_SYMBOL(name));
    LIGHTNING_CUDA_DRIVER_FUNCTIONS(LIGHTNING_CUDA_LOOKUP)
#undef LIGHTNING_CUDA_LOOKUP
    if (!missing.empty()) {
      delete api;
      return {nullptr, "the CUDA driver (libcuda.so.1) is too old: it lacks " + missing};
    }
    if (const CUresult r = api->cuInit(0); r != CUDA_SUCCESS) {
      std::string text = "cuInit failed: " + api->describe(r);
      delete api;
      return {nullptr, text};
    }
    return {api, {}};
  }();
  if (loaded.api == nullptr) throw Error(ErrorKind::kCuda, loaded.failure);
  return *loaded.api;
}

bool DriverApi::available() {
  return unavailable_reason().empty();
}

std::string DriverApi::unavailable_reason() {
  try {
    get();
    return {};
  } catch (const Error& e) {
    return e.message();
  }
}

std::string DriverApi::describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr)
    return "unknown CUDA error " + std::to_string(static_cast<int>(result));
  std::string s = name;
  if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text != nullptr)
    s += std::string(" (") + text + ")";
  return s;
}

void DriverApi::check(CUresult result, const char* call, const std::string& context) const {
  if (result == CUDA_SUCCESS) return;
  Error e(ErrorKind::kCuda, std::string(call) + " failed: " + describe(result));
  if (!context.empty()) e.with_context(context);
  throw e;
}

std::string DriverApi::driver_version() const {
  int v = 0;
  check(cuDriverGetVersion(&v), "cuDriverGetVersion");
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

void make_current(const DriverApi& api, CUcontext context) {
  api.check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

}  // namespace lightning::cuda
