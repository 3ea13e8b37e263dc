// Element types of distributed arrays and kernel scalars.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace lightning {

/// The element type of an array or scalar, known to the runtime without templates: a number,
/// or one of CUDA's vector types (`float2`, ...: lanes of a number, with CUDA's size and
/// alignment), which arrays may hold but reductions and annotations cannot use.
enum class DataType : uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kInt2,
  kInt4,
  kUInt2,
  kUInt4,
  kFloat2,
  kFloat3,
  kFloat4,
  kDouble2,
  kDouble3,
};

/// Size of one element in bytes.
size_t size_of(DataType t);
/// Alignment of one element in bytes (CUDA's for the vector types: float2 8, float4 16).
size_t alignment_of(DataType t);
/// The C++ spelling used in generated code and messages: "float", "int64_t", "float2", ...
std::string_view name_of(DataType t);
/// Parses a name as name_of() prints it (also "double", "int", "long"); empty if unknown.
std::optional<DataType> parse_data_type(std::string_view name);
bool is_integral(DataType t);
bool is_floating_point(DataType t);
/// A vector type (float2, int4, ...): lanes of a number.
bool is_vector(DataType t);

/// Throws Error(kInternal): `t` is not a number type.
[[noreturn]] void throw_not_a_number(DataType t);

/// Calls `f(T{})` with the C++ number type T of `t` (int8_t ... double), returning what it
/// returns; `t` must be a number (not a vector type: Error(kInternal)).
template <class F>
decltype(auto) with_number_type(DataType t, F&& f) {
  switch (t) {
    case DataType::kInt8:
      return f(int8_t{});
    case DataType::kInt16:
      return f(int16_t{});
    case DataType::kInt32:
      return f(int32_t{});
    case DataType::kInt64:
      return f(int64_t{});
    case DataType::kUInt8:
      return f(uint8_t{});
    case DataType::kUInt16:
      return f(uint16_t{});
    case DataType::kUInt32:
      return f(uint32_t{});
    case DataType::kUInt64:
      return f(uint64_t{});
    case DataType::kFloat32:
      return f(float{});
    case DataType::kFloat64:
      return f(double{});
    default:
      break;
  }
  throw_not_a_number(t);
}

/// The DataType of a vector type: specialised for lightning's (vector_types.hpp).
template <class T>
struct VectorDataType {
  static constexpr bool known = false;
};

/// DataType of a C++ arithmetic type, at compile time, by kind, size and signedness (so
/// `long` and `long long` both work): data_type_of<float>() == kFloat32; and of a vector
/// type: data_type_of<lightning::float2>() == kFloat2.
template <class T>
constexpr DataType data_type_of() {
  static_assert((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || VectorDataType<T>::known,
                "lightning arrays and kernel scalars hold integers or floating-point numbers "
                "(arrays also CUDA's vector types: lightning::float2, ...)");
  if constexpr (VectorDataType<T>::known) {
    return VectorDataType<T>::type;
  } else if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double");
    return sizeof(T) == 4 ? DataType::kFloat32 : DataType::kFloat64;
  } else if constexpr (std::is_signed_v<T>) {
    return sizeof(T) == 1   ? DataType::kInt8
           : sizeof(T) == 2 ? DataType::kInt16
           : sizeof(T) == 4 ? DataType::kInt32
                            : DataType::kInt64;
  } else {
    return sizeof(T) == 1   ? DataType::kUInt8
           : sizeof(T) == 2 ? DataType::kUInt16
           : sizeof(T) == 4 ? DataType::kUInt32
                            : DataType::kUInt64;
  }
}

}  // namespace lightning
