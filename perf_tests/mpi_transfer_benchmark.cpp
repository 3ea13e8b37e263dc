// Bulk transfer between two ranks: through the runtime (a kernel on rank 1's device reads an
// array held on rank 0's device, then the reverse) and through its MPI transport alone,
// against a plain MPI ping-pong of the same sizes, measured in the same run. Prints one JSON
// object; ratios are MPI time / other time (1 = as fast as plain MPI).
//
//   mpirun -np 2 perf_tests/mpi_transfer_benchmark [--max-mib=64] [--rounds=5]
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "comm/mpi_transport.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "driver/cluster.hpp"
#include "driver/driver.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "worker/native_kernel.hpp"

namespace {

using namespace lightning;
using Clock = std::chrono::steady_clock;

struct Copy {
  ArrayHandle<const double, 1> src;
  ArrayHandle<double, 1> dst;
  void operator()(int64_t i) const { dst(i) = src(i); }
};

const KernelId kCopy = worker::KernelRegistry::add(worker::native_kernel<Copy, 1>(
    "mpi_transfer_benchmark::copy", "global i => read src[i], write dst[i]",
    annotation::KernelSignature()
        .add_array("src", DataType::kFloat64, 1)
        .add_array("dst", DataType::kFloat64, 1),
    {{0, offsetof(Copy, src), 1}, {1, offsetof(Copy, dst), 1}}));

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Best round trip (S bytes each way) of a blocking MPI ping-pong between ranks 0 and 1.
double mpi_ping_pong(size_t bytes, int rounds, int rank) {
  std::vector<char> buffer(bytes, 1);
  const int count = static_cast<int>(bytes);
  double best = 1e30;
  for (int r = 0; r <= rounds; ++r) {  // round 0 warms up
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    if (rank == 0) {
      MPI_Send(buffer.data(), count, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), count, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer.data(), count, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), count, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
    if (r > 0) best = std::min(best, seconds_since(start));
  }
  return best;
}

// Best round trip of DataMessages through the MPI transport alone (rank 1 echoes them): what
// the runtime's Send/Recv tasks get from the transport, without packing, kernels or fences.
double transport_ping_pong(comm::MpiTransport& t, size_t bytes, int rounds) {
  constexpr uint64_t kDone = ~uint64_t{0};  // rank 0's last message: rank 1 stops echoing
  std::mutex mutex;
  std::condition_variable arrived;
  std::optional<comm::DataMessage> inbox;
  const WorkerId self(static_cast<uint64_t>(t.rank()));
  t.set_handler(self, [&](comm::DataMessage m) {
    if (t.rank() == 1 && m.tag != kDone) {  // echo, on the transport's thread (send() queues)
      std::swap(m.from, m.to);
      t.send(std::move(m));
      return;
    }
    std::lock_guard<std::mutex> lock(mutex);
    inbox = std::move(m);
    arrived.notify_one();
  });
  auto wait = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    arrived.wait(lock, [&] { return inbox.has_value(); });
    comm::DataMessage m = std::move(*inbox);
    inbox.reset();
    return m;
  };
  double best = 1e30;
  if (t.rank() == 0) {
    comm::Payload payload(bytes, 1);
    for (int r = 0; r <= rounds; ++r) {
      const auto start = Clock::now();
      t.send(
          comm::DataMessage{WorkerId(0), WorkerId(1), uint64_t(r), std::move(payload), {}, {}, 0});
      payload = wait().payload;
      if (r > 0) best = std::min(best, seconds_since(start));
    }
    t.send(comm::DataMessage{WorkerId(0), WorkerId(1), kDone, {}, {}, {}, 0});
  } else {
    wait();  // without calling into MPI meanwhile: the transport's thread has it to itself
  }
  t.set_handler(self, nullptr);
  return best;
}

