// How the benchmarks time their runs: one warm-up, then the median of several.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace lightning::perf {

/// The median of `v`.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Seconds of each of `repeats` runs of `run`, after one untimed warm-up run unless
/// `warm_up` is false.
inline std::vector<double> run_times(int repeats, const std::function<void()>& run,
                                     bool warm_up = true) {
  if (warm_up) run();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return t;
}

/// Median seconds of `repeats` runs of `run` after one warm-up.
inline double timed(int repeats, const std::function<void()>& run) {
  return median(run_times(repeats, run));
}

}  // namespace lightning::perf
