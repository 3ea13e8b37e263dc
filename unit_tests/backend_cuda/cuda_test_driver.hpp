// A minimal CUDA driver API harness for tests and benchmarks of generated entry points:
// libcuda opened at run time (the library never links it), the first GPU's primary context,
// device buffers, and the array-handle patching the runtime does for a chunk.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/rect.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/launch_box.hpp"

namespace lightning::cuda::test {

// The few driver API calls the test needs, opened at run time (the library never links
// libcuda). Types as in cuda.h, spelled out so no CUDA header is needed.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;

struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, void*, void**, void**);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuEventCreate)(void**, unsigned);
  CUresult (*cuEventRecord)(void*, void*);
  CUresult (*cuEventSynchronize)(void*);
  CUresult (*cuEventElapsedTime)(float*, void*, void*);
  int sm_major = 0;
  int sm_minor = 0;
  int multiprocessors = 0;
};

inline DriverApi* api = nullptr;

inline void check(CUresult r, const char* call) {
  if (r == 0) return;
  const char* text = "?";
  api->cuGetErrorString(r, &text);
  throw std::runtime_error(std::string(call) + ": " + text);
}
#define LK_CU(call) ::lightning::cuda::test::check(::lightning::cuda::test::api->call, #call)

// Opens libcuda and the first GPU; null (test skipped) when there is none.
inline DriverApi* open_driver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) return nullptr;
  static DriverApi d;
  auto load = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    return fn != nullptr;
  };
  bool ok =
      load(d.cuInit, "cuInit") && load(d.cuDeviceGetCount, "cuDeviceGetCount") &&
      load(d.cuDeviceGet, "cuDeviceGet") && load(d.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
      load(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
      load(d.cuCtxSetCurrent, "cuCtxSetCurrent") && load(d.cuModuleLoadData, "cuModuleLoadData") &&
      load(d.cuModuleGetFunction, "cuModuleGetFunction") && load(d.cuMemAlloc, "cuMemAlloc_v2") &&
      load(d.cuMemFree, "cuMemFree_v2") && load(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
      load(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2") && load(d.cuLaunchKernel, "cuLaunchKernel") &&
      load(d.cuCtxSynchronize, "cuCtxSynchronize") &&
      load(d.cuGetErrorString, "cuGetErrorString") && load(d.cuEventCreate, "cuEventCreate") &&
      load(d.cuEventRecord, "cuEventRecord") && load(d.cuEventSynchronize, "cuEventSynchronize") &&
      load(d.cuEventElapsedTime, "cuEventElapsedTime");
  int count = 0;
  if (!ok || d.cuInit(0) != 0 || d.cuDeviceGetCount(&count) != 0 || count == 0) return nullptr;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if (d.cuDeviceGet(&dev, 0) != 0 || d.cuDevicePrimaryCtxRetain(&ctx, dev) != 0 ||
      d.cuCtxSetCurrent(ctx) != 0)
    return nullptr;
  d.cuDeviceGetAttribute(&d.sm_major, 75, dev);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  d.cuDeviceGetAttribute(&d.sm_minor, 76, dev);  // ..._MINOR
  d.cuDeviceGetAttribute(&d.multiprocessors, 16, dev);  // ..._MULTIPROCESSOR_COUNT
  return &d;
}

// Device memory holding a copy of `host`.
template <class T>
struct DeviceBuffer {
  explicit DeviceBuffer(const std::vector<T>& host) : size(host.size()) {
    LK_CU(cuMemAlloc(&ptr, bytes()));
    LK_CU(cuMemcpyHtoD(ptr, host.data(), bytes()));
  }
  ~DeviceBuffer() { api->cuMemFree(ptr); }
  std::vector<T> read() const {
    std::vector<T> host(size);
    LK_CU(cuMemcpyDtoH(host.data(), ptr, bytes()));
    return host;
  }
  size_t bytes() const { return size * sizeof(T); }
  CUdeviceptr ptr = 0;
  size_t size;
};

// What the runtime hands a GPU kernel in an array handle for a chunk of `box` (row-major
// storage at `buffer`) of an array of `extent`: the box's strides, and the data pointer with
// the offset of the box's first element folded in (kernel::fold_chunk_offsets), so that `data`
// is indexed with global indices and `offset` is 0.
template <class T>
void patch(std::vector<unsigned char>& bytes, size_t at, const DeviceBuffer<T>& buffer,
           const Rect& box, const std::vector<int64_t>& extent) {
  RawArrayHandle h{};
  const int rank = box.rank();
  int64_t stride = 1, offset = 0;
  for (int a = rank - 1; a >= 0; --a) {
    h.stride_and_extent[a] = stride;
    h.stride_and_extent[rank + a] = extent[a];
    offset += box.lo()[a] * stride;
    stride *= box.extent()[a];
  }
  h.data = reinterpret_cast<void*>(buffer.ptr - static_cast<CUdeviceptr>(offset) * sizeof(T));
  h.offset = 0;
  std::memcpy(bytes.data() + at, &h, 16 + 16 * static_cast<size_t>(rank));
}

inline jit::LaunchBox box_of(const Rect& threads) {
  jit::LaunchBox b{{0, 0, 0}, {1, 1, 1}, threads.rank()};
  for (int a = 0; a < threads.rank(); ++a) {
    b.lo[a] = threads.lo()[a];
    b.hi[a] = threads.hi()[a];
  }
  return b;
}

}  // namespace lightning::cuda::test
