#include "worker/device.hpp"

#include <algorithm>
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

bool KernelRun::runs_behind_a_failure() const {
  return std::any_of(skip_if_failed.begin(), skip_if_failed.end(),
                     [](const auto& failed) { return failed->load(std::memory_order_acquire); });
}

std::exception_ptr kernel_failure() {
  try {
    throw;
  } catch (const Error&) {
    return std::current_exception();
  } catch (const std::exception& e) {
    return std::make_exception_ptr(Error(ErrorKind::kTask, e.what()));
  } catch (...) {
    return std::make_exception_ptr(Error(ErrorKind::kTask, "unknown exception"));
  }
}

}  // namespace lightning::worker
