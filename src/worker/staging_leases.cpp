#include "worker/staging_leases.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

auto key_of(ChunkId chunk, const MemorySpace& where) {
  return std::make_tuple(chunk, where.kind, where.is_device() ? where.device : DeviceId());
}

}  // namespace

void StagingLeases::merge(const std::vector<StageRequest>& requests, std::vector<Held>& held,
                          std::vector<uint32_t>& slot) {
  held.clear();
  for (const StageRequest& r : requests) {
    auto same = std::find_if(held.begin(), held.end(), [&](const Held& h) {
      return h.chunk == r.chunk && h.where == r.where;
    });
    if (same != held.end())
      same->write = same->write || r.will_write;
    else
      held.push_back({r.chunk, r.where, r.will_write, nullptr});
  }
  std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) {
    return key_of(a.chunk, a.where) < key_of(b.chunk, b.where);
  });
  slot.clear();
  for (const StageRequest& r : requests)
    for (uint32_t i = 0; i < held.size(); ++i)
      if (held[i].chunk == r.chunk && held[i].where == r.where) {
        slot.push_back(i);
        break;
      }
}

void StagingLeases::requested(TaskId task, const std::vector<StageRequest>& requests) {
  Entry& e = tasks_[task];
  e.token = task;
  e.staged = false;
  e.sharers.clear();
  merge(requests, e.held, e.slot);
}

StagingLeases::Share StagingLeases::share(TaskId task, const std::vector<StageRequest>& requests,
                                          const std::vector<TaskId>& holders,
                                          std::vector<void*>* pointers) {
  merge(requests, probe_, probe_slot_);
  for (TaskId h : holders) {
    auto it = tasks_.find(h);
    if (it == tasks_.end()) continue;
    const std::vector<Held>& held = it->second.held;
    if (held.size() != probe_.size()) continue;
    bool same = true;
    for (size_t i = 0; i < held.size() && same; ++i)
      same = held[i].chunk == probe_[i].chunk && held[i].where == probe_[i].where &&
             held[i].write == probe_[i].write;
    if (!same) continue;
    // Both lists are sorted alike: a request's slot in the probe is its slot in `held`.
    Entry& e = tasks_[task];  // references into the map stay valid as it grows
    e.token = it->second.token;
    e.held = held;
    e.slot = probe_slot_;
    e.sharers.clear();
    e.staged = it->second.staged;
    if (!e.staged) {
      it->second.sharers.push_back(task);
      return Share::kPending;
    }
    ++holders_[e.token];
    pointers->resize(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) (*pointers)[i] = e.held[e.slot[i]].data;
    return Share::kShared;
  }
  return Share::kNo;
}

StagingLeases::Settled StagingLeases::staged(TaskId task, const std::vector<void*>& pointers) {
  Settled settled;
  auto it = tasks_.find(task);
  if (it == tasks_.end()) return settled;
  Entry& e = it->second;
  if (e.staged) return settled;  // shared: its pointers are known
  if (pointers.size() != e.slot.size())
    throw Error(ErrorKind::kInternal, "staging leases: task " + task.to_string() + " staged " +
                                          std::to_string(pointers.size()) + " chunks of " +
                                          std::to_string(e.slot.size()) + " requested");
  for (size_t i = 0; i < pointers.size(); ++i) e.held[e.slot[i]].data = pointers[i];
  settle(task, e.held, settled);
  settled.erase(settled.begin());  // the task itself: its pointers came with the call
  return settled;
}

void StagingLeases::settle(TaskId task, const std::vector<Held>& held, Settled& settled) {
  Entry& e = tasks_.at(task);
  e.staged = true;
  ++holders_[e.token];
  for (size_t k = 0; k < held.size(); ++k) e.held[k].data = held[k].data;  // sorted alike
  std::vector<void*> pointers(e.slot.size());
  for (size_t i = 0; i < e.slot.size(); ++i) pointers[i] = e.held[e.slot[i]].data;
  settled.emplace_back(task, std::move(pointers));
  const std::vector<TaskId> sharers = std::move(e.sharers);
  e.sharers.clear();
  for (TaskId s : sharers) settle(s, e.held, settled);
}

StagingLeases::Settled StagingLeases::not_staged(TaskId task) {
  Settled settled;
  if (tasks_.count(task) == 0) return settled;
  drop(task, settled);
  settled.erase(settled.begin());
  return settled;
}

void StagingLeases::drop(TaskId task, Settled& settled) {
  auto it = tasks_.find(task);
  const std::vector<TaskId> sharers = std::move(it->second.sharers);
  tasks_.erase(it);
  settled.emplace_back(task, std::vector<void*>());
  for (TaskId s : sharers) drop(s, settled);
}

std::optional<TaskId> StagingLeases::release(TaskId task) {
  auto it = tasks_.find(task);
  if (it == tasks_.end() || !it->second.staged)
    throw Error(ErrorKind::kInternal,
                "staging leases: task " + task.to_string() + " releases chunks it does not hold");
  const TaskId token = it->second.token;
  tasks_.erase(it);
  auto h = holders_.find(token);
  if (--h->second > 0) return std::nullopt;
  holders_.erase(h);
  return token;
}

TaskId StagingLeases::token(TaskId task) const {
  auto it = tasks_.find(task);
  return it == tasks_.end() ? task : it->second.token;
}

int StagingLeases::holders(TaskId token) const {
  auto it = holders_.find(token);
  return it == holders_.end() ? 0 : it->second;
}

}  // namespace lightning::worker
