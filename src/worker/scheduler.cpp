#include "worker/scheduler.hpp"

#include <algorithm>
#include <variant>

#include "core/error.hpp"

namespace lightning::worker {

using planner::Task;

Scheduler::Scheduler(SchedulerSink& sink, uint64_t staging_limit,
                     std::vector<DeviceId> ordered_devices,
                     const std::vector<std::pair<DeviceId, uint64_t>>& device_memory)
    : sink_(sink), staging_limit_(staging_limit), ordered_devices_(std::move(ordered_devices)) {
  for (const auto& [device, bytes] : device_memory)
    staged_[device.value()].limit = std::min(staging_limit, bytes / kStagedShareOfMemory);
}

bool Scheduler::needs_staging(const Task& t) const {
  return !std::holds_alternative<planner::CreateChunkTask>(t.kind) &&
         !std::holds_alternative<planner::DeleteChunkTask>(t.kind) &&
         !std::holds_alternative<planner::BarrierTask>(t.kind) && !t.accesses.empty();
}

bool Scheduler::follows_launches(const Node& n) const {
  if (std::holds_alternative<planner::ExecuteTask>(n.task.kind)) return true;
  return std::holds_alternative<planner::HostReadTask>(n.task.kind) && n.bytes <= kSmallRead;
}

// n.device is an Execute's device, and a HostRead's chunk's home.
bool Scheduler::issuable_behind(const Node& n, std::vector<TaskId>* behind) const {
  if (n.failed_dependency.valid() || !n.device.valid() || !follows_launches(n) ||
      std::find(ordered_devices_.begin(), ordered_devices_.end(), n.device) ==
          ordered_devices_.end())
    return false;
  for (TaskId d : n.task.deps) {
    auto it = nodes_.find(d);
    if (it == nodes_.end()) continue;  // done
    const Node& dep = it->second;
    const auto* de = std::get_if<planner::ExecuteTask>(&dep.task.kind);
    if (!de || de->device != n.device ||
        (dep.state != State::kStaging && dep.state != State::kRunning)) {
      if (behind) behind->clear();
      return false;
    }
    if (behind) behind->push_back(d);
  }
  return true;
}

bool Scheduler::stageable_after_creations(const Node& n) const {
  if (n.failed_dependency.valid() || !needs_staging(n.task)) return false;
  size_t unfinished = 0;
  for (TaskId d : n.task.deps) {
    auto it = nodes_.find(d);
    if (it == nodes_.end()) continue;  // done
    const Node& dep = it->second;
    if (!std::holds_alternative<planner::CreateChunkTask>(dep.task.kind) ||
        dep.state != State::kRunning)
      return false;
    ++unfinished;
  }
  return unfinished == n.waiting_for;  // (a Recv's missing message counts too)
}

void Scheduler::ready_successors_early(const Node& n) {
  for (TaskId s : n.successors) {
    Node& succ = nodes_.at(s);
    if (succ.state == State::kWaiting && ready_early(succ)) make_ready(succ);
  }
}

void Scheduler::submit(std::vector<Task> tasks) {
  for (Task& task : tasks) {
    bool fresh = false;
    const TaskId id = task.id;
    auto it = reused_nodes_.find_or_insert(nodes_, id, &fresh);
    if (!fresh) throw Error(ErrorKind::kInternal, "task " + id.to_string() + " submitted twice");
    Node& n = it->second;  // a reused node: every field is set here (successors keep storage)
    n.task = std::move(task);
    n.state = State::kWaiting;
    n.waiting_for = 0;
    n.successors.clear();
    n.failed_dependency = TaskId();
    n.device = DeviceId();
    n.bytes = 0;
    n.issued_behind = false;
    n.after_creations = false;
    const Task& t = n.task;
    if (const auto* c = std::get_if<planner::CreateChunkTask>(&t.kind)) chunks_.add(*c);
    // Budget: an Execute counts on its device, other tasks on their first chunk's home.
    if (const auto* e = std::get_if<planner::ExecuteTask>(&t.kind)) n.device = e->device;
    for (const auto& a : t.accesses) {
      const ChunkLayout* chunk = chunks_.find(a.chunk);
      if (!chunk) continue;
      if (!n.device.valid()) n.device = chunk->device;
      n.bytes += chunk->bytes;
    }
    for (TaskId d : t.deps) {
      auto dep = nodes_.find(d);
      if (dep == nodes_.end()) {  // finished already
        if (auto f = failed_.find(d); f != failed_.end() && !n.failed_dependency.valid())
          n.failed_dependency = f->second;
        continue;
      }
      dep->second.successors.push_back(t.id);
      ++n.waiting_for;
    }
    if (const auto* r = std::get_if<planner::RecvTask>(&t.kind)) {
      if (auto arrived = arrived_tags_.find(r->tag); arrived != arrived_tags_.end()) {
        if (arrived->second.valid() && !n.failed_dependency.valid())
          n.failed_dependency = arrived->second;
        arrived_tags_.erase(arrived);
      } else {
        recv_of_tag_[r->tag] = t.id;
        ++n.waiting_for;
      }
    }
    if (it->second.waiting_for == 0 || ready_early(it->second)) make_ready(it->second);
  }
  pump();
}

void Scheduler::make_ready(Node& n) {
  n.state = State::kReady;
  ready_.push(n.task.id);
}

void Scheduler::pump() {
  // Tasks held back by their device's budget wait in held_ until the next pump.
  held_.clear();
  while (!ready_.empty()) {
    const TaskId id = ready_.top();
    ready_.pop();
    Node& n = nodes_.at(id);
    // Readied behind its dependencies: still so? (One may have failed or gone back to waiting.)
    std::vector<TaskId>& behind = behind_;
    behind.clear();
    bool after_creations = false;
    if (n.waiting_for > 0 && !issuable_behind(n, &behind)) {
      after_creations = stageable_after_creations(n);
      if (!after_creations) {
        n.state = State::kWaiting;
        continue;
      }
    }
    // Freeing memory and fences run whatever failed before them: the rest is skipped.
    const bool runs_anyway = std::holds_alternative<planner::DeleteChunkTask>(n.task.kind) ||
                             std::holds_alternative<planner::BarrierTask>(n.task.kind);
    if (n.failed_dependency.valid() && !runs_anyway) {
      finish(n, planner::skipped_because(n.task, n.failed_dependency));
      continue;
    }
    if (!needs_staging(n.task)) {
      n.state = State::kRunning;
      sink_.run(n.task);
      if (std::holds_alternative<planner::CreateChunkTask>(n.task.kind)) ready_successors_early(n);
      continue;
    }
    if (n.device.valid()) {
      auto [it, added] = staged_.try_emplace(n.device.value());
      Staged& staged = it->second;
      if (added) staged.limit = staging_limit_;
      if (staged.tasks >= kAlwaysStaged && staged.bytes + n.bytes > staged.limit) {
        held_.push_back(id);
        continue;
      }
      staged.bytes += n.bytes;
      ++staged.tasks;
    }
    n.state = State::kStaging;
    n.issued_behind = !behind.empty();
    n.after_creations = after_creations;
    if (n.issued_behind)
      sink_.stage_behind(n.task, behind);
    else
      sink_.stage(n.task);
    ready_successors_early(n);
  }
  for (TaskId id : held_) ready_.push(id);
}

bool Scheduler::all_dependencies_running(const Node& n) const {
  for (TaskId d : n.task.deps) {
    auto it = nodes_.find(d);
    if (it != nodes_.end() && it->second.state != State::kRunning) return false;
  }
  return true;
}

void Scheduler::on_staged(TaskId id) {
  Node& n = nodes_.at(id);
  if (n.after_creations) {
    // Its creations ended before (the staging thread answers in order): failed, or done.
    n.after_creations = false;
    if (n.failed_dependency.valid()) {
      sink_.unstage(n.task, true);
      unbudget(n);
      finish(n, planner::skipped_because(n.task, n.failed_dependency));
      return pump();
    }
    if (n.waiting_for != 0) {  // answered out of order: unstaged, it waits for them after all
      sink_.unstage(n.task, false);
      unbudget(n);
      n.state = State::kWaiting;
      return pump();
    }
  }
  // Staged behind launches that were staged first, so each is running now, unless one failed
  // or went back to waiting (staged behind a launch that failed): then it waits, unstaged,
  // for them as any task does, and never runs before them.
  if (n.issued_behind && (n.failed_dependency.valid() || !all_dependencies_running(n))) {
    sink_.unstage(n.task, false);
    unbudget(n);
    n.issued_behind = false;
    n.state = State::kWaiting;
    if (n.waiting_for == 0) make_ready(n);
    return pump();
  }
  n.state = State::kRunning;
  sink_.run(n.task);
  ready_successors_early(n);
  pump();
}

void Scheduler::on_not_in_place(TaskId id) {
  Node& n = nodes_.at(id);
  unbudget(n);
  n.issued_behind = false;
  n.state = State::kWaiting;
  if (n.waiting_for == 0) make_ready(n);
  pump();
}

void Scheduler::on_failed(TaskId id, planner::TaskFailure failure) {
  Node& n = nodes_.at(id);
  // Staged behind others: staged again the ordinary way, which reports what still fails.
  if (n.issued_behind) return on_not_in_place(id);
  unbudget(n);
  // Staged after a creation that failed: its chunk is unknown, and the creation says why.
  if (n.after_creations && n.failed_dependency.valid())
    failure = planner::skipped_because(n.task, n.failed_dependency);
  n.after_creations = false;
  finish(n, std::move(failure));
  pump();
}

void Scheduler::unbudget(const Node& n) {
  if (!n.device.valid()) return;
  Staged& staged = staged_[n.device.value()];
  staged.bytes -= n.bytes;
  --staged.tasks;
}

void Scheduler::on_ran(TaskId id, std::optional<planner::TaskFailure> failure) {
  Node& n = nodes_.at(id);
  if (n.issued_behind) {
    // Its dependencies ran before it on the same queue, and their ends were reported first.
    if (n.waiting_for != 0)
      throw Error(ErrorKind::kInternal,
                  "task " + id.to_string() + " issued behind others ended before one of them");
    if (n.failed_dependency.valid())
      failure = planner::skipped_because(n.task, n.failed_dependency);
  }
  if (needs_staging(n.task)) {
    sink_.unstage(n.task, true);
    unbudget(n);
  }
  finish(n, std::move(failure));
  pump();
}

void Scheduler::on_message(uint64_t tag, TaskId failed) {
  auto it = recv_of_tag_.find(tag);
  if (it == recv_of_tag_.end()) {
    arrived_tags_[tag] = failed;  // its Recv comes with a later fragment
    return;
  }
  Node& n = nodes_.at(it->second);
  recv_of_tag_.erase(it);
  if (failed.valid() && !n.failed_dependency.valid()) n.failed_dependency = failed;
  if (--n.waiting_for == 0) make_ready(n);
  pump();
}

void Scheduler::finish(Node& n, std::optional<planner::TaskFailure> failure) {
  if (failure) planner::identify(*failure, n.task);
  sink_.completed(n.task, failure);
  if (const auto* d = std::get_if<planner::DeleteChunkTask>(&n.task.kind)) chunks_.remove(d->chunk);
  // What its successors are skipped because of: the failed task at the root.
  TaskId root;
  if (failure) {
    root = failure->skipped() ? failure->caused_by : n.task.id;
    failed_.emplace(n.task.id, root);
  }
  for (TaskId s : n.successors) {
    Node& succ = nodes_.at(s);
    if (root.valid() && !succ.failed_dependency.valid()) succ.failed_dependency = root;
    // One issued behind it is staging or running already (or ready, and staged as any task).
    if (--succ.waiting_for == 0 && succ.state == State::kWaiting) make_ready(succ);
  }
  // The node goes (kept for reuse); its successors are swapped out first, storage for storage.
  std::vector<TaskId>& successors = finished_successors_;
  successors.clear();
  successors.swap(n.successors);
  reused_nodes_.erase(nodes_, nodes_.find(n.task.id));
  // Those still waiting may now wait only for launches they can be issued behind, or for
  // creations under way.
  for (TaskId s : successors) {
    Node& succ = nodes_.at(s);
    if (succ.state == State::kWaiting && ready_early(succ)) make_ready(succ);
  }
}

uint64_t Scheduler::staged_bytes(DeviceId device) const {
  auto it = staged_.find(device.value());
  return it == staged_.end() ? 0 : it->second.bytes;
}

}  // namespace lightning::worker
