// The gpu label's contract: on a machine without a CUDA driver, exit 77 (ctest reports the
// test as skipped, with the reason on stdout); with one, the driver must initialise and show
// at least one device, or the test fails.
#include <dlfcn.h>

#include <cstdio>

namespace {

using CuInit = int (*)(unsigned);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);

}  // namespace

int main() {
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!libcuda) {
    std::printf("SKIPPED: no CUDA driver on this machine (libcuda.so.1: %s)\n", dlerror());
    return 77;
  }
  auto cu_init = reinterpret_cast<CuInit>(dlsym(libcuda, "cuInit"));
  auto cu_count = reinterpret_cast<CuDeviceGetCount>(dlsym(libcuda, "cuDeviceGetCount"));
  auto cu_get = reinterpret_cast<CuDeviceGet>(dlsym(libcuda, "cuDeviceGet"));
  auto cu_name = reinterpret_cast<CuDeviceGetName>(dlsym(libcuda, "cuDeviceGetName"));
  if (!cu_init || !cu_count || !cu_get || !cu_name) {
    std::printf("FAILED: libcuda.so.1 lacks driver API entry points\n");
    return 1;
  }
  if (int rc = cu_init(0); rc != 0) {
    std::printf("FAILED: cuInit returned %d\n", rc);
    return 1;
  }
  int count = 0;
  if (cu_count(&count) != 0 || count < 1) {
    std::printf("FAILED: the driver is installed but shows %d devices\n", count);
    return 1;
  }
  for (int i = 0; i < count; ++i) {
    int dev = 0;
    char name[256] = {};
    cu_get(&dev, i);
    cu_name(name, sizeof name, dev);
    std::printf("device %d: %s\n", i, name);
  }
  return 0;
}
