// Seeded, reproducible random cases for the distribution property tests.
#pragma once

#include <vector>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "core/point.hpp"
#include "core/rect.hpp"

namespace lightning::testing {

/// Number of random cases per property: `ci_default`, or LIGHTNING_PROPERTY_CASES for a
/// nightly-sized run.
inline int property_cases(int ci_default) {
  if (const char* env = std::getenv("LIGHTNING_PROPERTY_CASES")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  return ci_default;
}

/// Seed of case 0; LIGHTNING_PROPERTY_SEED replays another run. Case c uses seed + c, so a
/// failure message's seed reproduces that one case.
inline uint64_t property_seed() {
  if (const char* env = std::getenv("LIGHTNING_PROPERTY_SEED"))
    return std::strtoull(env, nullptr, 10);
  return 20220530;
}

/// A random source for one case, with the draws the tests need.
class CaseRng {
 public:
  explicit CaseRng(uint64_t seed) : gen_(seed) {}
  /// Uniform in [lo, hi].
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(gen_); }
  /// A point of `rank` coordinates, each in [lo, hi].
  Point point(int rank, int64_t lo, int64_t hi) {
    Point p = Point::filled(rank, 0);
    for (int a = 0; a < rank; ++a) p[a] = uniform(lo, hi);
    return p;
  }
  /// A box of `rank` with corners in [lo, hi] (possibly empty, possibly inverted: normalised
  /// to empty by Rect).
  Rect box(int rank, int64_t lo, int64_t hi) {
    Point a = point(rank, lo, hi), b = point(rank, lo, hi);
    if (chance(0.9))
      for (int ax = 0; ax < rank; ++ax)
        if (a[ax] > b[ax]) std::swap(a[ax], b[ax]);
    return {a, b};
  }
  std::mt19937_64& engine() { return gen_; }

 private:
  std::mt19937_64 gen_;
};

/// A random partition of `r` into boxes by recursive bisection: each box stops splitting with
/// probability `stop` (and at volume 1).
inline void random_partition(CaseRng& rng, const Rect& r, std::vector<Rect>& out, double stop) {
  if (r.volume() <= 1 || rng.chance(stop)) {
    out.push_back(r);
    return;
  }
  const int a = static_cast<int>(rng.uniform(0, r.rank() - 1));
  if (r.extent()[a] < 2) {
    out.push_back(r);
    return;
  }
  const int64_t cut = rng.uniform(r.lo()[a] + 1, r.hi()[a] - 1);
  Point hi = r.hi(), lo = r.lo();
  hi[a] = cut;
  lo[a] = cut;
  random_partition(rng, Rect(r.lo(), hi), out, stop);
  random_partition(rng, Rect(lo, r.hi()), out, stop);
}

/// "case 17 (seed 20220547)": for SCOPED_TRACE, so a failure names the case to replay.
inline std::string case_name(int c, uint64_t seed) {
  return "case " + std::to_string(c) + " (LIGHTNING_PROPERTY_SEED=" + std::to_string(seed) +
         " LIGHTNING_PROPERTY_CASES=1 replays it)";
}

}  // namespace lightning::testing
