// The planner's random cases (unit_tests/planner/support/random_case.hpp) executed for real:
// each case's accepted requests replayed on a lightning::driver::Driver (planner, workers,
// memory managers, executors, in-process transport) with the interpreted test kernels, every
// read and scalar result compared with the sequential reference's values, and every byte of
// memory and every spill file checked to be released at the end.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "random_case.hpp"
#include "worker/memory_manager.hpp"

namespace lightning::runtime_test {

/// How a case's memory caps are chosen.
enum class CapMode {
  kMixed,  ///< per case at random: no caps, a tight device cap, or tight device and host caps
  kNone,   ///< no caps
  kTight,  ///< tight device and host caps: eviction to host and spilling to disk
};

struct DriverCaseOptions {
  planner::testing::CaseLimits limits;  ///< uniform_clusters is forced on
  CapMode caps = CapMode::kMixed;
  /// A case whose steps make no progress for this long is reported as a hang (the process
  /// aborts after printing the case: a hung runtime cannot be unwound).
  int hang_seconds = 60;
};

/// Counters over the cases replayed.
struct DriverCaseStats {
  uint64_t cases = 0;
  uint64_t steps = 0;
  uint64_t launches = 0;
  uint64_t reads_checked = 0;
  uint64_t elements_checked = 0;
  uint64_t scalars_checked = 0;
  uint64_t capped_cases = 0;               ///< with a device cap
  uint64_t disk_capped_cases = 0;          ///< with a host cap too
  std::map<std::string, uint64_t> shapes;  ///< cases per "workers x devices"
  worker::MemoryCounters memory;           ///< summed over every worker of every case
};

class DriverCaseRunner {
 public:
  explicit DriverCaseRunner(DriverCaseOptions options);
  ~DriverCaseRunner();
  DriverCaseRunner(const DriverCaseRunner&) = delete;
  DriverCaseRunner& operator=(const DriverCaseRunner&) = delete;

  /// Generates the case of `seed` (planned, simulated and checked by the planner's runner),
  /// then replays it on a Driver. Returns false when either found a failure; the failure
  /// messages then carry the seed, the caps and the case's steps.
  bool run(uint64_t seed, int index);

  const DriverCaseStats& stats() const { return stats_; }
  /// The planner-side counters of the same cases.
  const planner::testing::CaseStats& planner_stats() const { return generator_.stats(); }
  std::string summary() const;

 private:
  struct Watchdog;

  DriverCaseOptions options_;
  planner::testing::RandomCaseRunner generator_;
  DriverCaseStats stats_;
  std::unique_ptr<Watchdog> watchdog_;
};

}  // namespace lightning::runtime_test
