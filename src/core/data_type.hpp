// Element types of distributed arrays and kernel scalars.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

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

/// DataType of a C++ arithmetic type, at compile time: data_type_of<float>() == kFloat32.
template <class T>
constexpr DataType data_type_of();

namespace detail {
template <class T>
struct DataTypeOf;
template <>
struct DataTypeOf<int8_t> {
  static constexpr DataType v = DataType::kInt8;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr DataType v = DataType::kInt16;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType v = DataType::kInt32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType v = DataType::kInt64;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr DataType v = DataType::kUInt8;
};
template <>
struct DataTypeOf<uint16_t> {
  static constexpr DataType v = DataType::kUInt16;
};
template <>
struct DataTypeOf<uint32_t> {
  static constexpr DataType v = DataType::kUInt32;
};
template <>
struct DataTypeOf<uint64_t> {
  static constexpr DataType v = DataType::kUInt64;
};
template <>
struct DataTypeOf<float> {
  static constexpr DataType v = DataType::kFloat32;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType v = DataType::kFloat64;
};
}  // namespace detail

template <class T>
constexpr DataType data_type_of() {
  return detail::DataTypeOf<T>::v;
}

}  // namespace lightning
