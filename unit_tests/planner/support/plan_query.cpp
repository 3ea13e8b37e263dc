#include "plan_query.hpp"

#include <algorithm>
#include <map>

namespace lightning::planner::testing {

TaskFilter on_worker(WorkerId w) {
  return [w](const Task& t) { return t.worker == w; };
}
TaskFilter on_device(DeviceId d) {
  return [d](const Task& t) {
    if (const auto* e = std::get_if<ExecuteTask>(&t.kind)) return e->device == d;
    if (const auto* c = std::get_if<CreateChunkTask>(&t.kind)) return c->device == d;
    return false;
  };
}
TaskFilter with_id(TaskId id) {
  return [id](const Task& t) { return t.id == id; };
}
TaskFilter touches(ChunkId chunk) {
  return [chunk](const Task& t) {
    return std::any_of(t.accesses.begin(), t.accesses.end(),
                       [&](const ChunkAccess& a) { return a.chunk == chunk; });
  };
}
TaskFilter reads_from(ChunkId chunk) {
  return [chunk](const Task& t) {
    return std::any_of(t.accesses.begin(), t.accesses.end(),
                       [&](const ChunkAccess& a) { return a.chunk == chunk && reads(a.mode); });
  };
}
TaskFilter writes_to(ChunkId chunk) {
  return [chunk](const Task& t) {
    return std::any_of(t.accesses.begin(), t.accesses.end(),
                       [&](const ChunkAccess& a) { return a.chunk == chunk && writes(a.mode); });
  };
}
TaskFilter touches_region(ChunkId chunk, const Rect& region) {
  return [chunk, region](const Task& t) {
    return std::any_of(t.accesses.begin(), t.accesses.end(), [&](const ChunkAccess& a) {
      return a.chunk == chunk && a.region.rank() == region.rank() && a.region.intersects(region);
    });
  };
}
TaskFilter of_kernel(KernelId kernel) {
  return [kernel](const Task& t) {
    const auto* e = std::get_if<ExecuteTask>(&t.kind);
    return e && e->kernel == kernel;
  };
}
TaskFilter of_launch(LaunchId launch) {
  return [launch](const Task& t) {
    const auto* e = std::get_if<ExecuteTask>(&t.kind);
    return e && e->launch == launch;
  };
}
TaskFilter with_superblock(const Rect& threads) {
  return [threads](const Task& t) {
    const auto* e = std::get_if<ExecuteTask>(&t.kind);
    return e && e->superblock == threads;
  };
}
TaskFilter creates_temporary() {
  return [](const Task& t) {
    const auto* c = std::get_if<CreateChunkTask>(&t.kind);
    return c && c->temporary;
  };
}
TaskFilter creates_chunk_of(ArrayId array) {
  return [array](const Task& t) {
    const auto* c = std::get_if<CreateChunkTask>(&t.kind);
    return c && c->array == array;
  };
}
TaskFilter sends_to(WorkerId w) {
  return [w](const Task& t) {
    const auto* s = std::get_if<SendTask>(&t.kind);
    return s && s->to == w;
  };
}
TaskFilter receives_from(WorkerId w) {
  return [w](const Task& t) {
    const auto* r = std::get_if<RecvTask>(&t.kind);
    return r && r->from == w;
  };
}

TaskSet::TaskSet(std::shared_ptr<const detail::TaskGraph> graph, std::vector<size_t> members)
    : graph_(std::move(graph)), members_(std::move(members)) {
  std::sort(members_.begin(), members_.end());
  members_.erase(std::unique(members_.begin(), members_.end()), members_.end());
}

TaskSet TaskSet::make(std::vector<size_t> members) const {
  return TaskSet(graph_, std::move(members));
}

TaskSet TaskSet::filter(const TaskFilter& f) const {
  std::vector<size_t> out;
  for (size_t m : members_)
    if (f(graph_->tasks[m])) out.push_back(m);
  return make(std::move(out));
}

const Task& TaskSet::unique() const {
  if (members_.size() != 1)
    throw std::logic_error("expected exactly one task, found " + std::to_string(count()) +
                           (empty() ? std::string() : ":\n" + to_string()));
  return graph_->tasks[members_[0]];
}

std::vector<const Task*> TaskSet::tasks() const {
  std::vector<const Task*> out;
  for (size_t m : members_) out.push_back(&graph_->tasks[m]);
  return out;
}

std::vector<TaskId> TaskSet::ids() const {
  std::vector<TaskId> out;
  for (size_t m : members_) out.push_back(graph_->tasks[m].id);
  return out;
}

bool TaskSet::contains(TaskId id) const {
  auto it = graph_->index.find(id);
  return it != graph_->index.end() &&
         std::binary_search(members_.begin(), members_.end(), it->second);
}

TaskSet TaskSet::predecessors() const {
  std::vector<size_t> out;
  for (size_t m : members_) out.insert(out.end(), graph_->pred[m].begin(), graph_->pred[m].end());
  return make(std::move(out));
}

TaskSet TaskSet::successors() const {
  std::vector<size_t> out;
  for (size_t m : members_) out.insert(out.end(), graph_->succ[m].begin(), graph_->succ[m].end());
  return make(std::move(out));
}

std::vector<size_t> TaskSet::reachable(size_t from, bool forward) const {
  std::vector<uint8_t> seen(graph_->tasks.size(), 0);
  std::vector<size_t> stack{from}, out;
  while (!stack.empty()) {
    const size_t k = stack.back();
    stack.pop_back();
    for (size_t n : forward ? graph_->succ[k] : graph_->pred[k]) {
      if (seen[n]) continue;
      seen[n] = 1;
      out.push_back(n);
      stack.push_back(n);
    }
  }
  return out;
}

TaskSet TaskSet::transitive_predecessors() const {
  std::vector<size_t> out;
  for (size_t m : members_) {
    auto r = reachable(m, false);
    out.insert(out.end(), r.begin(), r.end());
  }
  return make(std::move(out));
}

TaskSet TaskSet::transitive_successors() const {
  std::vector<size_t> out;
  for (size_t m : members_) {
    auto r = reachable(m, true);
    out.insert(out.end(), r.begin(), r.end());
  }
  return make(std::move(out));
}

bool TaskSet::is_concurrent_with(const TaskSet& other) const {
  for (size_t m : members_) {
    auto fwd = reachable(m, true), bwd = reachable(m, false);
    for (size_t o : other.members_) {
      if (o == m) return false;
      if (std::find(fwd.begin(), fwd.end(), o) != fwd.end()) return false;
      if (std::find(bwd.begin(), bwd.end(), o) != bwd.end()) return false;
    }
  }
  return true;
}

bool TaskSet::all_concurrent() const {
  for (size_t m : members_) {
    auto fwd = reachable(m, true);
    for (size_t o : members_)
      if (o != m && std::find(fwd.begin(), fwd.end(), o) != fwd.end()) return false;
  }
  return true;
}

bool TaskSet::precedes(const TaskSet& other) const {
  if (empty() || other.empty()) return false;
  for (size_t m : members_) {
    auto fwd = reachable(m, true);
    std::sort(fwd.begin(), fwd.end());
    for (size_t o : other.members_)
      if (!std::binary_search(fwd.begin(), fwd.end(), o)) return false;
  }
  return true;
}

bool TaskSet::any_precedes(const TaskSet& other) const {
  for (size_t m : members_) {
    auto fwd = reachable(m, true);
    for (size_t o : other.members_)
      if (std::find(fwd.begin(), fwd.end(), o) != fwd.end()) return true;
  }
  return false;
}

TaskSet TaskSet::operator|(const TaskSet& other) const {
  std::vector<size_t> out = members_;
  out.insert(out.end(), other.members_.begin(), other.members_.end());
  return make(std::move(out));
}

TaskSet TaskSet::operator&(const TaskSet& other) const {
  std::vector<size_t> out;
  std::set_intersection(members_.begin(), members_.end(), other.members_.begin(),
                        other.members_.end(), std::back_inserter(out));
  return make(std::move(out));
}

TaskSet TaskSet::operator-(const TaskSet& other) const {
  std::vector<size_t> out;
  std::set_difference(members_.begin(), members_.end(), other.members_.begin(),
                      other.members_.end(), std::back_inserter(out));
  return make(std::move(out));
}

std::string TaskSet::to_string() const {
  std::string s;
  for (size_t m : members_) {
    const Task& t = graph_->tasks[m];
    s += describe(t) + " on " + t.worker.to_string() + "\n";
  }
  return s;
}

PlanQuery::PlanQuery(const std::vector<const Plan*>& plans)
    : graph_(std::make_shared<detail::TaskGraph>()) {
  auto& g = *graph_;
  for (const Plan* p : plans)
    for (const auto& fragment : p->fragments)
      for (const Task& t : fragment) {
        g.index.emplace(t.id, g.tasks.size());
        g.tasks.push_back(t);
      }
  g.pred.resize(g.tasks.size());
  g.succ.resize(g.tasks.size());
  std::map<uint64_t, size_t> sends;
  for (size_t k = 0; k < g.tasks.size(); ++k) {
    if (const auto* s = std::get_if<SendTask>(&g.tasks[k].kind)) sends[s->tag] = k;
  }
  for (size_t k = 0; k < g.tasks.size(); ++k) {
    for (TaskId d : g.tasks[k].deps) {
      auto it = g.index.find(d);
      if (it == g.index.end()) continue;
      g.pred[k].push_back(it->second);
      g.succ[it->second].push_back(k);
    }
    if (const auto* r = std::get_if<RecvTask>(&g.tasks[k].kind)) {
      if (auto it = sends.find(r->tag); it != sends.end()) {
        g.pred[k].push_back(it->second);
        g.succ[it->second].push_back(k);
      }
    }
  }
}

TaskSet PlanQuery::all() const {
  std::vector<size_t> members(graph_->tasks.size());
  for (size_t i = 0; i < members.size(); ++i) members[i] = i;
  return TaskSet(graph_, std::move(members));
}

const Task& PlanQuery::task(TaskId id) const {
  auto it = graph_->index.find(id);
  if (it == graph_->index.end()) throw std::logic_error("no task " + id.to_string());
  return graph_->tasks[it->second];
}

}  // namespace lightning::planner::testing
