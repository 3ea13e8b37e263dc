// lightning_kokkos: one Kokkos kernel launch across every GPU of a cluster. The umbrella header.
#pragma once

#include "lightning_kokkos/version.hpp"
