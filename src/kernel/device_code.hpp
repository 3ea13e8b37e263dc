// What a kernel brings for GPUs: source text that NVRTC turns into an entry point.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lightning_kokkos/internal/core/data_type.hpp"

namespace lightning::kernel {

/// How a kernel's GPU code is written.
enum class DeviceCodeKind : uint8_t {
  kNone,             ///< no source (e.g. a lambda): host devices only
  kFunctorBody,      ///< a LIGHTNING_KERNEL functor: the text of its operator() (and whatever else
                     ///< the macro's last argument holds), pasted into a struct of the same layout
  kTeamFunctorBody,  ///< a LIGHTNING_KERNEL team functor (operator() takes a team member):
                     ///< as kFunctorBody, and the bytes are a TeamClosure (the functor,
                     ///< then the launch's jit::TeamLaunch at `launch_offset`)
  kPorted,           ///< a ported CUDA kernel: a translation unit with one __device__ function
                     ///< taking the virtual block index, then the parameters in signature order
};

/// A kernel's GPU source and how to call it. The kernel's bytes hold every parameter of
/// the signature at `param_offsets` (functors: where the members are; ported kernels: a
/// packed parameter struct).
struct DeviceCode {
  DeviceCodeKind kind = DeviceCodeKind::kNone;
  std::string source;
  std::string function;               ///< kPorted: the __device__ function's name
  std::vector<std::string> includes;  ///< headers the source needs, `#include`d before it
  std::vector<size_t> param_offsets;  ///< byte offset of each signature parameter
  int index_rank = 0;                 ///< kFunctorBody: indices operator() takes (1-3); teams: 1
  /// kFunctorBody: the qualified name of the Kokkos work tag the entry passes first (the
  /// policy's, selecting one of the functor's operators); empty: none.
  std::string work_tag;
  /// kFunctorBody reductions: the functor has its own init (join), which GPU code calls on
  /// the functor (it must then be in the source, i.e. inside LIGHTNING_KERNEL).
  bool functor_init = false;
  bool functor_join = false;
  /// Array reductions (Kokkos' value_type T[], KernelInfo::reduces_array): T, the number type
  /// of the value_count elements each GPU thread reduces.
  DataType array_element = DataType::kUInt8;
  /// The byte offset of the launch's shape in the kernel's bytes: kPorted, its
  /// jit::PortedLaunch; kTeamFunctorBody, its jit::TeamLaunch.
  size_t launch_offset = 0;
};

}  // namespace lightning::kernel
