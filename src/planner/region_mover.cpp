#include "planner/region_mover.hpp"

namespace lightning::planner {

ChunkRef chunk_ref(const ArrayState& array, size_t index) {
  return {array.chunk_ids[index], array.chunk_worker[index], (*array.layout)[index].box};
}

void RegionMover::assemble(const ArrayState& array, const Rect& region, const ChunkRef& into) {
  const DataLayout& layout = *array.layout;
  layout.homes_of(region, scratch_);
  for (size_t home : scratch_) {
    const Rect piece = layout[home].owned.intersection(region);
    if (piece.empty()) continue;
    size_t source = home;
    if (array.chunk_worker[home] != into.worker) {
      // Coherent copies make any holder a valid source: prefer one on the target's worker.
      const auto local = layout.find_containing(piece, into.worker);
      if (local && array.chunk_worker[*local] == into.worker) source = *local;
    }
    builder_.transfer(chunk_ref(array, source), into, piece);
  }
}

void RegionMover::propagate(const ArrayState& array, const Rect& region, const ChunkRef& from,
                            std::optional<size_t> from_index) {
  const DataLayout& layout = *array.layout;
  layout.copies_of(region, scratch_);
  for (size_t copy : scratch_) {
    if (from_index && copy == *from_index) continue;
    const Rect piece = layout[copy].box.intersection(region);
    if (piece.empty()) continue;
    builder_.transfer(from, chunk_ref(array, copy), piece);
  }
}

}  // namespace lightning::planner
