#include "worker/device.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "core/error.hpp"

namespace lightning::worker {

void run_timed(Engine& engine, Engine::Job job, Device::Done done) {
  // One shared block for the job, its completion and its span: the two functions the engine
  // gets then hold one pointer each, which std::function keeps without allocating.
  struct Timed {
    Engine::Job job;
    Device::Done done;
    OpSpan span;
  };
  auto timed = std::make_shared<Timed>(Timed{std::move(job), std::move(done), {}});
  engine.execute(
      [timed] {
        timed->span.start = std::chrono::steady_clock::now();
        timed->job();
      },
      [timed](std::exception_ptr e) {
        timed->span.end = std::chrono::steady_clock::now();
        timed->done(std::move(e), timed->span);
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
