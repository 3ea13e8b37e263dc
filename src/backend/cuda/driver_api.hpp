// The CUDA driver API, opened at run time: one binary runs on machines with and without a
// GPU driver, because nothing links libcuda.
#pragma once

#include <cuda.h>

#include <string>

namespace lightning::cuda {

// Every driver entry point the backend calls. The names are cuda.h's: where cuda.h maps a
// name to a versioned symbol (cuMemAlloc -> cuMemAlloc_v2), the table looks up that symbol.
#define LIGHTNING_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuGetErrorName)                        \
  X(cuGetErrorString)                      \
  X(cuInit)                                \
  X(cuDriverGetVersion)                    \
  X(cuDeviceGetCount)                      \
  X(cuDeviceGet)                           \
  X(cuDeviceGetName)                       \
  X(cuDeviceTotalMem)                      \
  X(cuDeviceGetAttribute)                  \
  X(cuDeviceCanAccessPeer)                 \
  X(cuDevicePrimaryCtxRetain)              \
  X(cuDevicePrimaryCtxRelease)             \
  X(cuCtxSetCurrent)                       \
  X(cuCtxGetCurrent)                       \
  X(cuCtxEnablePeerAccess)                 \
  X(cuMemGetInfo)                          \
  X(cuStreamCreate)                        \
  X(cuStreamDestroy)                       \
  X(cuStreamSynchronize)                   \
  X(cuStreamWaitEvent)                     \
  X(cuEventCreate)                         \
  X(cuEventDestroy)                        \
  X(cuEventRecord)                         \
  X(cuEventSynchronize)                    \
  X(cuEventQuery)                          \
  X(cuEventElapsedTime)                    \
  X(cuLaunchHostFunc)                      \
  X(cuMemAlloc)                            \
  X(cuMemFree)                             \
  X(cuMemAddressReserve)                   \
  X(cuMemAddressFree)                      \
  X(cuMemCreate)                           \
  X(cuMemRelease)                          \
  X(cuMemMap)                              \
  X(cuMemUnmap)                            \
  X(cuMemSetAccess)                        \
  X(cuMemGetAllocationGranularity)         \
  X(cuMemHostAlloc)                        \
  X(cuMemFreeHost)                         \
  X(cuMemcpyAsync)                         \
  X(cuMemcpyPeerAsync)                     \
  X(cuMemcpy3DAsync)                       \
  X(cuMemcpy3DPeerAsync)                   \
  X(cuMemsetD8Async)                       \
  X(cuMemsetD16Async)                      \
  X(cuMemsetD32Async)                      \
  X(cuModuleLoadData)                      \
  X(cuModuleUnload)                        \
  X(cuModuleGetFunction)                   \
  X(cuFuncGetAttribute)                    \
  X(cuFuncSetAttribute)                    \
  X(cuLaunchKernel)

/// The driver's entry points, looked up once per process with dlopen/dlsym.
///
/// Call through the table and check every result naming the call:
/// `api.check(api.cuMemAlloc(&p, n), "cuMemAlloc")` throws
/// `Error(kCuda, "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)")`.
class DriverApi {
 public:
#define LIGHTNING_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  LIGHTNING_CUDA_DRIVER_FUNCTIONS(LIGHTNING_CUDA_DECLARE)
#undef LIGHTNING_CUDA_DECLARE

  /// The process's table: opens libcuda.so.1 and calls cuInit(0) on first use. Throws
  /// Error(kCuda) saying why when there is no usable driver (no library, a missing entry
  /// point, cuInit failing); later calls throw the same error again.
  static const DriverApi& get();
  /// Whether get() succeeds (never throws).
  static bool available();
  /// Why get() fails, or empty when it succeeds.
  static std::string unavailable_reason();

  /// Throws Error(kCuda) naming `call`, the error's name and description unless `result`
  /// is CUDA_SUCCESS. `context` (optional) is added as a context line ("while ...").
  void check(CUresult result, const char* call, const std::string& context = {}) const;
  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for a result code.
  std::string describe(CUresult result) const;

  /// The driver's CUDA version as "13.0".
  std::string driver_version() const;

 private:
  DriverApi() = default;
  void* library_ = nullptr;
};

/// Makes a context current on the calling thread for the scope, restoring nothing: every
/// thread of the backend that talks to a device sets its context before each batch of calls.
void make_current(const DriverApi& api, CUcontext context);

}  // namespace lightning::cuda
