#include "planner/dependency_tracker.hpp"

#include <algorithm>

namespace lightning::planner {

void DependencyTracker::record(TaskId task, const ChunkAccess& access, std::vector<TaskId>& deps) {
  auto& entries = per_chunk_[access.chunk];
  const Rect& r = access.region;
  const bool writes = access.mode != ChunkAccessMode::kRead;

  for (const Entry& e : entries) {
    if (!e.region.intersects(r)) continue;
    if (e.is_write || writes) deps.insert(deps.end(), e.tasks.begin(), e.tasks.end());
  }

  if (writes) {
    // Covered entries are ordered before this write now: later conflicts meet the write.
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const Entry& e) { return r.contains(e.region); }),
                  entries.end());
    entries.push_back({r, true, {task}});
    return;
  }
  // A reader of a region some reader group already covers exactly joins that group.
  for (Entry& e : entries)
    if (!e.is_write && e.region == r) {
      if (e.tasks.back() != task) e.tasks.push_back(task);
      return;
    }
  entries.push_back({r, false, {task}});
}

void DependencyTracker::retire_before(TaskId first_live) {
  for (auto it = per_chunk_.begin(); it != per_chunk_.end();) {
    auto& entries = it->second;
    for (Entry& e : entries)
      e.tasks.erase(
          std::remove_if(e.tasks.begin(), e.tasks.end(), [&](TaskId t) { return t < first_live; }),
          e.tasks.end());
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const Entry& e) { return e.tasks.empty(); }),
                  entries.end());
    it = entries.empty() ? per_chunk_.erase(it) : std::next(it);
  }
}

size_t DependencyTracker::size() const {
  size_t n = 0;
  for (const auto& [chunk, entries] : per_chunk_) n += entries.size();
  return n;
}

}  // namespace lightning::planner
