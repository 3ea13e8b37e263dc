#include "lightning_kokkos/scratch_memory_space.hpp"

#include <string>

#include "lightning_kokkos/internal/core/error.hpp"

namespace lightning::detail {

void throw_scratch_exhausted(int level, uint64_t asked, uint64_t left, uint64_t capacity) {
  throw Error(ErrorKind::kInvalidArgument,
              "a scratch View needs " + std::to_string(asked) + " bytes of level-" +
                  std::to_string(level) + " scratch, but " + std::to_string(left) + " of the " +
                  std::to_string(capacity) +
                  " bytes per team remain: give the launch more with "
                  "TeamPolicy::set_scratch_size(" +
                  std::to_string(level) + ", Kokkos::PerTeam(bytes)) or PerThread");
}

}  // namespace lightning::detail
