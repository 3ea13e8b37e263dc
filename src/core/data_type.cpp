#include "core/data_type.hpp"

namespace lightning {

size_t size_of(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kUInt8:
      return 1;
    case DataType::kInt16:
    case DataType::kUInt16:
      return 2;
    case DataType::kInt32:
    case DataType::kUInt32:
    case DataType::kFloat32:
      return 4;
    case DataType::kInt64:
    case DataType::kUInt64:
    case DataType::kFloat64:
      return 8;
  }
  return 0;
}

std::string_view name_of(DataType t) {
  switch (t) {
    case DataType::kInt8:
      return "int8_t";
    case DataType::kInt16:
      return "int16_t";
    case DataType::kInt32:
      return "int32_t";
    case DataType::kInt64:
      return "int64_t";
    case DataType::kUInt8:
      return "uint8_t";
    case DataType::kUInt16:
      return "uint16_t";
    case DataType::kUInt32:
      return "uint32_t";
    case DataType::kUInt64:
      return "uint64_t";
    case DataType::kFloat32:
      return "float";
    case DataType::kFloat64:
      return "double";
  }
  return "?";
}

std::optional<DataType> parse_data_type(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(DataType::kFloat64); ++i) {
    auto t = static_cast<DataType>(i);
    if (name == name_of(t)) return t;
  }
  if (name == "int") return DataType::kInt32;
  if (name == "long") return DataType::kInt64;
  if (name == "unsigned") return DataType::kUInt32;
  return std::nullopt;
}

bool is_integral(DataType t) {
  return !is_floating_point(t);
}
bool is_floating_point(DataType t) {
  return t == DataType::kFloat32 || t == DataType::kFloat64;
}

}  // namespace lightning
