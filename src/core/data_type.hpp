// Element types of distributed arrays and kernel scalars.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace lightning {

/// The element type of an array or scalar, known to the runtime without templates.
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
  kFloat64
};

/// Size of one element in bytes.
size_t size_of(DataType t);
/// The C++ spelling used in generated code and messages: "float", "int64_t", ...
std::string_view name_of(DataType t);
/// Parses a name as name_of() prints it (also "double", "int", "long"); empty if unknown.
std::optional<DataType> parse_data_type(std::string_view name);
bool is_integral(DataType t);
bool is_floating_point(DataType t);

/// DataType of a C++ arithmetic type, at compile time, by kind, size and signedness (so
/// `long` and `long long` both work): data_type_of<float>() == kFloat32.
template <class T>
constexpr DataType data_type_of() {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                "lightning arrays and kernel scalars hold integers or floating-point numbers");
  if constexpr (std::is_floating_point_v<T>) {
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