// Best round trip through the runtime: a (on D0, rank 0) -> b (on D1, rank 1) -> a.
double runtime_round_trip(driver::Driver& d, size_t bytes, int rounds) {
  const int64_t n = static_cast<int64_t>(bytes / sizeof(double));
  const ArrayId a =
      d.create_array("a", DataType::kFloat64, Point{n}, dist::centralized(DeviceId(0)));
  const ArrayId b =
      d.create_array("b", DataType::kFloat64, Point{n}, dist::centralized(DeviceId(1)));
  std::vector<double> init(static_cast<size_t>(n), 1.0);
  d.write(a, Rect(Point{0}, Point{n}), init.data());
  auto copy = [&](ArrayId from, ArrayId to) {
    Copy k{};
    driver::Launch l;
    l.kernel = kCopy;
    l.functor = &k;
    l.arrays = {from, to};
    l.domain = Rect(Point{0}, Point{n});
    l.block_size = Point{n};  // one superblock: the transfer, not the tasks, is measured
    d.launch(l);
  };
  double best = 1e30;
  for (int r = 0; r <= rounds; ++r) {
    d.fence();
    const auto start = Clock::now();
    copy(a, b);  // runs on D1: a's bytes travel to rank 1
    copy(b, a);  // runs on D0: b's bytes travel back
    d.fence();
    if (r > 0) best = std::min(best, seconds_since(start));
  }
  std::vector<double> back(static_cast<size_t>(n));
  d.read(a, Rect(Point{0}, Point{n}), back.data());
  if (back != init) throw Error(ErrorKind::kInternal, "the round trip changed the array");
  d.delete_array(a);
  d.delete_array(b);
  d.fence();
  return best;
}

}  // namespace

int main(int argc, char* argv[]) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int max_mib = 64, rounds = 5;
  CLI::App app("Bulk transfer between two ranks: runtime against MPI ping-pong.");
  app.add_option("--max-mib", max_mib, "largest transfer, MiB")->check(CLI::Range(1, 1024));
  app.add_option("--rounds", rounds, "measured round trips per size (best counts)")
      ->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "mpi_transfer_benchmark: run with mpirun -np 2\n");
    MPI_Finalize();
    return 2;
  }
  std::vector<size_t> sizes;
  for (size_t s = size_t{64} << 10; s <= (size_t(max_mib) << 20); s *= 4) sizes.push_back(s);

  // The baseline first, on plain MPI, while no runtime thread exists.
  std::vector<double> mpi, transport;
  for (size_t s : sizes) mpi.push_back(mpi_ping_pong(s, rounds, rank));
  {
    comm::MpiTransport t({}, nullptr, nullptr);
    for (size_t s : sizes) transport.push_back(transport_ping_pong(t, s, rounds));
  }

  int status = 0;
  {
    auto cluster = std::make_shared<driver::Cluster>();
    if (rank != 0) {
      status = cluster->serve();
    } else {
      try {
        Config config = Config::load_from_process(&argc, argv);  // e.g. LIGHTNING_TRACE
        config.devices.kind = DeviceSelection::Kind::kHost;
        config.devices.host_count = 1;
        driver::Driver d(config, cluster);
        std::printf("{\"benchmark\": \"mpi_transfer\", \"ranks\": 2, \"results\": [");
        for (size_t i = 0; i < sizes.size(); ++i) {
          const double runtime = runtime_round_trip(d, sizes[i], rounds);
          const double gib = 2.0 * double(sizes[i]) / double(1 << 30);
          std::printf(
              "%s\n  {\"bytes\": %zu, \"mpi_gib_per_s\": %.3f, "
              "\"transport_gib_per_s\": %.3f, \"runtime_gib_per_s\": %.3f, "
              "\"transport_ratio\": %.3f, \"runtime_ratio\": %.3f}",
              i ? "," : "", sizes[i], gib / mpi[i], gib / transport[i], gib / runtime,
              mpi[i] / transport[i], mpi[i] / runtime);
        }
        std::printf("\n]}\n");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "mpi_transfer_benchmark: %s\n", e.what());
        status = 1;
      }
    }
  }
  MPI_Finalize();
  return status;
}
