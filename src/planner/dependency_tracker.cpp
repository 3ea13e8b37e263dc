#include "planner/dependency_tracker.hpp"

#include <algorithm>

namespace lightning::planner {

void DependencyTracker::record(TaskId task, const ChunkAccess& access, std::vector<TaskId>& deps) {
  auto& entries = per_chunk_[access.chunk];
  const Rect& r = access.region;
  const bool writer = writes(access.mode);

  for (const Entry& e : entries) {
    if (!e.region.intersects(r)) continue;
    if (e.is_write || writer) deps.insert(deps.end(), e.tasks.begin(), e.tasks.end());
  }

  if (writer) {
    // Covered entries are ordered before this write now: later conflicts meet the write.
    // The first of them becomes the write's entry, keeping its storage.
    auto covered = std::partition(entries.begin(), entries.end(),
                                  [&](const Entry& e) { return !r.contains(e.region); });
    if (covered == entries.end()) {
      entries.push_back({r, true, {task}});
      return;
    }
    covered->region = r;
    covered->is_write = true;
    covered->tasks.assign(1, task);
    entries.erase(covered + 1, entries.end());
    return;
  }
  // A reader of a region some reader group already covers exactly joins that group.
  for (Entry& e : entries)
    if (!e.is_write && e.region == r) {
      if (e.tasks.empty() || e.tasks.back() != task) e.tasks.push_back(task);
      return;
    }
  entries.push_back({r, false, {task}});
}

void DependencyTracker::prune_readers(TaskId task, const std::vector<ChunkAccess>& accesses,
                                      const std::vector<TaskId>& deps) {
  if (deps.empty()) return;
  for (const ChunkAccess& a : accesses) {
    if (writes(a.mode)) continue;
    auto it = per_chunk_.find(a.chunk);
    if (it == per_chunk_.end()) continue;
    for (Entry& e : it->second) {
      if (e.is_write || e.region != a.region || e.tasks.size() < 2 || e.tasks.back() != task)
        continue;
      e.tasks.erase(
          std::remove_if(e.tasks.begin(), e.tasks.end() - 1,
                         [&](TaskId t) { return std::binary_search(deps.begin(), deps.end(), t); }),
          e.tasks.end() - 1);
      break;
    }
  }
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
    // The chunk stays (with its storage) until forget(): it is live, and will be used again.
    ++it;
  }
}

size_t DependencyTracker::largest_group() const {
  size_t n = 0;
  for (const auto& [chunk, entries] : per_chunk_)
    for (const Entry& e : entries) n = std::max(n, e.tasks.size());
  return n;
}

size_t DependencyTracker::size() const {
  size_t n = 0;
  for (const auto& [chunk, entries] : per_chunk_) n += entries.size();
  return n;
}

}  // namespace lightning::planner
