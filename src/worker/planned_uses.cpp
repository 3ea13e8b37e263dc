#include "worker/planned_uses.hpp"

#include <algorithm>

namespace lightning::worker {

void PlannedUses::add(TaskId task, ChunkId chunk) {
  Uses& u = chunks_[chunk];
  u.forgotten = false;
  const uint64_t t = task.value();
  if (!u.pending.empty() && u.pending[u.pending.size() - 1] >= t) return;  // a second access
  u.pending.push_back(t);
  if (u.pending.size() == 1) note_change(chunk, u);
}

void PlannedUses::end(TaskId task, ChunkId chunk) {
  auto it = chunks_.find(chunk);
  if (it == chunks_.end()) return;
  Uses& u = it->second;
  const uint64_t t = task.value();
  if (u.pending.empty() || u.pending.front() != t) {
    // Pending uses are sorted: is `t` one of them, behind an older one still pending? Then
    // remember it until it reaches the front.
    size_t lo = 0, hi = u.pending.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (u.pending[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < u.pending.size() && u.pending[lo] == t &&
        std::find(u.ended.begin(), u.ended.end(), t) == u.ended.end())
      u.ended.push_back(t);
    return;
  }
  u.pending.pop_front();
  while (!u.pending.empty()) {
    auto e = std::find(u.ended.begin(), u.ended.end(), u.pending.front());
    if (e == u.ended.end()) break;
    *e = u.ended.back();
    u.ended.pop_back();
    u.pending.pop_front();
  }
  note_change(chunk, u);
}

void PlannedUses::forget(ChunkId chunk) {
  auto it = chunks_.find(chunk);
  if (it == chunks_.end()) return;
  Uses& u = it->second;
  u.pending.clear();
  u.ended.clear();
  u.forgotten = true;
  note_change(chunk, u);
}

uint64_t PlannedUses::next_use(ChunkId chunk) const {
  auto it = chunks_.find(chunk);
  return it == chunks_.end() ? kNoPlannedUse : front(it->second);
}

void PlannedUses::note_change(ChunkId chunk, Uses& u) {
  if (u.changed) return;
  u.changed = true;
  changed_.push_back(chunk);
}

void PlannedUses::take_changes(std::vector<NextUse>& into) {
  into.clear();
  for (ChunkId chunk : changed_) {
    auto it = chunks_.find(chunk);
    Uses& u = it->second;
    u.changed = false;
    const uint64_t now = front(u);
    if (now != u.reported) into.push_back({chunk, now});  // else: changed and changed back
    u.reported = now;
    if (u.forgotten) chunks_.erase(it);
  }
  changed_.clear();
}

}  // namespace lightning::worker
