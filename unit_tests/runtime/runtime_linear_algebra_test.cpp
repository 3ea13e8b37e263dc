// A matrix product: every superblock reads a row block of A and a column block of B, which
// live elsewhere for most tiles.
#include <vector>

#include "runtime_fixture.hpp"
#include "test_kernels.hpp"

namespace lightning::runtime_test {
namespace {

class RuntimeMatmul : public RuntimeTest {};

TEST_P(RuntimeMatmul, MatchesTheSequentialProduct) {
  const int64_t n = 24;
  std::vector<double> a(n * n), b(n * n), expected(n * n, 0.0);
  for (int64_t i = 0; i < n * n; ++i) {
    a[i] = double(i % 5) - 2;
    b[i] = double(i % 7) - 3;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < n; ++k) expected[i * n + j] += a[i * n + k] * b[k * n + j];

  const Rect all(Point{0, 0}, Point{n, n});
  const ArrayId A = driver->create_array("A", DataType::kFloat64, Point{n, n}, dist::rows(8));
  const ArrayId B = driver->create_array("B", DataType::kFloat64, Point{n, n}, dist::columns(8));
  const ArrayId C =
      driver->create_array("C", DataType::kFloat64, Point{n, n}, dist::tiles(Point{8, 8}));
  driver->write(A, all, a.data());
  driver->write(B, all, b.data());
  Matmul k{};
  k.n = n;
  driver::Launch l;
  l.kernel = kMatmul;
  l.functor = &k;
  l.arrays = {A, B, C};
  l.domain = all;
  l.block_size = Point{4, 4};
  driver->launch(l);  // work follows C's tiles
  std::vector<double> got(n * n);
  driver->read(C, all, got.data());
  EXPECT_EQ(got, expected);
  for (ArrayId x : {A, B, C}) driver->delete_array(x);
  driver->fence();
  expect_no_memory_held();
}

LIGHTNING_RUNTIME_SHAPES(RuntimeMatmul);

}  // namespace
}  // namespace lightning::runtime_test
