#include "core/data_type.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

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
  for (int i = 0; i <= static_cast<int>(DataType::kDouble3); ++i) {
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

// CUDA's vector types: their size and alignment, and that they are neither integers (which
// an annotation may name) nor floating point.
TEST(DataType, VectorTypesHaveCudasLayout) {
  EXPECT_EQ(name_of(DataType::kFloat2), "float2");
  EXPECT_EQ(size_of(DataType::kFloat2), 8u);
  EXPECT_EQ(alignment_of(DataType::kFloat2), 8u);
  EXPECT_EQ(size_of(DataType::kFloat3), 12u);
  EXPECT_EQ(alignment_of(DataType::kFloat3), 4u);
  EXPECT_EQ(alignment_of(DataType::kFloat4), 16u);
  EXPECT_EQ(size_of(DataType::kDouble2), 16u);
  EXPECT_EQ(alignment_of(DataType::kDouble2), 16u);
  EXPECT_EQ(size_of(DataType::kDouble3), 24u);
  EXPECT_EQ(alignment_of(DataType::kInt4), 16u);
  EXPECT_EQ(alignment_of(DataType::kUInt2), 8u);
  EXPECT_EQ(alignment_of(DataType::kFloat64), 8u);
  for (DataType t : {DataType::kInt2, DataType::kUInt4, DataType::kFloat2, DataType::kDouble3}) {
    EXPECT_TRUE(is_vector(t)) << name_of(t);
    EXPECT_FALSE(is_integral(t)) << name_of(t);
    EXPECT_FALSE(is_floating_point(t)) << name_of(t);
  }
  EXPECT_FALSE(is_vector(DataType::kInt64));
  EXPECT_THROW(with_number_type(DataType::kFloat2, [](auto) { return 0; }), Error);
  EXPECT_EQ(with_number_type(DataType::kUInt16, [](auto v) { return sizeof(v); }), 2u);
}

}  // namespace
}  // namespace lightning
