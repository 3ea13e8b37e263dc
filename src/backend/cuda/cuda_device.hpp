// One GPU behind the worker's Device interface: kernels from the JIT launched on a compute
// stream, copies on copy-in and copy-out streams, completions reported by a waiter thread per
// stream from events recorded behind the work (the worker's threads never wait for the GPU,
// and the streams never wait for the host).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/cuda/gpu_context.hpp"
#include "backend/cuda/kernel_image.hpp"
#include "backend/cuda/launch_grid.hpp"
#include "backend/cuda/pinned_host_pool.hpp"
#include "core/wait_policy.hpp"
#include "lightning_kokkos/device/launch_box.hpp"
#include "worker/device.hpp"
#include "worker/engine.hpp"

namespace lightning::cuda {

/// One GPU driven by a worker. Two host threads issue its work: "D<n> compute" (kernel
/// lookup in the JIT, module loading, launches) and "D<n> copy" (copies, and host jobs,
/// which wait for their transfers). Three non-blocking streams carry it: compute, copy-in
/// (towards this GPU) and copy-out (from it). Every operation ends with an event; one waiter
/// thread per stream ("D<n> compute wait", ...) waits for the events in order and calls
/// `done`. (Reductions also run a host function inside the compute stream, to join the
/// partials; `done` may call the driver.)
class CudaDevice final : public worker::Device {
 public:
  /// `gpus` maps every device of the worker (this one included) to its GPU's context, for
  /// copies between GPUs. `wait` (optional) counts the device's launches and what runs behind
  /// them from issue to report, and its compute thread and compute waiter poll by it
  /// (WaitPolicy). Everything given must outlive the device.
  CudaDevice(DeviceId id, const GpuContext& context,
             const std::unordered_map<DeviceId, const GpuContext*>& gpus, PinnedHostPool& pinned,
             KernelImageSource& images, WaitPolicy* wait = nullptr);
  /// Finishes every queued operation (their `done` included), then frees the streams,
  /// modules and scratch memory.
  ~CudaDevice() override;

  DeviceId id() const override { return id_; }
  std::string description() const override;
  /// Generated GPU code can be compiled for checked mode, whatever the kernel.
  bool checks_accesses(const kernel::KernelInfo& kernel) const override {
    return kernel.device.kind != kernel::DeviceCodeKind::kNone;
  }
  /// Every launch goes to the one compute stream.
  bool runs_launches_in_order() const override { return true; }
  void launch(worker::KernelRun run, Done done) override;
  void copy(worker::PlacedBuffer dst, worker::PlacedBuffer src, Rect region, Done done) override;
  void run_on_host(std::vector<worker::HostAccess> accesses, HostJob job, Done done) override;
  /// A region that is one run of bytes in this GPU's memory is filled there (cuMemset, or
  /// the element copied up once and doubled by device-to-device copies); any other region
  /// through host memory (Device::fill).
  void fill(worker::PlacedBuffer dst, Rect region, std::vector<uint8_t> value, Done done) override;
  void run_on_host_behind_launches(std::vector<worker::HostAccess> accesses, HostJob job,
                                   worker::FailureFlags skip_if_failed, Done done) override;

 private:
  struct Completion;
  /// A kernel's entry points in its module: the general one (grid-stride) and, where the
  /// code generator made one, the one-index-per-thread entry for grids that cover the box.
  struct Functions {
    CUfunction general = nullptr;
    CUfunction cover = nullptr;
    CUfunction scan_final = nullptr;  // scan kernels: the final pass (general: the partial)
    int max_threads = 0;              // per block, as compiled (registers, __launch_bounds__)
    int static_shared = 0;            // bytes of __shared__ variables
  };
  Functions functions_for(const worker::KernelRun& run);
  void issue_launch(worker::KernelRun& run, Completion& completion);
  void issue_ported(worker::KernelRun& run, const Functions& functions, const jit::LaunchBox& box);
  void issue_team(worker::KernelRun& run, const Functions& functions, const jit::LaunchBox& box,
                  Completion& completion);
  void issue_scan_final(worker::KernelRun& run, const Functions& functions,
                        const jit::LaunchBox& box);
  /// The device scratch buffer, grown to at least `bytes` (waiting for the launches that may
  /// still use the old one).
  CUdeviceptr scratch(uint64_t bytes, const std::string& kernel_name);
  /// The count of blocks done that range reductions' last blocks test (zero between launches).
  unsigned* reduction_counter();
  /// For an array reduction: copies `blocks` partials from `partials` behind the kernel, joins
  /// them on the host and copies the value to the run's partial.
  void finish_reduction(worker::KernelRun& run, Completion& completion, CUdeviceptr partials,
                        int64_t blocks);
  void run_checked(worker::KernelRun& run, Completion& completion);
  void enqueue_copy(CUstream stream, const worker::PlacedBuffer& dst,
                    const worker::PlacedBuffer& src, const Rect& region);
  const GpuContext* context_of(const worker::MemorySpace& space) const;
  /// Host views of a host job's buffers (`views`, in access order): host buffers as they are,
  /// device buffers through pinned blocks (appended to `blocks`), copied into on `stream` where
  /// the job reads them. Returns whether it queued a copy.
  bool host_views(const std::vector<worker::HostAccess>& accesses, CUstream stream,
                  std::vector<void*>& blocks, std::vector<worker::BoxBuffer>& views);
  /// A new operation's completion: its `done`, started now.
  /// An operation's completion record, its span started; `gpu_work`: whether it counts as the
  /// GPU working in the WaitPolicy (launches and what runs behind them, not copies).
  std::unique_ptr<Completion> started(Done done, bool gpu_work = true);
  void finish_with_event(CUstream stream, std::unique_ptr<Completion>& completion);
  /// Reports a compute-thread operation that failed before its event was recorded, after the
  /// launches issued before it.
  void report_behind_launches(std::unique_ptr<Completion>& completion, std::exception_ptr error);
  CUevent take_event();
  void give_event(CUevent event);

  DeviceId id_;
  const GpuContext& context_;
  const DriverApi& api_;
  const std::unordered_map<DeviceId, const GpuContext*>& gpus_;
  PinnedHostPool& pinned_;
  KernelImageSource& images_;
  WaitPolicy* wait_;
  CUstream compute_ = nullptr, copy_in_ = nullptr, copy_out_ = nullptr;

  // State of the compute thread.
  std::map<std::pair<const kernel::KernelInfo*, std::string>, Functions> functions_;
  std::vector<CUmodule> modules_;
  // Per-block partials of reductions, team kernels' status and level-1 scratch; reused in
  // stream order.
  CUdeviceptr scratch_ = 0;
  uint64_t scratch_bytes_ = 0;
  CUdeviceptr reduction_counter_ = 0;

  // Completion events, reused.
  std::mutex events_mutex_;
  std::vector<CUevent> free_events_;

  // Declared last: destroyed (drained) first.
  std::unique_ptr<worker::Engine> compute_waiter_, copy_in_waiter_, copy_out_waiter_;
  std::unique_ptr<worker::Engine> compute_thread_;
  std::unique_ptr<worker::Engine> copy_thread_;
};

}  // namespace lightning::cuda
