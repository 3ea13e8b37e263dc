// What a kernel touches and where its parameters sit in its bytes: the part of a kernel the
// planner and the executors read, whether registered once or given per launch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "lightning_kokkos/internal/annotation/kernel_signature.hpp"
#include "lightning_kokkos/internal/core/data_type.hpp"

namespace lightning::kernel {

/// Where the ArrayHandle of one array parameter sits in the kernel's bytes
/// (array_handle_size(rank) bytes from `byte_offset`).
struct ArraySlot {
  int param = 0;           ///< position in the signature
  size_t byte_offset = 0;  ///< of its ArrayHandle inside the functor
  int rank = 1;
};

/// Where an integer scalar parameter sits in the kernel's bytes (annotations may name it).
struct ScalarSlot {
  int param = 0;
  size_t byte_offset = 0;
  DataType type = DataType::kInt64;
};

/// A kernel's annotation, parameters and the places of its parameters in its bytes. A
/// LIGHTNING_KERNEL functor has one, registered with it; an annotated lambda's is found at
/// each launch (its captures) and travels with the launch.
struct KernelDescription {
  std::string annotation;
  annotation::KernelSignature signature;
  std::vector<ArraySlot> arrays;
  std::vector<ScalarSlot> scalars;
};

}  // namespace lightning::kernel
