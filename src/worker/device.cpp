#include "worker/device.hpp"

#include <cstring>

#include "backend/host/region_ops.hpp"
#include "core/error.hpp"
#include "planner/fold_identity.hpp"

namespace lightning::worker {

void start_partial(const KernelRun& run, void* value) {
  if (run.reduce_op == planner::FoldOp::kCustom) {
    run.info->reducer.init(value);
    return;
  }
  const std::vector<uint8_t> identity = planner::fold_identity(run.reduce_op, run.reduce_type);
  std::memcpy(value, identity.data(), identity.size());
}

void join_partial(const KernelRun& run, void* dst, const void* src) {
  if (run.reduce_op == planner::FoldOp::kCustom) {
    run.info->reducer.join(dst, src);
    return;
  }
  const Rect scalar(Point{}, Point{});
  const size_t size = size_of(run.reduce_type);
  host::fold_region({dst, scalar, size}, {const_cast<void*>(src), scalar, size}, scalar,
                    run.reduce_op, run.reduce_type);
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
