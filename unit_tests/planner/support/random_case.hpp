// Random differential cases: a random cluster, random arrays and distributions, a random
// sequence of requests; every plan checked (plan_checker), executed (plan_simulator) and its
// results compared with sequential_reference.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "annotation/annotation_cache.hpp"
#include "distribution/device_set.hpp"
#include "planner/request.hpp"
#include "test_kernels.hpp"

namespace lightning::planner::testing {

/// Number of random cases: LIGHTNING_PROPERTY_CASES for a nightly-sized run; otherwise
/// `ci_default` scaled by LIGHTNING_PROPERTY_SHARE (a fraction, set for the sanitized builds,
/// which look for memory and thread errors rather than for more cases), at least one.
int property_case_count(int ci_default);
/// Seed of case 0; case c uses seed + c, so LIGHTNING_PROPERTY_SEED=<seed + c> with
/// LIGHTNING_PROPERTY_CASES=1 replays case c alone.
uint64_t property_seed_value();

/// Size limits of generated cases.
struct CaseLimits {
  int min_workers = 1;
  int max_workers = 4;
  int max_devices_per_worker = 4;
  int max_requests = 12;  ///< requests after the initial arrays
  int max_initial_arrays = 3;
  int64_t max_extent_1d = 40;
  int64_t max_extent_2d = 20;
  int64_t max_extent_3d = 8;
  /// Only DeviceSet::uniform clusters (every worker with the same number of devices, at least
  /// one): the clusters a lightning::driver::Driver builds.
  bool uniform_clusters = false;
};

/// One request of a case that the planner accepted, with the sequential reference's expected
/// values: what a replay on the real runtime (unit_tests/runtime) submits and checks.
struct CaseStep {
  enum class Kind { kCreate, kFill, kWrite, kRead, kLaunch, kDelete, kFence };
  Kind kind = Kind::kFence;
  ArrayId array;                          ///< the planner's id (kCreate: of the new array)
  ArrayDesc desc;                         ///< kCreate
  Rect region;                            ///< kFill, kWrite, kRead
  double value = 0;                       ///< kFill
  std::vector<double> values;             ///< kWrite: written (row-major); kRead: expected
  const TestKernel* kernel = nullptr;     ///< kLaunch (owned by the RandomCaseRunner)
  LaunchRequest request;                  ///< kLaunch: arrays, scalars, domain, block, work
  std::optional<double> expected_scalar;  ///< kLaunch of a kernel with a scalar result
};

/// A case as the sequence of its accepted requests.
struct CaseScript {
  DeviceSet devices;
  std::vector<CaseStep> steps;
  std::string description;  ///< the case's step-by-step log (with its seed)
  bool complete = false;    ///< the planner accepted every request to the end of the case
};

/// Counters over the cases run, for the test's summary line.
struct CaseStats {
  uint64_t cases = 0;
  uint64_t plans = 0;
  uint64_t tasks = 0;
  uint64_t threads = 0;
  uint64_t launches = 0;
  uint64_t reads_checked = 0;
  uint64_t elements_checked = 0;
  uint64_t chunk_elements_checked = 0;  ///< elements of array chunks compared (coherence)
  uint64_t cache_hits = 0;
  uint64_t cache_misses = 0;
  std::map<std::string, uint64_t> task_kinds;  ///< tasks planned, by kind name
  std::map<std::string, uint64_t> kernels;     ///< launches planned, by kernel kind
};

/// Generates and runs random cases. The annotation cache and kernel registry outlive the
/// planners of the cases (LaunchRequest::annotation points into the cache).
class RandomCaseRunner {
 public:
  explicit RandomCaseRunner(CaseLimits limits = {});

  /// Runs the case of seed `seed` (index `index` only names it in messages). Returns false
  /// when it found a failure; then the failure messages carry the case's seed and a step by
  /// step description of the case. With `script`, also records the case's requests there.
  bool run(uint64_t seed, int index, CaseScript* script = nullptr);

  const CaseStats& stats() const { return stats_; }

 private:
  CaseLimits limits_;
  annotation::AnnotationCache cache_;
  KernelRegistry kernels_;
  CaseStats stats_;
};

}  // namespace lightning::planner::testing
