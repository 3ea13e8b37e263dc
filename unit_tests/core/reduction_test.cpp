#include "core/reduction.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.hpp"

namespace lightning {
namespace {

template <class T>
T identity_of(ReduceOp op) {
  const std::vector<uint8_t> bytes = Reduction::builtin(op, data_type_of<T>()).identity();
  EXPECT_EQ(bytes.size(), sizeof(T));
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

template <class T>
T joined(ReduceOp op, T a, T b) {
  Reduction::builtin(op, data_type_of<T>()).join(&a, &b);
  return a;
}

TEST(Reduction, BuiltInOperatorsRefuseVectorTypes) {
  try {
    Reduction::builtin(ReduceOp::kSum, DataType::kFloat2);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("combines numbers, not float2 values"), std::string::npos)
        << e.what();
  }
}

TEST(Reduction, IdentitiesAreNeutral) {
  EXPECT_EQ(identity_of<int32_t>(ReduceOp::kSum), 0);
  EXPECT_EQ(identity_of<int32_t>(ReduceOp::kProd), 1);
  EXPECT_EQ(identity_of<int32_t>(ReduceOp::kMin), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(identity_of<uint8_t>(ReduceOp::kMax), 0);
  EXPECT_EQ(identity_of<double>(ReduceOp::kMin), std::numeric_limits<double>::infinity());
  EXPECT_EQ(identity_of<float>(ReduceOp::kMax), -std::numeric_limits<float>::infinity());
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax})
    for (int64_t x : {-5, 0, 3, 1000})
      EXPECT_EQ(joined<int64_t>(op, identity_of<int64_t>(op), x), x) << name_of(op);
}

TEST(Reduction, JoinsFollowTheDocumentedSemantics) {
  EXPECT_EQ(joined<int8_t>(ReduceOp::kSum, 127, 1), -128);  // wraps, no UB
  EXPECT_EQ(joined<uint32_t>(ReduceOp::kProd, 1u << 31, 2u), 0u);
  EXPECT_EQ(joined<int16_t>(ReduceOp::kMin, -3, 2), -3);
  EXPECT_EQ(joined<double>(ReduceOp::kMax, 1.5, -2.0), 1.5);
  EXPECT_TRUE(std::isnan(joined<float>(ReduceOp::kMin, 1.0f, std::nanf(""))));
  EXPECT_TRUE(std::signbit(joined<double>(ReduceOp::kMin, 0.0, -0.0)));
  EXPECT_FALSE(std::signbit(joined<double>(ReduceOp::kMax, -0.0, 0.0)));
  double a[3] = {1, 2, 3};
  const double b[3] = {10, 20, 30};
  Reduction::builtin(ReduceOp::kSum, DataType::kFloat64).join_n(a, b, 3);
  EXPECT_EQ(a[2], 33.0);
}

TEST(Reduction, CustomOnesUseTheirFunctionsAndHaveNoBuiltInIdentity) {
  static auto init = [](const void*, void* v) { std::memset(v, 0xab, 3); };
  static auto join = [](const void*, void* d, const void* s) {
    static_cast<uint8_t*>(d)[0] ^= static_cast<const uint8_t*>(s)[0];
  };
  const Reduction r = Reduction::custom(3, +init, +join);
  EXPECT_TRUE(r.is_custom());
  uint8_t v[3] = {};
  r.init(v);
  EXPECT_EQ(v[2], 0xab);
  const uint8_t x[3] = {0xff, 0, 0};
  r.join(v, x);
  EXPECT_EQ(v[0], 0x54);
  EXPECT_THROW(r.identity(), Error);
  EXPECT_THROW(Reduction::custom(3).join(v, x), Error);  // not yet resolved in this process
  EXPECT_THROW(Reduction::builtin(ReduceOp::kCustom, DataType::kInt8), Error);
}

TEST(Reduction, KeysAndEqualityIgnoreTheFunctions) {
  EXPECT_EQ(Reduction::builtin(ReduceOp::kMax, DataType::kFloat32).key(), "max/float");
  EXPECT_EQ(Reduction::custom(24).key(), "reducer/24");
  static auto init = [](const void*, void*) {};
  EXPECT_EQ(Reduction::custom(24), Reduction::custom(24, +init));
  EXPECT_NE(Reduction::builtin(ReduceOp::kSum, DataType::kInt64),
            Reduction::builtin(ReduceOp::kSum, DataType::kUInt64));
}

}  // namespace
}  // namespace lightning
