// The runtime's log: spdlog, one named logger, level from Config::log.
#pragma once

#include <spdlog/spdlog.h>

#include "core/config.hpp"

namespace lightning {

/// The "lightning" logger (stderr, thread-safe). Messages carry the process rank once the
/// transport knows it (set_log_rank).
spdlog::logger& log();

/// Applies a configured level.
void set_log_level(LogLevel level);

/// Prefixes messages with "[rank N]" (called once MPI knows the rank).
void set_log_rank(int rank);

}  // namespace lightning
