// A chunk's next planned use: what the scheduler thread tells the memory manager of the
// future, so that eviction keeps what will be used soonest.
#pragma once

#include <cstdint>
#include <limits>

#include "core/ids.hpp"

namespace lightning::worker {

/// No task the worker holds will use the chunk.
inline constexpr uint64_t kNoPlannedUse = std::numeric_limits<uint64_t>::max();

/// The id of the first task the worker holds that will still use `chunk` (task ids grow in
/// plan order), or kNoPlannedUse.
struct NextUse {
  ChunkId chunk;
  uint64_t task = kNoPlannedUse;
};

}  // namespace lightning::worker
