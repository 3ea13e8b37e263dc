#include "worker/device.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "core/error.hpp"

namespace lightning::worker {

bool any_failed(const FailureFlags& flags) {
  return std::any_of(flags.begin(), flags.end(),
                     [](const auto& failed) { return failed->load(std::memory_order_acquire); });
}

void Device::run_on_host_behind_launches(std::vector<HostAccess>, HostJob, FailureFlags,
                                         Done done) {
  done(std::make_exception_ptr(
           Error(ErrorKind::kInternal, id().to_string() + " does not run its launches in order")),
       {});
}

void Device::fill(PlacedBuffer dst, Rect region, std::vector<uint8_t> value, Done done) {
  std::vector<HostAccess> accesses{{std::move(dst), region, /*read=*/false, /*write=*/true}};
  run_on_host(
      std::move(accesses),
      [region, value = std::move(value)](const std::vector<BoxBuffer>& b) {
        fill_region(b[0], region, value.data());
      },
      std::move(done));
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
