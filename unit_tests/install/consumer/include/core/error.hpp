// The user's own core/error.hpp, on the consumer's include path: a runtime header of
// lightning_kokkos has the same name, and neither may hide the other (the package's are reached
// as lightning_kokkos/internal/...).
#pragma once

namespace consumer {
inline constexpr int kOwnErrorHeader = 1;
}  // namespace consumer
