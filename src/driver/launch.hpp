// One kernel launch as the application asks for it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/ids.hpp"
#include "core/point.hpp"
#include "core/rect.hpp"
#include "core/reduction.hpp"
#include "distribution/work_distribution.hpp"
#include "kernel/kernel_description.hpp"

namespace lightning::driver {

/// One kernel launch as the application describes it (the Kokkos binding makes these).
struct Launch {
  KernelId kernel;                ///< a registered kernel (kernel::KernelRegistry)
  std::string label;              ///< the program's name of the launch (may be empty)
  const void* functor = nullptr;  ///< its bytes (KernelInfo::functor_size of them)
  std::vector<ArrayId> arrays;    ///< per signature parameter; invalid for scalars
  Rect domain;                    ///< thread indices
  Point block_size;  ///< default: 256 along the last axis where the annotation uses blocks, else 1
  /// A team launch (Kokkos TeamPolicy): `domain` is league × team threads in blocks of the
  /// team size; its annotation binds `block` and `local`, never `global`.
  bool teams = false;
  std::optional<WorkDistribution> work;  ///< default: like the first written array
  /// For reduction kernels: where the value goes; for scan kernels: where the scan's total
  /// goes, or null when the program does not ask for it.
  void* result = nullptr;
  /// For reduction kernels, how partial values combine: a built-in operator on the kernel's
  /// value type; empty: the kernel's own reduction (KernelInfo::reduction).
  std::optional<Reduction> reduction;
  /// The kernel's annotation, signature and slots for this launch; null: the registered ones.
  const kernel::KernelDescription* description = nullptr;
};

}  // namespace lightning::driver
