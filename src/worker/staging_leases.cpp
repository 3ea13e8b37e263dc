#include "worker/staging_leases.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

bool same_requests(const std::vector<StageRequest>& a, const std::vector<StageRequest>& b) {
  return std::equal(
      a.begin(), a.end(), b.begin(), b.end(), [](const StageRequest& x, const StageRequest& y) {
        return x.chunk == y.chunk && x.where == y.where && x.will_write == y.will_write;
      });
}

}  // namespace

StagingLeases::Entry& StagingLeases::entry(TaskId task) {
  Entry& e = reused_.find_or_insert(tasks_, task)->second;
  e.token = task;
  e.staged = false;
  e.requests.clear();
  e.pointers.clear();
  e.sharers.clear();
  return e;
}

void StagingLeases::requested(TaskId task, const std::vector<StageRequest>& requests) {
  Entry& e = entry(task);
  e.requests.assign(requests.begin(), requests.end());
}

StagingLeases::Share StagingLeases::share(TaskId task, const std::vector<StageRequest>& requests,
                                          const std::vector<TaskId>& holders) {
  for (TaskId h : holders) {
    auto it = tasks_.find(h);
    if (it == tasks_.end() || !same_requests(it->second.requests, requests)) continue;
    Entry& holder = it->second;  // references into the map stay valid as it grows
    Entry& e = entry(task);
    e.token = holder.token;
    e.requests.assign(requests.begin(), requests.end());
    if (!holder.staged) {
      holder.sharers.push_back(task);
      return Share::kPending;
    }
    e.staged = true;
    e.pointers.assign(holder.pointers.begin(), holder.pointers.end());
    ++holders_[e.token];
    return Share::kShared;
  }
  return Share::kNo;
}

StagingLeases::Settled StagingLeases::staged(TaskId task, const std::vector<void*>& pointers) {
  Settled settled;
  auto it = tasks_.find(task);
  if (it == tasks_.end() || it->second.staged) return settled;  // shared: pointers known
  if (pointers.size() != it->second.requests.size())
    throw Error(ErrorKind::kInternal, "staging leases: task " + task.to_string() + " staged " +
                                          std::to_string(pointers.size()) + " chunks of " +
                                          std::to_string(it->second.requests.size()) +
                                          " requested");
  settle(task, pointers, settled);
  return settled;
}

void StagingLeases::settle(TaskId task, const std::vector<void*>& pointers, Settled& settled) {
  Entry& e = tasks_.at(task);
  e.staged = true;
  e.pointers.assign(pointers.begin(), pointers.end());
  ++holders_[e.token];
  for (TaskId s : e.sharers) {  // settling a sharer touches its entry only
    settled.push_back(s);
    settle(s, pointers, settled);
  }
  e.sharers.clear();
}

StagingLeases::Settled StagingLeases::not_staged(TaskId task) {
  Settled settled;
  if (tasks_.count(task) != 0) drop(task, settled);
  return settled;
}

void StagingLeases::drop(TaskId task, Settled& settled) {
  auto it = tasks_.find(task);
  std::vector<TaskId> sharers;
  sharers.swap(it->second.sharers);
  reused_.erase(tasks_, it);
  for (TaskId s : sharers) {
    settled.push_back(s);
    drop(s, settled);
  }
}

std::optional<TaskId> StagingLeases::release(TaskId task) {
  auto it = tasks_.find(task);
  if (it == tasks_.end() || !it->second.staged)
    throw Error(ErrorKind::kInternal,
                "staging leases: task " + task.to_string() + " releases chunks it does not hold");
  const TaskId token = it->second.token;
  reused_.erase(tasks_, it);
  auto h = holders_.find(token);
  if (--h->second > 0) return std::nullopt;
  holders_.erase(h);
  return token;
}

const std::vector<void*>& StagingLeases::pointers(TaskId task) const {
  static const std::vector<void*> kNone;
  auto it = tasks_.find(task);
  return it == tasks_.end() || !it->second.staged ? kNone : it->second.pointers;
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
