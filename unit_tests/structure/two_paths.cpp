// Each runtime header below is reached by both of its paths; were one read twice, its classes
// would be defined twice and this would not compile.
#include "core/rect.hpp"
#include "distribution/data_layout.hpp"
#include "kernel/kernel_registry.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"
#include "lightning_kokkos/internal/distribution/data_layout.hpp"
#include "lightning_kokkos/internal/kernel/kernel_registry.hpp"
