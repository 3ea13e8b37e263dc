// What the GPU benchmarks share: hand-written kernels launched natively through the driver
// API (the baseline measured in the same run); timing.hpp times the runs.
#pragma once

#include <vector>

#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_context.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "backend/cuda/nvrtc_compiler.hpp"
#include "timing.hpp"

namespace lightning::perf {

/// The native side of a benchmark: one module of hand-written kernels (compiled by NVRTC
/// with the runtime's options), buffers on plain cuMemAlloc, one stream.
class Native {
 public:
  Native(const cuda::GpuInfo& gpu, const char* source) : context_(gpu), api_(context_.api()) {
    context_.make_current();
    const auto out = cuda::compile_to_cubin(
        {"native", "native.cu", source}, cuda::nvrtc_options(gpu.compute_major, gpu.compute_minor));
    api_.check(api_.cuModuleLoadData(&module_, out.cubin.data()), "cuModuleLoadData");
    api_.check(api_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
  CUfunction function(const char* name) {
    CUfunction f = nullptr;
    api_.check(api_.cuModuleGetFunction(&f, module_, name), "cuModuleGetFunction");
    return f;
  }
  template <class T>
  CUdeviceptr upload(const std::vector<T>& host) {
    context_.make_current();
    CUdeviceptr p = 0;
    api_.check(api_.cuMemAlloc(&p, host.size() * sizeof(T)), "cuMemAlloc");
    api_.check(api_.cuMemcpyAsync(p, reinterpret_cast<CUdeviceptr>(host.data()),
                                  host.size() * sizeof(T), stream_),
               "cuMemcpyAsync");
    api_.check(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
    buffers_.push_back(p);
    return p;
  }
  template <class T>
  std::vector<T> download(CUdeviceptr p, size_t count) {
    std::vector<T> host(count);
    api_.check(api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(host.data()), p, count * sizeof(T),
                                  stream_),
               "cuMemcpyAsync");
    api_.check(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
    return host;
  }
  /// Launches `f` on the stream and waits for it.
  void launch(CUfunction f, const unsigned grid[3], const unsigned block[3], unsigned shared,
              void** params) {
    enqueue(f, grid, block, shared, params);
    synchronize();
  }
  /// Launches `f` on the stream, behind what is there, without waiting.
  void enqueue(CUfunction f, const unsigned grid[3], const unsigned block[3], unsigned shared,
               void** params) {
    context_.make_current();
    if (shared > 48 * 1024)
      api_.check(
          api_.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(shared)),
          "cuFuncSetAttribute");
    api_.check(api_.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                   shared, stream_, params, nullptr),
               "cuLaunchKernel");
  }
  /// Copies `bytes` from `src` to `dst` in device memory on the stream, without waiting.
  void enqueue_copy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    context_.make_current();
    api_.check(api_.cuMemcpyAsync(dst, src, bytes, stream_), "cuMemcpyAsync");
  }
  /// Copies `bytes` from the device to `host` on the stream (behind the launches) and waits.
  void read(void* host, CUdeviceptr p, size_t bytes) {
    api_.check(api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(host), p, bytes, stream_),
               "cuMemcpyAsync");
    synchronize();
  }
  void synchronize() { api_.check(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize"); }
  ~Native() {
    for (CUdeviceptr p : buffers_) api_.cuMemFree(p);
    api_.cuStreamDestroy(stream_);
    api_.cuModuleUnload(module_);
  }

 private:
  cuda::GpuContext context_;
  const cuda::DriverApi& api_;
  CUmodule module_ = nullptr;
  CUstream stream_ = nullptr;
  std::vector<CUdeviceptr> buffers_;
};

}  // namespace lightning::perf
