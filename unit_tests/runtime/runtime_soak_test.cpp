// A thousand launches under tight memory caps: results equal the reference, and every byte
// and spill file is gone once the arrays are. Runs of three equal launches, then a new scalar:
// under mpirun a repeated launch names the data sent before instead of sending it again, and
// one with a new scalar must not.
#include <numeric>
#include <vector>

#include "runtime_fixture.hpp"
#include "test_kernels.hpp"

namespace lightning::runtime_test {
namespace {

TEST(RuntimeSoak, AThousandLaunchesUnderCapsEndWhereTheReferenceEnds) {
  const int iterations = std::getenv("LIGHTNING_SOAK_LAUNCHES")
                             ? std::atoi(std::getenv("LIGHTNING_SOAK_LAUNCHES"))
                             : 1000;
  auto driver = make_driver(config_of({"soak", 1, 3, 4 << 10, 8 << 10}));
  driver::Driver& d = *driver;
  // 12 KiB per array and worker: more than the three devices of a worker hold.
  const int64_t n = 1536 * worker_count(1);
  std::vector<double> x(n), y(n, 0.0);
  for (int64_t i = 0; i < n; ++i) x[i] = double(i % 3);
  const ArrayId X = d.create_array("x", DataType::kFloat64, Point{n}, dist::block(128));
  const ArrayId Y = d.create_array("y", DataType::kFloat64, Point{n}, dist::block(96));
  d.write(X, Rect(Point{0}, Point{n}), x.data());
  d.write(Y, Rect(Point{0}, Point{n}), y.data());
  for (int it = 0; it < iterations; ++it) {
    const double alpha = double((it / 3) % 4);
    Saxpy k{{}, {}, alpha, -1};
    driver::Launch l;
    l.kernel = kSaxpy;
    l.functor = &k;
    l.arrays = {X, Y};
    l.domain = Rect(Point{0}, Point{n});
    l.block_size = Point{32};
    l.work = work::block(128);
    d.launch(l);
    for (int64_t i = 0; i < n; ++i) y[i] += alpha * x[i];
    if (it % 250 == 249) d.fence();  // retire tasks now and then, as applications do
  }
  std::vector<double> got(n);
  d.read(Y, Rect(Point{0}, Point{n}), got.data());
  EXPECT_EQ(got, y);
  const auto reports = d.memory_reports();
  EXPECT_GT(reports[0].counters.disk_writes, 0u) << "the caps should force spilling";
  d.delete_array(X);
  d.delete_array(Y);
  d.fence();
  for (const auto& r : d.memory_reports()) {
    EXPECT_EQ(r.device_bytes, 0u);
    EXPECT_EQ(r.host_bytes, 0u);
    EXPECT_EQ(r.spill_files, 0u);
    EXPECT_EQ(r.chunks, 0u);
  }
}

}  // namespace
}  // namespace lightning::runtime_test
