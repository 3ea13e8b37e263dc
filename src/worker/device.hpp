// What a worker asks of a device: run a kernel over a superblock, copy regions between
// memories, run host code over a task's buffers. Emulated host devices (host::HostDevice) and
// GPUs (cuda::CudaDevice) implement it; the worker drives both alike.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/data_type.hpp"
#include "core/ids.hpp"
#include "core/rect.hpp"
#include "core/reduction.hpp"
#include "kernel/kernel_registry.hpp"
#include "planner/task.hpp"
#include "worker/access_check.hpp"
#include "worker/engine.hpp"
#include "worker/memory_space.hpp"
#include "worker/region_ops.hpp"

namespace lightning::worker {

/// A task's buffer as a device sees it: the elements of `box`, row-major, at `data` in
/// `space` (a device's memory or host memory; a device address for a GPU's memory).
struct PlacedBuffer {
  void* data = nullptr;
  Rect box;
  size_t elem_size = 0;
  MemorySpace space;

  worker::BoxBuffer view() const { return {data, box, elem_size}; }
};

/// The failure flags of the launches a task was issued behind on an in-order device, set before
/// their `done` is called (the worker's TaskState::launch_failed).
using FailureFlags = std::vector<std::shared_ptr<const std::atomic<bool>>>;
/// Whether one of `flags` is set.
bool any_failed(const FailureFlags& flags);

/// A kernel over one superblock.
struct KernelRun {
  const kernel::KernelInfo* info = nullptr;
  std::string name;              ///< the launch's name, for messages and traces
  std::vector<uint8_t> functor;  ///< its bytes, array handles patched to this device's memory
  Rect superblock;               ///< thread indices
  /// Reductions and a scan's partial pass: value_size bytes in this device's memory. A scan's
  /// final pass: where it leaves the value after its last index, when the plan asks.
  void* partial = nullptr;
  /// Reductions: how values combine, the launch's as this process runs it (a custom one has
  /// the kernel's init/join: KernelInfo::resolve).
  Reduction reduction;
  /// Checked mode: the records the functor's checked handles point at (see AccessCheck);
  /// null: the handles point at the chunks themselves.
  std::shared_ptr<AccessCheck> check;
  planner::ScanPass scan = planner::ScanPass::kNone;
  /// A scan's final pass: the value its first thread starts from (value_size bytes in this
  /// device's memory); null: the identity.
  const void* scan_prefix = nullptr;
  /// Issued behind other launches of the same in-order device (Scheduler): their failure
  /// flags, set before their `done` is called. A device that finds one set when the run would
  /// start does not run it and fails it with SkippedBehindFailure.
  FailureFlags skip_if_failed = {};

  /// Whether one of skip_if_failed is set.
  bool runs_behind_a_failure() const { return any_failed(skip_if_failed); }
};

/// The error of a run not started because a launch it was issued behind failed (the
/// scheduler reports it as skipped because of that launch).
class SkippedBehindFailure : public std::runtime_error {
 public:
  SkippedBehindFailure() : std::runtime_error("not run: a launch before it on its device failed") {}
};

/// One buffer host code works on. A buffer in a device's memory is copied to host memory
/// before the job (`region` of it, when `read`) and back after it (`region`, when `write`);
/// host code sees only `region` then, so it must not touch the buffer outside it.
struct HostAccess {
  PlacedBuffer buffer;
  Rect region;
  bool read = true;
  bool write = false;
};

/// One device of a worker. Every operation returns at once and reports its end through
/// `done`, exactly once, with nullptr or the error and when it ran; `done` may run on any
/// thread (an engine's, or the GPU driver's) and must neither block nor throw.
/// Operations on one device may run concurrently: the worker orders dependent tasks itself.
class Device {
 public:
  using Done = Engine::Done;
  /// Host code over host views of a task's buffers, in HostAccess order.
  using HostJob = std::function<void(const std::vector<worker::BoxBuffer>& buffers)>;

  virtual ~Device() = default;

  virtual DeviceId id() const = 0;
  /// "emulated host device", "NVIDIA H200 (cuda:0)": for logs and lightning-info.
  virtual std::string description() const = 0;
  /// Whether launch() can check `kernel`'s runs (KernelRun::check, checked mode); runs it
  /// cannot check are given unchecked even in checked mode.
  virtual bool checks_accesses(const kernel::KernelInfo& kernel) const {
    (void)kernel;
    return false;
  }

  /// Whether launches run one after another in the order they are issued (one in-order
  /// queue), so that a launch may be issued before those it depends on have finished. Such a
  /// device also implements run_on_host_behind_launches.
  virtual bool runs_launches_in_order() const { return false; }

  /// Runs a kernel over a superblock on the compute engine. A reduction's `partial` starts
  /// from the reduction's identity (`run.reduction.init`). Failures are the underlying error
  /// (see kernel_failure); the worker names the kernel, the superblock and the device. A
  /// checked run that breaks its annotation fails with planner::AccessViolationError.
  virtual void launch(KernelRun run, Done done) = 0;
  /// `dst[p] = src[p]` for p in `region`, where each buffer is in this device's memory,
  /// another device's of the same kind, or host memory.
  virtual void copy(PlacedBuffer dst, PlacedBuffer src, Rect region, Done done) = 0;
  /// Runs `job` on the copy engine's side over host views of `accesses` (see HostAccess).
  virtual void run_on_host(std::vector<HostAccess> accesses, HostJob job, Done done) = 0;
  /// Sets every element of `region` of `dst` to `value` (one element's bytes). Here: a host
  /// job (run_on_host); a device whose memory the host does not address fills it itself.
  virtual void fill(PlacedBuffer dst, Rect region, std::vector<uint8_t> value, Done done);
  /// Runs `job` as run_on_host does, but in the launches' in-order queue: after every launch
  /// issued before it has ended, so that it may be issued before they end (a reduction's value
  /// read into the program's buffer right behind its kernel). Accesses to this device's memory
  /// must be reads. When one of `skip_if_failed` is set by the time the job would run, it
  /// does not run and fails with SkippedBehindFailure. Only for a device whose
  /// runs_launches_in_order(); others fail it with an internal error.
  virtual void run_on_host_behind_launches(std::vector<HostAccess> accesses, HostJob job,
                                           FailureFlags skip_if_failed, Done done);
};

/// The error of a kernel that failed with the exception being handled (call it in a catch
/// block): a lightning::Error as it is (its kind says what went wrong: kCuda, ...), any other
/// exception as Error(kTask) with its what(). It does not name the kernel, superblock or
/// device: the worker's planner::TaskFailure does.
std::exception_ptr kernel_failure();

}  // namespace lightning::worker
