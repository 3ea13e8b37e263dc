// Failures across ranks, under mpirun with three ranks: a task that throws or runs out of
// memory on a worker rank reaches the driver naming that rank, and a worker rank that is killed
// makes the driver fail naming it instead of hanging. The killing test comes last: it leaves the
// run a rank short. Run with `mpirun --enable-recovery` (else mpirun ends the whole job when a rank
// dies, which is also a bounded failure, but not the runtime's own report).
#include <gtest/gtest.h>
#include <mpi.h>

#include <csignal>
#include <cstddef>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "core/error.hpp"
#include "driver/cluster.hpp"
#include "driver/driver.hpp"
#include "kernel/native_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::driver {
namespace {

int this_rank = -1;              // set by main, read by the kernels
std::shared_ptr<Cluster> ranks;  // rank 0's view of the run

/// y(i) = x(i) + 1; throws at element `fail_at` and kills its process at `kill_at`.
struct Hazard {
  ArrayHandle<const double, 1> x;
  ArrayHandle<double, 1> y;
  int64_t fail_at;
  int64_t kill_at;
  void operator()(int64_t i) const {
    if (i == fail_at) throw std::runtime_error("element " + std::to_string(i) + " is cursed");
    if (i == kill_at && this_rank != 0) std::raise(SIGKILL);
    y(i) = x(i) + 1;
  }
};

const KernelId kHazard = kernel::KernelRegistry::add(kernel::native_kernel<Hazard, 1>(
    "rank_failure_test::hazard", "global i => read x[i], write y[i]",
    annotation::KernelSignature()
        .add_array("x", DataType::kFloat64, 1)
        .add_array("y", DataType::kFloat64, 1)
        .add_scalar("fail_at", DataType::kInt64)
        .add_scalar("kill_at", DataType::kInt64),
    {{0, offsetof(Hazard, x), 1}, {1, offsetof(Hazard, y), 1}}));

Config two_devices_per_rank() {
  Config c;
  c.devices.kind = DeviceSelection::Kind::kHost;
  c.devices.host_count = 2;
  return c;
}

// Runs Hazard over [0, n) of arrays in chunks of 100, one per device, and fences.
void run_hazard(Driver& d, int64_t fail_at, int64_t kill_at) {
  const int64_t n = 100 * static_cast<int64_t>(d.devices().size());
  std::vector<double> ones(static_cast<size_t>(n), 1.0);
  const ArrayId x = d.create_array("x", DataType::kFloat64, Point{n}, dist::block(100));
  const ArrayId y = d.create_array("y", DataType::kFloat64, Point{n}, dist::block(100));
  d.write(x, Rect(Point{0}, Point{n}), ones.data());
  Hazard k{{}, {}, fail_at, kill_at};
  Launch l;
  l.kernel = kHazard;
  l.functor = &k;
  l.arrays = {x, y};
  l.domain = Rect(Point{0}, Point{n});
  l.block_size = Point{50};
  d.launch(l);
  d.delete_array(x);
  d.delete_array(y);
  d.fence();
}

TEST(RankFailure, ATaskErrorOnAWorkerRankNamesTheRank) {
  Driver d(two_devices_per_rank(), ranks);
  ASSERT_EQ(d.devices().num_workers(), 3u);
  const int64_t last = 100 * static_cast<int64_t>(d.devices().size()) - 1;  // on the last rank
  try {
    run_hazard(d, last, -1);
    FAIL() << "the failing kernel went unnoticed";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::kTask) << text;
    EXPECT_NE(text.find("element " + std::to_string(last) + " is cursed"), std::string::npos)
        << text;
    // The device it names belongs to the rank it names ("... on D<d> (rank R, T<t>): ...").
    const size_t device_at = text.find(" on D");
    ASSERT_NE(device_at, std::string::npos) << text;
    const DeviceId device(std::stoull(text.substr(device_at + 5)));
    const std::string owner = std::to_string(d.devices().worker_of(device).value());
    EXPECT_NE(text.find(" on " + device.to_string() + " (rank " + owner + ", T"), std::string::npos)
        << text;
    EXPECT_NE(owner, "0") << text;
  }
  // The runtime goes on across ranks.
  EXPECT_NO_THROW(run_hazard(d, -1, -1));
}

TEST(RankFailure, OutOfMemoryOnAWorkerRankNamesTheRank) {
  Config c = two_devices_per_rank();
  c.device_memory = 4 << 10;
  Driver d(c, ranks);
  const DeviceId last(d.devices().size() - 1);
  const int64_t n = 1024;  // 8 KiB in one chunk: more than the device holds
  std::vector<double> values(static_cast<size_t>(n), 2.0);
  const ArrayId big = d.create_array("big", DataType::kFloat64, Point{n}, dist::centralized(last));
  d.write(big, Rect(Point{0}, Point{n}), values.data());
  try {
    d.fence();
    FAIL() << "an 8 KiB chunk fitted a 4 KiB device";
  } catch (const Error& e) {
    const std::string text = e.what();
    const std::string rank = std::to_string(d.devices().worker_of(last).value());
    EXPECT_EQ(e.kind(), ErrorKind::kOutOfMemory) << text;
    EXPECT_NE(text.find(" failed on W" + rank + " (rank " + rank + "): "), std::string::npos)
        << text;
    EXPECT_NE(text.find("out of memory"), std::string::npos) << text;
  }
  d.delete_array(big);
  EXPECT_NO_THROW(d.fence());
}

TEST(RankFailure, AKilledWorkerRankFailsTheDriverNamingIt) {
  Driver d(two_devices_per_rank(), ranks);
  const int64_t last = 100 * static_cast<int64_t>(d.devices().size()) - 1;  // on the last rank
  const std::string victim = "rank " + std::to_string(ranks->size() - 1);
  try {
    run_hazard(d, -1, last);
    FAIL() << "the driver did not notice that " << victim << " died";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::kCommunication) << text;
    EXPECT_NE(text.find(victim + " (worker W"), std::string::npos) << text;
    EXPECT_NE(text.find("was lost"), std::string::npos) << text;
  }
  // Every later wait fails at once with the same reason rather than hanging.
  EXPECT_THROW(d.fence(), Error);
}

}  // namespace
}  // namespace lightning::driver

// Rank 0 runs the tests; the others serve. The exit status is rank 0's alone: with a rank
// killed, no collective can agree on one (ctest reads the summary line instead).
int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  testing::InitGoogleTest(&argc, argv);
  int failed = 0;
  {
    auto cluster = std::make_shared<lightning::driver::Cluster>();
    lightning::driver::this_rank = cluster->rank();
    if (cluster->size() != 3) {
      std::cerr << "rank_failure_tests: run with mpirun -np 3\n";
      failed = 1;
    } else if (cluster->rank() == 0) {
      lightning::driver::ranks = cluster;
      failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
      lightning::driver::ranks.reset();
    } else {
      failed = cluster->serve();
    }
  }
  MPI_Finalize();
  return failed;
}
