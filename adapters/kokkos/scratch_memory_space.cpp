#include "lightning_kokkos/scratch_memory_space.hpp"

#include <string>

#include "lightning_kokkos/internal/core/error.hpp"
#include "lightning_kokkos/internal/kernel/team_shape.hpp"

namespace lightning::detail {

void throw_scratch_exhausted(int level, uint64_t asked, uint64_t left, uint64_t capacity) {
  throw Error(ErrorKind::kInvalidArgument,
              kernel::scratch_exhausted_message(level, asked, left, capacity));
}

}  // namespace lightning::detail
