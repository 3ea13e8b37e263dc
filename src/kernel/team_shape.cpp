#include "kernel/team_shape.hpp"

#include <algorithm>

#include "core/size_text.hpp"

namespace lightning::kernel {

std::string TeamShape::limit_violation() const {
  const auto n = [](int64_t v) { return std::to_string(v); };
  if (league_size < 0) return "league size " + n(league_size) + " is negative";
  if (team_size < 1) return "team size " + n(team_size) + " is not positive";
  const bool power_of_two = vector_length >= 1 && (vector_length & (vector_length - 1)) == 0;
  if (!power_of_two || vector_length > TeamLimits::kMaxVectorLength)
    return "vector length " + n(vector_length) + " is not a power of two up to " +
           n(TeamLimits::kMaxVectorLength);
  if (int64_t{team_size} * vector_length > TeamLimits::kMaxThreads)
    return "team size " + n(team_size) + " x vector length " + n(vector_length) + " is more than " +
           n(TeamLimits::kMaxThreads) + " threads per team";
  const uint64_t limit[2] = {TeamLimits::kMaxScratch0, TeamLimits::kMaxScratch1};
  for (int level = 0; level < 2; ++level)
    if (scratch_bytes(level) > limit[level])
      return "scratch level " + n(level) + " of " + format_size(scratch_bytes(level)) +
             " per team (" + n(static_cast<int64_t>(team_scratch[level])) + " bytes per team + " +
             n(static_cast<int64_t>(thread_scratch[level])) + " per thread x " + n(team_size) +
             " threads) is more than the " + format_size(limit[level]) + " a team may have";
  return {};
}

int recommended_team_size(const TeamShape& shape, bool gpus) {
  if (!gpus || shape.vector_length < 1) return 1;
  constexpr int64_t kThreadsPerSm = 2048, kBlocksPerSm = 32, kWarp = 32;
  constexpr uint64_t kSharedPerSm = 228 * 1024, kSharedReservedPerBlock = 1024;
  int64_t best_block = 0, best_threads = 0;
  for (int64_t block = BlockLimits::kMaxThreads; block >= kWarp; block -= kWarp) {
    const int64_t team = block / shape.vector_length;
    if (team < 1 || shape.scratch_bytes(0, team) > TeamLimits::kMaxScratch0 ||
        shape.scratch_bytes(1, team) > TeamLimits::kMaxScratch1)
      continue;
    const uint64_t shared = shape.scratch_bytes(0, team) + kSharedReservedPerBlock;
    const int64_t blocks = std::min(
        {kBlocksPerSm, kThreadsPerSm / block, static_cast<int64_t>(kSharedPerSm / shared)});
    const int64_t threads = blocks * block;
    if (threads > best_threads || (block >= 128 && threads == best_threads)) {
      best_block = block;
      best_threads = threads;
    }
  }
  return best_block == 0 ? 1 : static_cast<int>(best_block / shape.vector_length);
}

std::string scratch_exhausted_message(int level, uint64_t asked, uint64_t left, uint64_t capacity) {
  const auto n = [](uint64_t v) { return std::to_string(v); };
  return "a scratch View needs " + n(asked) + " bytes of level-" + std::to_string(level) +
         " scratch, but " + n(left) + " of the " + n(capacity) +
         " bytes per team remain: give the launch more with TeamPolicy::set_scratch_size(" +
         std::to_string(level) + ", Kokkos::PerTeam(bytes)) or PerThread";
}

}  // namespace lightning::kernel
