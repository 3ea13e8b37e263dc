// The paper's stencil, iterated, against a sequential reference.
#include <vector>

#include "runtime_fixture.hpp"
#include "test_kernels.hpp"

namespace lightning::runtime_test {
namespace {

class RuntimeStencil : public RuntimeTest {};

std::vector<double> sequential_stencil(std::vector<double> a, int iterations) {
  std::vector<double> b = a;
  for (int it = 0; it < iterations; ++it) {
    for (size_t i = 1; i + 1 < a.size(); ++i) b[i] = a[i - 1] + a[i] + a[i + 1];
    std::swap(a, b);
  }
  return a;
}

// Iterates the stencil kernel `kernel` over `init` in two arrays; returns the result.
std::vector<double> iterate(driver::Driver& driver, KernelId kernel,
                            const std::vector<double>& init, int iterations) {
  const auto n = static_cast<int64_t>(init.size());
  const ArrayId a = driver.create_array("a", DataType::kFloat64, Point{n}, dist::stencil(128, 1));
  const ArrayId b = driver.create_array("b", DataType::kFloat64, Point{n}, dist::stencil(128, 1));
  driver.write(a, Rect(Point{0}, Point{n}), init.data());
  driver.write(b, Rect(Point{0}, Point{n}), init.data());  // boundary elements stay put
  for (int it = 0; it < iterations; ++it) {
    Stencil1D k{};
    driver::Launch l;
    l.kernel = kernel;
    l.functor = &k;
    l.arrays = it % 2 ? std::vector<ArrayId>{b, a} : std::vector<ArrayId>{a, b};
    l.domain = Rect(Point{1}, Point{n - 1});
    l.block_size = Point{32};
    l.work = work::block(128);
    driver.launch(l);
  }
  std::vector<double> got(static_cast<size_t>(n));
  driver.read(iterations % 2 ? b : a, Rect(Point{0}, Point{n}), got.data());
  // A sub-range read crossing chunks and workers.
  std::vector<double> part(300);
  driver.read(iterations % 2 ? b : a, Rect(Point{100}, Point{400}), part.data());
  EXPECT_EQ(part, std::vector<double>(got.begin() + 100, got.begin() + 400));
  driver.delete_array(a);
  driver.delete_array(b);
  driver.fence();
  return got;
}

TEST_P(RuntimeStencil, IterationsMatchTheSequentialStencil) {
  const int64_t n = 2048;
  const int iterations = 8;
  std::vector<double> init(n);
  for (int64_t i = 0; i < n; ++i) init[i] = double((i * 7) % 13);
  EXPECT_EQ(iterate(*driver, kStencil1D, init, iterations), sequential_stencil(init, iterations));
  EXPECT_GE(driver->plan_cache_stats().hits, uint64_t(iterations - 2));
  expect_no_memory_held();
}

// Declared `overwrite out[i]`, the written chunks' cores are not brought in before the kernel
// (their halos are, around them; Worker.AKernelThatOverwritesPartOfAChunkHasOnlyTheRestFilled
// counts the bytes): the same result where chunks are evicted, spilled and sent between ranks.
TEST_P(RuntimeStencil, AnOverwritingStencilMatchesTheSequentialStencil) {
  const int64_t n = 2048;
  const int iterations = 8;
  std::vector<double> init(n);
  for (int64_t i = 0; i < n; ++i) init[i] = double((i * 5) % 11);
  EXPECT_EQ(iterate(*driver, kStencil1DOverwrite, init, iterations),
            sequential_stencil(init, iterations));
  expect_no_memory_held();
}

LIGHTNING_RUNTIME_SHAPES(RuntimeStencil);

}  // namespace
}  // namespace lightning::runtime_test
