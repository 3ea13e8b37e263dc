// Spill directories never outlive their process: removed on SIGINT and SIGTERM, and swept
// from the spill parent when a process that died without removing its own starts again.
#pragma once

#include <string>

namespace lightning::worker {

/// What each spill directory holds while its process lives: a file its owner keeps locked
/// (flock). The kernel releases the lock when the process ends, however it ends (SIGKILL,
/// a crash, MPI_Abort), so a directory whose lock can be taken has no owner.
inline constexpr const char* kSpillOwnerLock = ".owner.lock";
/// The name every spill directory starts with.
inline constexpr const char* kSpillDirPrefix = "lightning-spill-";

/// Removes the spill directories under `parent` whose owner is gone (their lock can be
/// taken), and those without a lock file that are more than a minute old (an owner creates
/// its lock right after its directory). Returns how many it removed; never throws.
int remove_abandoned_spill_dirs(const std::string& parent);

/// Registers a spill directory, made under `parent`, to be removed if the process gets SIGINT
/// or SIGTERM while its handler is the default one; the handler also removes the directories
/// under `parent` whose owner is gone (as when mpirun ends a job after a rank was killed), then
/// lets the signal end the process as it would have. Returns a slot for unregister_spill_dir,
/// or -1 when none is free or a path is too long (the sweep above still removes it later).
int register_spill_dir(const std::string& dir, const std::string& parent);
/// Forgets a registration (before its owner removes the directory itself).
void unregister_spill_dir(int slot);

}  // namespace lightning::worker
