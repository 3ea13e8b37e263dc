// How a program joins the runtime, in one process or under mpirun.
#pragma once

#include <functional>
#include <memory>

#include "core/config.hpp"
#include "driver/driver.hpp"

namespace lightning::driver {

/// Starts the runtime of this process and returns its Driver, on rank 0 only.
///
/// - Started by an MPI launcher (mpirun, srun) or with MPI already initialised: every rank
///   joins one Cluster. Rank 0 gets a Driver over all ranks (destroying it ends the run and,
///   when join() initialised MPI, finalises it). Every other rank serves as a worker until
///   rank 0's Driver is destroyed (on the devices its own `config.devices` names, or on
///   rank 0's selection when that is `auto`; every other setting is rank 0's), then calls
///   `before_exit` (e.g. to finalise Kokkos),
///   finalises MPI and exits the process with status 0 (1 when rank 0 was lost): join()
///   never returns there.
/// - Otherwise: a Driver with one in-process worker, as `Driver(config)`.
std::unique_ptr<Driver> join(const Config& config, const std::function<void()>& before_exit = {});

/// Whether this process was started by an MPI launcher or has MPI initialised.
bool launched_under_mpi();

}  // namespace lightning::driver
