// What lightning_kokkos this is, and what it was built with.
#pragma once

#include <string>

#include "lightning_kokkos/build_config.hpp"

namespace lightning {

/// "0.1.0".
const char* version();

/// Several lines: lightning_kokkos, Kokkos, MPI library and NVRTC versions, enabled backends.
std::string build_info();

}  // namespace lightning
