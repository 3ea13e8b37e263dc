#include "driver/join.hpp"

#include <mpi.h>

#include <cstdlib>

#include "core/log.hpp"
#include "driver/cluster.hpp"

namespace lightning::driver {

bool launched_under_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return true;
  // What Open MPI, MPICH/Hydra, PMIx and Slurm put in a launched process's environment:
  // without them the process runs alone, and MPI (a singleton start) is not worth its cost.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

std::unique_ptr<Driver> join(const Config& config, const std::function<void()>& before_exit) {
  if (!launched_under_mpi()) return std::make_unique<Driver>(config, 1);
  auto cluster = std::make_shared<Cluster>(Cluster::Options::from(config));
  if (cluster->rank() == 0) return std::make_unique<Driver>(config, std::move(cluster));
  set_log_level(config.log);
  const int status = cluster->serve(config.devices);
  if (before_exit) before_exit();
  cluster.reset();  // finalises MPI when it initialised it
  // This rank never returns into the application, whose own MPI_Finalize (when it
  // initialised MPI itself) it would never reach: MPI ends here, with rank 0's.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  std::exit(status);
}

}  // namespace lightning::driver
