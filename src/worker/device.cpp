#include "worker/device.hpp"

#include "core/error.hpp"

namespace lightning::worker {

std::exception_ptr kernel_failure(const KernelRun& run, DeviceId device, const std::string& what) {
  return std::make_exception_ptr(Error(ErrorKind::kTask, "kernel '" + run.name +
                                                             "' failed on superblock " +
                                                             run.superblock.to_string() + " on " +
                                                             device.to_string() + ": " + what));
}

}  // namespace lightning::worker
