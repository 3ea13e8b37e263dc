#include "worker/emulated_device.hpp"

#include "core/error.hpp"

namespace lightning::worker {

EmulatedDevice::EmulatedDevice(DeviceId id, int compute_threads)
    : device_(id, compute_threads), compute_threads_(compute_threads) {}

std::string EmulatedDevice::description() const {
  return "emulated host device " + device_.id().to_string() + " (" +
         std::to_string(compute_threads_) + " compute thread(s))";
}

void run_timed(host::Executor& executor, host::Executor::Job job, Device::Done done) {
  auto span = std::make_shared<OpSpan>();
  executor.execute(
      [job = std::move(job), span] {
        span->start = std::chrono::steady_clock::now();
        job();
      },
      [done = std::move(done), span](std::exception_ptr e) {
        span->end = std::chrono::steady_clock::now();
        done(std::move(e), *span);
      });
}

void EmulatedDevice::launch(KernelRun run, Done done) {
  auto r = std::make_shared<KernelRun>(std::move(run));
  run_timed(
      device_.compute(),
      [r] {
        if (r->partial) start_partial(*r, r->partial);
        try {
          r->info->run_host(r->functor.data(), r->superblock, r->partial);
        } catch (...) {
          std::rethrow_exception(kernel_failure());
        }
      },
      std::move(done));
}

void EmulatedDevice::copy(PlacedBuffer dst, PlacedBuffer src, Rect region, Done done) {
  run_timed(
      device_.copy_engine(),
      [dst, src, region] { host::copy_region(dst.view(), src.view(), region); }, std::move(done));
}

void EmulatedDevice::run_on_host(std::vector<HostAccess> accesses, HostJob job, Done done) {
  run_timed(
      device_.copy_engine(),
      [accesses = std::move(accesses), job = std::move(job)] {
        std::vector<host::BoxBuffer> views;
        views.reserve(accesses.size());
        for (const HostAccess& a : accesses) views.push_back(a.buffer.view());
        job(views);
      },
      std::move(done));
}

std::unique_ptr<Device> EmulatedPlatform::open(DeviceId id, size_t /*index*/) {
  return std::make_unique<EmulatedDevice>(id, compute_threads_);
}

}  // namespace lightning::worker
