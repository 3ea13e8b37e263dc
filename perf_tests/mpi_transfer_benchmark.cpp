// Bulk transfer between two ranks, against a plain MPI ping-pong of the same sizes measured in
// the same run: through the runtime (a kernel on rank 1's device reads an array held on rank
// 0's device, then the reverse), and through its MPI transport alone. Prints one JSON object;
// ratios are MPI time / other time (1 = as fast as plain MPI).
//
// The runtime is measured twice. "runtime": the kernels declare the reads and writes that make
// the runtime move the array each way and do nothing else (empty bodies), so the round trip is
// the transfer as the runtime makes it: planning, both launches' fragments, staging, the Send
// and Recv tasks, the fence. "runtime_copying": the kernels also copy the array (a read and a
// write of every element on each side), which a ping-pong does not do.
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
#include "kernel/native_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace {

using namespace lightning;
using Clock = std::chrono::steady_clock;

struct Copy {
  ArrayHandle<const double, 1> src;
  ArrayHandle<double, 1> dst;
  void operator()(int64_t i) const { dst(i) = src(i); }
};

// Declares what Copy does, and does nothing: the runtime moves src to the device anyway.
struct Touch {
  ArrayHandle<const double, 1> src;
  ArrayHandle<double, 1> dst;
  void operator()(int64_t) const {}
};

const KernelId kCopy = kernel::KernelRegistry::add(kernel::native_kernel<Copy, 1>(
    "mpi_transfer_benchmark::copy", "global i => read src[i], write dst[i]",
    annotation::KernelSignature()
        .add_array("src", DataType::kFloat64, 1)
        .add_array("dst", DataType::kFloat64, 1),
    {{0, offsetof(Copy, src), 1}, {1, offsetof(Copy, dst), 1}}));
const KernelId kTouch = kernel::KernelRegistry::add(kernel::native_kernel<Touch, 1>(
    "mpi_transfer_benchmark::touch", "global i => read src[i], write dst[i]",
    annotation::KernelSignature()
        .add_array("src", DataType::kFloat64, 1)
        .add_array("dst", DataType::kFloat64, 1),
    {{0, offsetof(Touch, src), 1}, {1, offsetof(Touch, dst), 1}}));

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

// Best round trip of DataMessages through the MPI transport alone, as the runtime's Send and
// Recv tasks use it: the bytes are lent from one buffer and received into another (rank 1
// echoes them back from where they landed), without packing, kernels or fences. Two buffers a
// side, used in turn, so that no buffer receives while it may still be sending.
double transport_ping_pong(comm::MpiTransport& t, size_t bytes, int rounds) {
  constexpr uint64_t kDone = ~uint64_t{0};  // rank 0's last message: rank 1 stops echoing
  const int peer = 1 - t.rank();
  const WorkerId self(static_cast<uint64_t>(t.rank())), other(static_cast<uint64_t>(peer));
  comm::Payload buffers[2] = {comm::Payload(bytes, 1), comm::Payload(bytes, 1)};
  // Round r: rank 0 sends buffers[r % 2] with tag 2r, rank 1 receives it into its
  // buffers[r % 2] and echoes it from there with tag 2r + 1, into rank 0's buffers[(r+1) % 2].
  auto buffer_for = [&](uint64_t tag) -> comm::Payload& {
    return buffers[(tag / 2 + (t.rank() == 0 ? tag % 2 : 0)) % 2];
  };
  auto send = [&](uint64_t tag) {
    comm::DataMessage m;
    m.from = self;
    m.to = other;
    m.tag = tag;
    comm::Payload& from = buffer_for(tag);
    m.lent = {from.data(), from.size(), nullptr};  // not written until two rounds later
    t.send(std::move(m));
  };
  std::mutex mutex;
  std::condition_variable arrived;
  std::optional<uint64_t> inbox;  // the tag of the message that arrived
  // On the transport's thread, which may only queue (receive and send do): rank 1 echoes
  // there, rank 0's thread waits for the echo.
  auto landed = [&](uint64_t tag) {
    if (t.rank() == 1 && tag != kDone) return send(tag + 1);
    std::lock_guard<std::mutex> lock(mutex);
    inbox = tag;
    arrived.notify_one();
  };
  t.set_handler(self, [&](comm::DataMessage m) {
    if (m.pending_size == 0) {  // small, or the last one: it came whole
      if (!m.payload.empty())
        std::copy(m.payload.begin(), m.payload.end(), buffer_for(m.tag).begin());
      return landed(m.tag);
    }
    comm::Payload& into = buffer_for(m.tag);
    t.receive(self, m.tag, into.data(), [&, tag = m.tag](comm::Payload p, std::string) {
      if (!p.empty()) std::copy(p.begin(), p.end(), into.begin());  // it came too late
      landed(tag);
    });
  });
  auto wait = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    arrived.wait(lock, [&] { return inbox.has_value(); });
    const uint64_t tag = *inbox;
    inbox.reset();
    return tag;
  };
  double best = 1e30;
  if (t.rank() == 0) {
    for (int r = 0; r <= rounds; ++r) {
      const auto start = Clock::now();
      send(2 * uint64_t(r));
      wait();
      if (r > 0) best = std::min(best, seconds_since(start));
    }
    comm::DataMessage done;
    done.from = self;
    done.to = other;
    done.tag = kDone;
    t.send(std::move(done));
  } else {
    wait();  // without calling into MPI meanwhile: the transport's thread has it to itself
  }
  t.set_handler(self, nullptr);
  return best;
}

