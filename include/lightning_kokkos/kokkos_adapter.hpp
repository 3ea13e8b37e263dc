// Everything of the Kokkos binding: the runtime guard, lightning::Distributed, lightning::View
// and its ranges (with Kokkos::deep_copy, subview and the mirrors), LIGHTNING_KERNEL,
// LIGHTNING_LAMBDA and the dispatch.
#pragma once

#include "lightning_kokkos/deep_copy.hpp"
#include "lightning_kokkos/distributed_copy.hpp"
#include "lightning_kokkos/execution_space.hpp"
#include "lightning_kokkos/internal/distribution/work_distribution.hpp"
#include "lightning_kokkos/kernel.hpp"
#include "lightning_kokkos/kernel_lambda.hpp"
#include "lightning_kokkos/parallel.hpp"
#include "lightning_kokkos/portability.hpp"
#include "lightning_kokkos/runtime.hpp"
#include "lightning_kokkos/subview.hpp"
#include "lightning_kokkos/view.hpp"
