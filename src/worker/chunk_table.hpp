// The chunks a worker holds, as its tasks describe them: one table on the scheduler thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "core/data_type.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/rect.hpp"
#include "planner/task.hpp"

namespace lightning::worker {

/// What a chunk is: its box in array coordinates, its elements and where it prefers to live.
struct ChunkLayout {
  Rect box;
  size_t element_size = 0;
  DataType type = DataType::kUInt8;
  DeviceId device;     ///< its home device; invalid: host memory
  uint64_t bytes = 0;  ///< box volume times element size (rank 0: the value's size)
};

/// The layouts of the chunks a worker's tasks create, entered from their CreateChunk task when
/// it is submitted and removed when their DeleteChunk task is done. The scheduler budgets
/// staging with it and the worker places buffers with it; where a chunk's bytes are is the
/// memory manager's (on the staging thread).
class ChunkTable {
 public:
  void add(const planner::CreateChunkTask& t) {
    chunks_[t.chunk] = {t.box, t.element_size, t.type, t.device, t.bytes};
  }
  void remove(ChunkId chunk) { chunks_.erase(chunk); }

  /// The chunk's layout, or null for a chunk this worker never created.
  const ChunkLayout* find(ChunkId chunk) const {
    auto it = chunks_.find(chunk);
    return it == chunks_.end() ? nullptr : &it->second;
  }
  const ChunkLayout& at(ChunkId chunk) const {
    if (const ChunkLayout* c = find(chunk)) return *c;
    throw Error(ErrorKind::kInternal, "chunk " + chunk.to_string() + " is not on this worker");
  }
  size_t size() const { return chunks_.size(); }

 private:
  std::unordered_map<ChunkId, ChunkLayout> chunks_;
};

}  // namespace lightning::worker
