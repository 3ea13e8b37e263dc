#include "worker/planned_uses.hpp"

namespace lightning::worker {

namespace {
// A pending use that ended while an older one was still pending: marked, and dropped once it
// reaches the front (task ids stay far below this bit).
constexpr uint64_t kEnded = uint64_t(1) << 63;
}  // namespace

void PlannedUses::add(TaskId task, ChunkId chunk) {
  Uses& u = reused_.find_or_insert(chunks_, chunk)->second;
  u.forgotten = false;
  const uint64_t t = task.value();
  if (!u.pending.empty() && (u.pending[u.pending.size() - 1] & ~kEnded) >= t)
    return;  // a second access
  u.pending.push_back(t);
  if (u.pending.size() == 1) note_change(chunk, u);
}

void PlannedUses::end(TaskId task, ChunkId chunk) {
  auto it = chunks_.find(chunk);
  if (it == chunks_.end()) return;
  Uses& u = it->second;
  const uint64_t t = task.value();
  if (u.pending.empty()) return;
  if (u.pending.front() != t) {
    // Pending uses are sorted by task: is `t` one of them, behind an older one still
    // pending? Then mark it ended.
    size_t lo = 0, hi = u.pending.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if ((u.pending[mid] & ~kEnded) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < u.pending.size() && u.pending[lo] == t) u.pending[lo] |= kEnded;
    return;
  }
  u.pending.pop_front();
  while (!u.pending.empty() && (u.pending.front() & kEnded) != 0) u.pending.pop_front();
  note_change(chunk, u);
}

void PlannedUses::forget(ChunkId chunk) {
  auto it = chunks_.find(chunk);
  if (it == chunks_.end()) return;
  Uses& u = it->second;
  u.pending.clear();
  if (u.reported == kNoPlannedUse) {  // nothing to withdraw: gone at once
    if (u.changed) drop_change(u);
    release(it);
    return;
  }
  u.forgotten = true;  // its withdrawal goes with the next changes taken
  note_change(chunk, u);
}

uint64_t PlannedUses::next_use(ChunkId chunk) const {
  auto it = chunks_.find(chunk);
  return it == chunks_.end() ? kNoPlannedUse : front(it->second);
}

void PlannedUses::note_change(ChunkId chunk, Uses& u) {
  if (u.changed) return;
  u.changed = true;
  u.change_index = changed_.size();
  changed_.push_back(chunk);
}

void PlannedUses::drop_change(Uses& u) {
  const ChunkId last = changed_.back();
  changed_[u.change_index] = last;
  chunks_.at(last).change_index = u.change_index;
  changed_.pop_back();
  u.changed = false;
}

void PlannedUses::release(std::unordered_map<ChunkId, Uses>::iterator it) {
  Uses& u = it->second;
  u = Uses{std::move(u.pending)};  // a reused entry starts afresh, its ring keeping its storage
  reused_.erase(chunks_, it);
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
    if (u.forgotten) release(it);
  }
  changed_.clear();
}

}  // namespace lightning::worker