// Best round trip through the runtime: a (on D0, rank 0) -> b (on D1, rank 1) -> a, by
// `kernel` (kCopy, or kTouch, which moves the bytes without copying them on either side).
double runtime_round_trip(driver::Driver& d, KernelId kernel, size_t bytes, int rounds) {
  const int64_t n = static_cast<int64_t>(bytes / sizeof(double));
  const ArrayId a =
      d.create_array("a", DataType::kFloat64, Point{n}, dist::centralized(DeviceId(0)));
  const ArrayId b =
      d.create_array("b", DataType::kFloat64, Point{n}, dist::centralized(DeviceId(1)));
  std::vector<double> init(static_cast<size_t>(n), 1.0);
  d.write(a, Rect(Point{0}, Point{n}), init.data());
  auto copy = [&](ArrayId from, ArrayId to) {
    Copy k{};  // Touch has the same layout
    static_assert(sizeof(Copy) == sizeof(Touch));
    driver::Launch l;
    l.kernel = kernel;
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
  if (kernel == kCopy && back != init)
    throw Error(ErrorKind::kInternal, "the round trip changed the array");
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
  // --lightning-* arguments and LIGHTNING_* variables first (e.g. direct-receive-wait, trace).
  Config config = Config::load_from_process(&argc, argv);
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
    comm::MpiTransport::Options o;
    o.direct_receive_wait = config.direct_receive_wait;
    comm::MpiTransport t(o, nullptr, nullptr);
    for (size_t s : sizes) transport.push_back(transport_ping_pong(t, s, rounds));
  }

  int status = 0;
  {
    auto cluster = std::make_shared<driver::Cluster>(driver::Cluster::Options::from(config));
    if (rank != 0) {
      status = cluster->serve();
    } else {
      try {
        config.devices.kind = DeviceSelection::Kind::kHost;
        config.devices.host_count = 1;
        driver::Driver d(config, cluster);
        std::printf("{\"benchmark\": \"mpi_transfer\", \"ranks\": 2, \"results\": [");
        for (size_t i = 0; i < sizes.size(); ++i) {
          const double runtime = runtime_round_trip(d, kTouch, sizes[i], rounds);
          const double copying = runtime_round_trip(d, kCopy, sizes[i], rounds);
          const double gib = 2.0 * double(sizes[i]) / double(1 << 30);
          std::printf(
              "%s\n  {\"bytes\": %zu, \"mpi_gib_per_s\": %.3f, "
              "\"transport_gib_per_s\": %.3f, \"runtime_gib_per_s\": %.3f, "
              "\"runtime_copying_gib_per_s\": %.3f, \"transport_ratio\": %.3f, "
              "\"runtime_ratio\": %.3f, \"runtime_copying_ratio\": %.3f}",
              i ? "," : "", sizes[i], gib / mpi[i], gib / transport[i], gib / runtime,
              gib / copying, mpi[i] / transport[i], mpi[i] / runtime, mpi[i] / copying);
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
