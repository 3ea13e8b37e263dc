// Moving regions of an array between its chunks and temporaries: assembling a region that
// spans chunks, and updating every copy after a write.
#pragma once

#include <optional>
#include <vector>

#include "core/rect.hpp"
#include "planner/array_state.hpp"
#include "planner/plan_builder.hpp"

namespace lightning::planner {

/// The ChunkRef of chunk `index` of `array`.
ChunkRef chunk_ref(const ArrayState& array, size_t index);

/// Emits the transfers that bring regions of arrays into chunks and out of them again,
/// through a PlanBuilder. Holds scratch space so the per-superblock paths do not allocate.
class RegionMover {
 public:
  explicit RegionMover(PlanBuilder& builder) : builder_(builder) {}

  /// Fills `into` (a chunk of worker into.worker holding `region`) with the current contents
  /// of `region`: each piece comes from the home of its elements, or from a copy on the
  /// target's worker when there is one (a Copy instead of a Send/Recv).
  void assemble(const ArrayState& array, const Rect& region, const ChunkRef& into);

  /// After `from` was written over `region`, updates every chunk of `array` that holds part of
  /// it, except chunk `from_index` (when `from` is one of the array's chunks).
  void propagate(const ArrayState& array, const Rect& region, const ChunkRef& from,
                 std::optional<size_t> from_index);

 private:
  PlanBuilder& builder_;
  std::vector<size_t> scratch_;
};

}  // namespace lightning::planner
