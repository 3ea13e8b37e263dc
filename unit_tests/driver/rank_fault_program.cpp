// The program of the fault tests (check_rank_fault.cmake): three ranks, rank 0 driving launches
// that touch every rank, until one rank fails in the way MODE names, inside a kernel:
//   stop-worker   the last rank stops (SIGSTOP): it hangs, heartbeats and all
//   kill-worker   the last rank is killed (SIGKILL)
//   exit-worker   the last rank exits early, status 0, without a word to anyone
//   kill-driver   rank 0, the application, is killed (SIGKILL) between two launches
// The runtime must end every process within the peer timeout plus a few seconds, with the error
// printed and a non-zero exit status. Rank 0 prints what it caught; nothing here ends the job.
#include <mpi.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "driver/cluster.hpp"
#include "driver/driver.hpp"
#include "kernel/native_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace {

using namespace lightning;

int this_rank = -1;
int victim = -1;
std::string mode;

/// y(i) = x(i) + 1; a victim worker rank fails at element `fault_at`.
struct Faulty {
  ArrayHandle<const double, 1> x;
  ArrayHandle<double, 1> y;
  int64_t fault_at;
  void operator()(int64_t i) const {
    if (i == fault_at && this_rank == victim) {
      if (mode == "stop-worker") std::raise(SIGSTOP);
      if (mode == "kill-worker") std::raise(SIGKILL);
      if (mode == "exit-worker") ::_exit(0);
    }
    y(i) = x(i) + 1;
  }
};

const KernelId kFaulty = kernel::KernelRegistry::add(kernel::native_kernel<Faulty, 1>(
    "rank_fault_program::faulty", "global i => read x[i], write y[i]",
    annotation::KernelSignature()
        .add_array("x", DataType::kFloat64, 1)
        .add_array("y", DataType::kFloat64, 1)
        .add_scalar("fault_at", DataType::kInt64),
    {{0, offsetof(Faulty, x), 1}, {1, offsetof(Faulty, y), 1}}));

// Launches over arrays that span every rank until a wait fails (it must).
int drive(const std::shared_ptr<driver::Cluster>& cluster) {
  Config config = Config::load_from_process(nullptr, nullptr);
  driver::Driver d(config, cluster);
  const int64_t per_device = 64;
  const int64_t n = per_device * static_cast<int64_t>(d.devices().size());
  std::vector<double> ones(static_cast<size_t>(n), 1.0);
  const ArrayId x = d.create_array("x", DataType::kFloat64, Point{n}, dist::block(per_device));
  const ArrayId y = d.create_array("y", DataType::kFloat64, Point{n}, dist::block(per_device));
  d.write(x, Rect(Point{0}, Point{n}), ones.data());
  const int64_t fault_at = n - per_device;  // the last rank's first element
  try {
    for (int round = 0; round < 1000; ++round) {
      if (mode == "kill-driver" && round == 2) std::raise(SIGKILL);
      Faulty k{{}, {}, round == 2 ? fault_at : -1};
      driver::Launch l;
      l.kernel = kFaulty;
      l.functor = &k;
      l.arrays = {x, y};
      l.domain = Rect(Point{0}, Point{n});
      d.launch(l);
      d.fence();
    }
  } catch (const Error& e) {
    std::cerr << "rank_fault_program: the driver caught: " << e.what() << std::endl;
    return 1;
  }
  std::cerr << "rank_fault_program: no failure reached the driver" << std::endl;
  return 2;
}

// Leaves this process's pid where check_rank_fault.cmake looks when mpirun outlives its
// bound: it tells a process the runtime failed to end from a launcher that hangs after every
// process ended.
void write_pid_file() {
  const char* dir = std::getenv("LIGHTNING_SPILL_DIR");
  if (!dir) return;
  std::ofstream(std::string(dir) + "/rank-" + std::to_string(this_rank) + ".pid") << ::getpid();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: rank_fault_program stop-worker|kill-worker|exit-worker|kill-driver\n";
    return 2;
  }
  mode = argv[1];
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int status = 0;
  {
    auto cluster = std::make_shared<driver::Cluster>(
        driver::Cluster::Options::from(Config::load_from_process(nullptr, nullptr)));
    this_rank = cluster->rank();
    victim = cluster->size() - 1;
    write_pid_file();
    status = this_rank == 0 ? drive(cluster) : cluster->serve();
  }  // after a loss, the Cluster ends the job here
  MPI_Finalize();
  return status;
}
