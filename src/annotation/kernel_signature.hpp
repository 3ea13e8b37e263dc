// What an annotation is checked against: a kernel's parameters and named constants.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightning_kokkos/internal/core/data_type.hpp"

namespace lightning::annotation {

/// One kernel parameter: an array (rank 0-3) or a scalar.
struct KernelParam {
  std::string name;
  bool is_array = false;
  DataType type = DataType::kInt64;
  int rank = 0;  ///< array rank; 0 for scalars and for rank-0 arrays
  /// The array is stored with its axes in reverse order (column-major, e.g. a LayoutLeft
  /// View): the annotation indexes it as the kernel does (`A[i, j]`), regions come out in
  /// storage order (`[j, i]`).
  bool axes_reversed = false;

  friend bool operator==(const KernelParam& a, const KernelParam& b) {
    return a.name == b.name && a.is_array == b.is_array && a.type == b.type && a.rank == b.rank &&
           a.axes_reversed == b.axes_reversed;
  }
};

/// A name with a value fixed when the kernel is registered (e.g. `K` in k-means); it may
/// appear in index expressions like a literal.
struct NamedConstant {
  std::string name;
  int64_t value = 0;

  friend bool operator==(const NamedConstant& a, const NamedConstant& b) {
    return a.name == b.name && a.value == b.value;
  }
};

/// The parameters of a kernel, in call order. Regions and scalar values are indexed by a
/// parameter's position here.
struct KernelSignature {
  std::vector<KernelParam> params;
  std::vector<NamedConstant> constants;
  /// The arrays are shared by several operators (a functor's work tags): an array no rule
  /// mentions is one this operator does not use, not a slip worth a warning.
  bool arrays_shared = false;

  KernelSignature& add_array(std::string name, DataType type, int rank,
                             bool axes_reversed = false) {
    params.push_back({std::move(name), true, type, rank, axes_reversed});
    return *this;
  }
  KernelSignature& add_scalar(std::string name, DataType type) {
    params.push_back({std::move(name), false, type, 0});
    return *this;
  }
  KernelSignature& add_constant(std::string name, int64_t value) {
    constants.push_back({std::move(name), value});
    return *this;
  }

  /// Position of the parameter called `name`, or -1.
  int find(std::string_view name) const {
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].name == name) return static_cast<int>(i);
    return -1;
  }

  friend bool operator==(const KernelSignature& a, const KernelSignature& b) {
    return a.params == b.params && a.constants == b.constants && a.arrays_shared == b.arrays_shared;
  }
  friend bool operator!=(const KernelSignature& a, const KernelSignature& b) { return !(a == b); }
};

}  // namespace lightning::annotation
