#include "backend/host/host_device.hpp"

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "kernel/kernel_thread.hpp"
#include "worker/region_ops.hpp"

namespace lightning::host {

HostDevice::HostDevice(DeviceId id, int compute_threads)
    : id_(id),
      compute_threads_(compute_threads),
      compute_(id.to_string() + " compute", compute_threads),
      copy_(id.to_string() + " copy", 1) {}

std::string HostDevice::description() const {
  return "emulated host device " + id_.to_string() + " (" + std::to_string(compute_threads_) +
         " compute thread(s))";
}

namespace {

// The kernel's threads of `run`: a plain or reducing run, or a scan's pass.
void run_kernel(worker::KernelRun& run) {
  using planner::ScanPass;
  const kernel::KernelThreadScope in_kernel({run.functor.data(), &run.info->description});
  if (run.scan == ScanPass::kNone)
    return run.info->run_host(run.functor.data(), run.superblock, run.partial);
  if (run.scan == ScanPass::kPartial)  // from the identity (set above), into the partial
    return run.info->run_host_scan(run.functor.data(), run.superblock, run.partial, false);
  std::vector<uint8_t> value(run.reduction.value_size);
  if (run.scan_prefix)
    std::memcpy(value.data(), run.scan_prefix, value.size());
  else
    run.reduction.init(value.data());
  run.info->run_host_scan(run.functor.data(), run.superblock, value.data(), true);
  if (run.partial) std::memcpy(run.partial, value.data(), value.size());  // where it ends
}

}  // namespace

void HostDevice::launch(worker::KernelRun run, Done done) {
  compute_.execute(
      [run = std::move(run)]() mutable {
        if (run.runs_behind_a_failure()) throw worker::SkippedBehindFailure();
        if (run.partial) run.reduction.init(run.partial);
        if (run.check) run.check->before();
        // A violation first: what the kernel did after it may follow from the scratch element.
        auto throw_violation = [&run] {
          if (run.check)
            if (std::optional<planner::AccessViolation> v = run.check->after())
              throw planner::AccessViolationError(std::move(*v));
        };
        try {
          run_kernel(run);
        } catch (...) {
          throw_violation();
          std::rethrow_exception(worker::kernel_failure());
        }
        if (!run.check) return;
        std::optional<planner::AccessViolation> v = run.check->after();
        if (v && v->kind == planner::AccessViolation::Kind::kNotWritten) {
          // The element may hold what the kernel wrote (165 into a uint8): a second run
          // over the same input, with another marker, tells.
          run.check->before_second_run();
          if (run.partial) run.reduction.init(run.partial);
          try {
            run_kernel(run);
          } catch (...) {
            std::rethrow_exception(worker::kernel_failure());
          }
          v = run.check->after_second_run();
        }
        if (v) throw planner::AccessViolationError(std::move(*v));
      },
      std::move(done));
}

void HostDevice::copy(worker::PlacedBuffer dst, worker::PlacedBuffer src, Rect region, Done done) {
  copy_.execute([dst, src, region] { worker::copy_region(dst.view(), src.view(), region); },
                std::move(done));
}

namespace {

void run_in_place(const std::vector<worker::HostAccess>& accesses,
                  const worker::Device::HostJob& job) {
  std::vector<worker::BoxBuffer> views;
  views.reserve(accesses.size());
  for (const worker::HostAccess& a : accesses) views.push_back(a.buffer.view());
  job(views);
}

}  // namespace

void HostDevice::run_on_host(std::vector<worker::HostAccess> accesses, HostJob job, Done done) {
  copy_.execute(
      [accesses = std::move(accesses), job = std::move(job)] { run_in_place(accesses, job); },
      std::move(done));
}

void HostDevice::run_on_host_behind_launches(std::vector<worker::HostAccess> accesses, HostJob job,
                                             worker::FailureFlags skip_if_failed, Done done) {
  if (!runs_launches_in_order())
    return worker::Device::run_on_host_behind_launches(std::move(accesses), std::move(job),
                                                       std::move(skip_if_failed), std::move(done));
  compute_.execute(
      [accesses = std::move(accesses), job = std::move(job),
       skip_if_failed = std::move(skip_if_failed)] {
        if (worker::any_failed(skip_if_failed)) throw worker::SkippedBehindFailure();
        run_in_place(accesses, job);
      },
      std::move(done));
}

}  // namespace lightning::host
