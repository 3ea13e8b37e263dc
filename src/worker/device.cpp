#include "worker/device.hpp"

#include <memory>
#include <utility>

#include "core/error.hpp"

namespace lightning::worker {

void run_timed(Engine& engine, Engine::Job job, Device::Done done) {
  auto span = std::make_shared<OpSpan>();
  engine.execute(
      [job = std::move(job), span] {
        span->start = std::chrono::steady_clock::now();
        job();
      },
      [done = std::move(done), span](std::exception_ptr e) {
        span->end = std::chrono::steady_clock::now();
        done(std::move(e), *span);
      });
}

std::exception_ptr kernel_failure(const KernelRun& run, DeviceId device, const std::string& what) {
  return std::make_exception_ptr(Error(ErrorKind::kTask, "kernel '" + run.name +
                                                             "' failed on superblock " +
                                                             run.superblock.to_string() + " on " +
                                                             device.to_string() + ": " + what));
}

}  // namespace lightning::worker
