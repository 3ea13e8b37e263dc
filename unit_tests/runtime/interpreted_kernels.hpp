// The planner oracle's interpreted test kernels (unit_tests/planner/support/test_kernels.hpp)
// as real runtime kernels: one KernelInfo per test kernel variant, whose functor carries the
// test kernel and raw array handles, and whose host entry point runs the interpreter's
// per-thread body over the chunks the runtime bound.
#pragma once

#include <cstdint>
#include <vector>

#include "../planner/support/test_kernels.hpp"  // the interpreter, not runtime/test_kernels.hpp
#include "core/ids.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::runtime_test {

/// The bytes of every interpreted kernel. The runtime patches `arrays[p]` (16 + 16 * rank of
/// its 64 bytes) for array parameter p, and reads `scalars[p]` for int64 scalar parameter p.
struct InterpretedFunctor {
  static constexpr int kMaxArrays = 3;
  static constexpr int kMaxParams = 4;
  uint64_t kernel = 0;  // the runtime kernel's id: valid in every process of the binary
  RawArrayHandle arrays[kMaxArrays] = {};
  int64_t scalars[kMaxParams] = {};
};

/// The runtime kernel of `kernel` (named "random_test::<test kernel name>"): registers it on
/// first use. Registration writes the process's kernel::KernelRegistry, so call this only while
/// no lightning::driver::Driver exists (for instance before creating a case's driver).
KernelId interpreted_kernel(const planner::testing::TestKernel& kernel);

/// Registers the runtime kernel of every test kernel variant the random case generator can
/// launch: worker ranks of an MPI run do this at startup, since their kernels must exist
/// before rank 0 launches them. Call before any Driver exists.
void register_every_interpreted_kernel();

/// The functor of a launch of `kernel` with `scalars` (per signature parameter).
InterpretedFunctor interpreted_functor(const planner::testing::TestKernel& kernel,
                                       const std::vector<int64_t>& scalars);

}  // namespace lightning::runtime_test
