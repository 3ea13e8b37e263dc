// CUDA's vector types as elements of lightning::View and ported kernels' arrays:
// `lightning::View<lightning::float2*>` holds the bytes a `float2*` holds in CUDA, and a
// ported kernel's `float2*` parameter becomes `lightning::Vector<float2>`. They are array
// elements only: reductions and annotations work on numbers.
#pragma once

#include "lightning_kokkos/device/vector_types.hpp"
#include "lightning_kokkos/internal/core/data_type.hpp"

namespace lightning {

#define LIGHTNING_VECTOR_DATA_TYPE(T, KIND)          \
  template <>                                        \
  struct VectorDataType<T> {                         \
    static constexpr bool known = true;              \
    static constexpr DataType type = DataType::KIND; \
  };
LIGHTNING_VECTOR_DATA_TYPE(int2, kInt2)
LIGHTNING_VECTOR_DATA_TYPE(int4, kInt4)
LIGHTNING_VECTOR_DATA_TYPE(uint2, kUInt2)
LIGHTNING_VECTOR_DATA_TYPE(uint4, kUInt4)
LIGHTNING_VECTOR_DATA_TYPE(float2, kFloat2)
LIGHTNING_VECTOR_DATA_TYPE(float3, kFloat3)
LIGHTNING_VECTOR_DATA_TYPE(float4, kFloat4)
LIGHTNING_VECTOR_DATA_TYPE(double2, kDouble2)
LIGHTNING_VECTOR_DATA_TYPE(double3, kDouble3)
#undef LIGHTNING_VECTOR_DATA_TYPE

}  // namespace lightning
