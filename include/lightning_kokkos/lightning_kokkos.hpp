// lightning_kokkos: one Kokkos kernel launch across every GPU of a cluster. The umbrella header.
#pragma once

#include "lightning_kokkos/cuda_kernel.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"
#include "lightning_kokkos/version.hpp"
