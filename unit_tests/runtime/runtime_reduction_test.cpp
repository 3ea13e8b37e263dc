// Reductions into arrays (reduce(+)) and to one value (parallel_reduce).
#include <algorithm>
#include <numeric>
#include <vector>

#include <gmock/gmock.h>

#include "core/error.hpp"
#include "runtime_fixture.hpp"
#include "test_kernels.hpp"

namespace lightning::runtime_test {
namespace {

class RuntimeReduction : public RuntimeTest {};

TEST_P(RuntimeReduction, RowSumsAddToTheDestinationAndReachEveryReplica) {
  const int64_t rows = 20, cols = 24;
  std::vector<double> a(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) a[i] = double(i % 9);
  const ArrayId A =
      driver->create_array("A", DataType::kFloat64, Point{rows, cols}, dist::columns(6));
  const ArrayId s = driver->create_array("s", DataType::kFloat64, Point{rows},
                                         dist::replicated(ReplicaScope::kPerDevice));
  driver->write(A, Rect(Point{0, 0}, Point{rows, cols}), a.data());
  const double one = 1.0;
  driver->fill(s, Rect(Point{0}, Point{rows}), &one);
  RowSum k{};
  driver::Launch l;
  l.kernel = kRowSum;
  l.functor = &k;
  l.arrays = {A, s};
  l.domain = Rect(Point{0, 0}, Point{rows, cols});
  l.block_size = Point{4, 2};
  l.work = work::block(1, 6);  // column blocks: every superblock adds to every row
  driver->launch(l);
  std::vector<double> got(rows);
  driver->read(s, Rect(Point{0}, Point{rows}), got.data());
  for (int64_t i = 0; i < rows; ++i) {
    double expected = 1.0;  // the destination's contents take part
    for (int64_t j = 0; j < cols; ++j) expected += a[i * cols + j];
    EXPECT_EQ(got[i], expected) << "row " << i;
  }
  // Every replica got the sum: launch a kernel that reads s on every device.
  const ArrayId t = driver->create_array("t", DataType::kFloat64, Point{rows},
                                         dist::replicated(ReplicaScope::kPerDevice));
  const double zero = 0.0;
  driver->fill(t, Rect(Point{0}, Point{rows}), &zero);
  Dot d{};
  driver::Launch dot;
  dot.kernel = kDot;
  dot.functor = &d;
  dot.arrays = {s, s};
  dot.domain = Rect(Point{0}, Point{rows});
  dot.block_size = Point{1};
  dot.work = work::cyclic(1);  // each element on another device, read from its replica
  double value = -1;
  dot.result = &value;
  driver->launch(dot);
  EXPECT_EQ(value, std::inner_product(got.begin(), got.end(), got.begin(), 0.0));
  for (ArrayId x : {A, s, t}) driver->delete_array(x);
  driver->fence();
  expect_no_memory_held();
}

TEST_P(RuntimeReduction, ADotProductReducesToOneValue) {
  const int64_t n = 3000;
  std::vector<double> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = double(i % 11);
    y[i] = double((i * 3) % 5) - 2;
  }
  const ArrayId X = driver->create_array("x", DataType::kFloat64, Point{n}, dist::block(200));
  const ArrayId Y = driver->create_array("y", DataType::kFloat64, Point{n}, dist::block(120));
  driver->write(X, Rect(Point{0}, Point{n}), x.data());
  driver->write(Y, Rect(Point{0}, Point{n}), y.data());
  Dot d{};
  driver::Launch l;
  l.kernel = kDot;
  l.functor = &d;
  l.arrays = {X, Y};
  l.domain = Rect(Point{0}, Point{n});
  l.block_size = Point{50};
  double value = 0;
  l.result = &value;
  for (int rep = 0; rep < 3; ++rep) {  // the second and third come from the plan cache
    driver->launch(l);
    EXPECT_EQ(value, std::inner_product(x.begin(), x.end(), y.begin(), 0.0));
  }
  for (ArrayId a : {X, Y}) driver->delete_array(a);
  driver->fence();
  expect_no_memory_held();
}

TEST_P(RuntimeReduction, BuiltInOperatorsStartFromTheirIdentityAndFoldTypedValues) {
  const int64_t n = 2500;
  std::vector<int32_t> a(n);
  for (int64_t i = 0; i < n; ++i) a[i] = int32_t((i * 7919) % 1000) - 700;  // all < 300
  const ArrayId A = driver->create_array("a", DataType::kInt32, Point{n}, dist::block(130));
  driver->write(A, Rect(Point{0}, Point{n}), a.data());
  ScaledMax k{};
  k.scale = -1;  // every value is scaled: the largest is minus the smallest
  driver::Launch l;
  l.kernel = kScaledMax;
  l.functor = &k;
  l.arrays = {A, ArrayId()};
  l.domain = Rect(Point{0}, Point{n});
  l.block_size = Point{64};
  l.reduction = Reduction::builtin(ReduceOp::kMax, DataType::kInt32);
  int32_t value = 12345;  // overwritten by the identity, then folded
  l.result = &value;
  driver->launch(l);
  EXPECT_EQ(value, -*std::min_element(a.begin(), a.end()));

  // A launch whose operator's type is not the kernel's value type is refused.
  l.reduction = Reduction::builtin(ReduceOp::kMax, DataType::kFloat64);
  try {
    driver->launch(l);
    FAIL() << "a float64 max over an int32 value was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("reduces int32_t values (4 bytes)"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("folds double"));
  }
  driver->delete_array(A);
  driver->fence();
  expect_no_memory_held();
}

LIGHTNING_RUNTIME_SHAPES(RuntimeReduction);

}  // namespace
}  // namespace lightning::runtime_test
