#include "core/data_type.hpp"

#include <iterator>
#include <string>

#include "core/error.hpp"

namespace lightning {

namespace {

struct TypeFacts {
  std::string_view name;
  size_t size;
  size_t alignment;
  enum Kind { kInteger, kFloating, kVector } kind;
};

// In the order of DataType.
constexpr TypeFacts kFacts[] = {
    {"int8_t", 1, 1, TypeFacts::kInteger},   {"int16_t", 2, 2, TypeFacts::kInteger},
    {"int32_t", 4, 4, TypeFacts::kInteger},  {"int64_t", 8, 8, TypeFacts::kInteger},
    {"uint8_t", 1, 1, TypeFacts::kInteger},  {"uint16_t", 2, 2, TypeFacts::kInteger},
    {"uint32_t", 4, 4, TypeFacts::kInteger}, {"uint64_t", 8, 8, TypeFacts::kInteger},
    {"float", 4, 4, TypeFacts::kFloating},   {"double", 8, 8, TypeFacts::kFloating},
    {"int2", 8, 8, TypeFacts::kVector},      {"int4", 16, 16, TypeFacts::kVector},
    {"uint2", 8, 8, TypeFacts::kVector},     {"uint4", 16, 16, TypeFacts::kVector},
    {"float2", 8, 8, TypeFacts::kVector},    {"float3", 12, 4, TypeFacts::kVector},
    {"float4", 16, 16, TypeFacts::kVector},  {"double2", 16, 16, TypeFacts::kVector},
    {"double3", 24, 8, TypeFacts::kVector},
};
static_assert(std::size(kFacts) == static_cast<size_t>(DataType::kDouble3) + 1,
              "one entry per DataType");

const TypeFacts* facts(DataType t) {
  const auto i = static_cast<size_t>(t);
  return i < std::size(kFacts) ? &kFacts[i] : nullptr;
}

}  // namespace

size_t size_of(DataType t) {
  const TypeFacts* f = facts(t);
  return f ? f->size : 0;
}

size_t alignment_of(DataType t) {
  const TypeFacts* f = facts(t);
  return f ? f->alignment : 0;
}

std::string_view name_of(DataType t) {
  const TypeFacts* f = facts(t);
  return f ? f->name : "?";
}

std::optional<DataType> parse_data_type(std::string_view name) {
  for (size_t i = 0; i < std::size(kFacts); ++i)
    if (name == kFacts[i].name) return static_cast<DataType>(i);
  if (name == "int") return DataType::kInt32;
  if (name == "long") return DataType::kInt64;
  if (name == "unsigned") return DataType::kUInt32;
  return std::nullopt;
}

bool is_integral(DataType t) {
  const TypeFacts* f = facts(t);
  return f && f->kind == TypeFacts::kInteger;
}
bool is_floating_point(DataType t) {
  const TypeFacts* f = facts(t);
  return f && f->kind == TypeFacts::kFloating;
}
void throw_not_a_number(DataType t) {
  throw Error(ErrorKind::kInternal, "a number type was expected, not " + std::string(name_of(t)));
}

bool is_vector(DataType t) {
  const TypeFacts* f = facts(t);
  return f && f->kind == TypeFacts::kVector;
}

}  // namespace lightning
