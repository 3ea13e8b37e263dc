#include "worker/device.hpp"

#include <cstring>

#include "core/error.hpp"
#include "planner/fold_identity.hpp"

namespace lightning::worker {

std::exception_ptr kernel_failure(const KernelRun& run, DeviceId device, const std::string& what) {
  return std::make_exception_ptr(Error(ErrorKind::kTask, "kernel '" + run.name +
                                                             "' failed on superblock " +
                                                             run.superblock.to_string() + " on " +
                                                             device.to_string() + ": " + what));
}

void start_partial(const KernelRun& run) {
  if (run.reduce_op == planner::FoldOp::kCustom) {
    run.info->reducer.init(run.partial);
    return;
  }
  const std::vector<uint8_t> identity = planner::fold_identity(run.reduce_op, run.reduce_type);
  std::memcpy(run.partial, identity.data(), identity.size());
}

}  // namespace lightning::worker
