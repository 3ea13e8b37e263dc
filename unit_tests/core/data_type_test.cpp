#include "core/data_type.hpp"

#include <gtest/gtest.h>

namespace lightning {
namespace {

TEST(DataType, SizesMatchTheCppTypes) {
  static_assert(data_type_of<float>() == DataType::kFloat32);
  static_assert(data_type_of<double>() == DataType::kFloat64);
  static_assert(data_type_of<int64_t>() == DataType::kInt64);
  EXPECT_EQ(size_of(data_type_of<float>()), sizeof(float));
  EXPECT_EQ(size_of(data_type_of<double>()), sizeof(double));
  EXPECT_EQ(size_of(data_type_of<int8_t>()), 1u);
  EXPECT_EQ(size_of(data_type_of<uint16_t>()), 2u);
  EXPECT_EQ(size_of(data_type_of<int32_t>()), 4u);
  EXPECT_EQ(size_of(data_type_of<uint64_t>()), 8u);
}

TEST(DataType, NamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(DataType::kFloat64); ++i) {
    const auto t = static_cast<DataType>(i);
    auto parsed = parse_data_type(name_of(t));
    ASSERT_TRUE(parsed.has_value()) << name_of(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(parse_data_type("int"), DataType::kInt32);
  EXPECT_FALSE(parse_data_type("complex").has_value());
  EXPECT_TRUE(is_floating_point(DataType::kFloat32));
  EXPECT_TRUE(is_integral(DataType::kUInt8));
  EXPECT_FALSE(is_integral(DataType::kFloat64));
}

}  // namespace
}  // namespace lightning
