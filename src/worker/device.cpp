#include "worker/device.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "core/error.hpp"

namespace lightning::worker {

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
