#include "plan_checker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace lightning::planner::testing {

namespace {

constexpr size_t kMaxPrinted = 30;

auto access_key(const ChunkAccess& a) {
  return std::make_tuple(a.chunk, a.region, static_cast<int>(a.mode));
}

bool same_accesses(std::vector<ChunkAccess> a, std::vector<ChunkAccess> b) {
  auto less = [](const ChunkAccess& x, const ChunkAccess& y) {
    return access_key(x) < access_key(y);
  };
  std::sort(a.begin(), a.end(), less);
  std::sort(b.begin(), b.end(), less);
  return std::equal(
      a.begin(), a.end(), b.begin(), b.end(),
      [](const ChunkAccess& x, const ChunkAccess& y) { return access_key(x) == access_key(y); });
}

void set_bit(std::vector<uint64_t>& bits, size_t i) {
  if (bits.size() <= i / 64) bits.resize(i / 64 + 1, 0);
  bits[i / 64] |= uint64_t{1} << (i % 64);
}

void or_into(std::vector<uint64_t>& dst, const std::vector<uint64_t>& src) {
  if (dst.size() < src.size()) dst.resize(src.size(), 0);
  for (size_t i = 0; i < src.size(); ++i) dst[i] |= src[i];
}

}  // namespace

PlanChecker::PlanChecker(DeviceSet devices, std::function<size_t(ArrayId)> elem_size)
    : devices_(std::move(devices)), elem_size_(std::move(elem_size)) {}

void PlanChecker::fail(const std::string& message) {
  ++violations_;
  if (++printed_ <= kMaxPrinted) ADD_FAILURE() << context_ << "plan checker: " << message;
}

bool PlanChecker::ancestor(const TaskInfo& of, size_t order) const {
  return order / 64 < of.ancestors.size() && ((of.ancestors[order / 64] >> (order % 64)) & 1);
}

bool PlanChecker::reaches(TaskId a, TaskId b) const {
  auto ia = tasks_.find(a), ib = tasks_.find(b);
  if (ia == tasks_.end() || ib == tasks_.end()) return false;
  return ancestor(ib->second, ia->second.order);
}

size_t PlanChecker::check(const Plan& plan) {
  const size_t before = violations_;
  const uint64_t plan_no = plans_++;
  const std::string in_plan = " (plan of request " + plan.request.to_string() + ")";

  if (plan.fragments.size() != devices_.num_workers()) {
    fail("plan has " + std::to_string(plan.fragments.size()) + " fragments for " +
         std::to_string(devices_.num_workers()) + " workers" + in_plan);
  }

  // Index this plan's tasks: position in the fragment.
  struct Local {
    const Task* task;
    size_t worker;
    size_t pos;
  };
  std::vector<Local> local;
  std::unordered_map<TaskId, size_t> index;
  for (size_t w = 0; w < plan.fragments.size(); ++w) {
    for (size_t i = 0; i < plan.fragments[w].size(); ++i) {
      const Task& t = plan.fragments[w][i];
      if (t.worker != WorkerId(w))
        fail(describe(t) + " is in the fragment of W" + std::to_string(w) + " but says " +
             t.worker.to_string() + in_plan);
      if (!t.id.valid() || tasks_.count(t.id) || !index.emplace(t.id, local.size()).second) {
        fail(describe(t) + ": task id used twice" + in_plan);
        continue;
      }
      local.push_back({&t, w, i});
    }
  }
  const size_t n = local.size();

  // Dependencies, accesses, host buffers.
  std::vector<std::vector<size_t>> succ(n);
  std::vector<int> indeg(n, 0);
  for (size_t k = 0; k < n; ++k) {
    const Task& t = *local[k].task;
    for (TaskId d : t.deps) {
      if (auto it = index.find(d); it != index.end()) {
        const Local& l = local[it->second];
        if (l.worker != local[k].worker || l.pos >= local[k].pos) {
          fail(describe(t) + " depends on " + describe(*l.task) + " on W" +
               std::to_string(l.worker) + ", not an earlier task of its worker" + in_plan);
          continue;
        }
        succ[it->second].push_back(k);
        ++indeg[k];
      } else if (auto jt = tasks_.find(d); jt != tasks_.end()) {
        if (jt->second.worker != t.worker)
          fail(describe(t) + " depends on " + jt->second.description + " of another worker" +
               in_plan);
      } else {
        fail(describe(t) + " depends on " + d.to_string() + ", which is no earlier task" + in_plan);
      }
    }
    if (!same_accesses(t.accesses, accesses_of(t.kind)))
      fail(describe(t) + ": `accesses` differ from accesses_of(kind)" + in_plan);

    auto host_check = [&](const Rect& host_box, const Rect& region) {
      if (t.worker != WorkerId(0))
        fail(describe(t) + ": touches a host buffer on " + t.worker.to_string() +
             ", not the driver" + in_plan);
      if (host_box.rank() != region.rank() || !host_box.contains(region))
        fail(describe(t) + ": region " + region.to_string() + " is not inside the host box " +
             host_box.to_string() + in_plan);
    };
    auto device_check = [&](DeviceId d) {
      // A worker without devices keeps its chunks in host memory: no device to name.
      if (!d.valid() && devices_.device_count(t.worker) == 0) return;
      if (!devices_.contains(d) || devices_.worker_of(d) != t.worker)
        fail(describe(t) + ": device " + d.to_string() + " is not a device of " +
             t.worker.to_string() + in_plan);
    };
    if (const auto* k2 = std::get_if<HostWriteTask>(&t.kind)) host_check(k2->host_box, k2->region);
    if (const auto* k2 = std::get_if<HostReadTask>(&t.kind)) host_check(k2->host_box, k2->region);
    if (const auto* k2 = std::get_if<SendTask>(&t.kind); k2 && !k2->src.valid())
      host_check(k2->host_box, k2->region);
    if (const auto* k2 = std::get_if<RecvTask>(&t.kind); k2 && !k2->dst.valid())
      host_check(k2->host_box, k2->region);
    if (const auto* k2 = std::get_if<CreateChunkTask>(&t.kind)) {
      device_check(k2->device);
      if (k2->box.rank() > 0 && elem_size_ &&
          k2->bytes != static_cast<uint64_t>(k2->box.volume()) * elem_size_(k2->array))
        fail(describe(t) + ": bytes " + std::to_string(k2->bytes) + " != volume x element size" +
             in_plan);
      if (k2->box.rank() > 0 && k2->box.empty()) fail(describe(t) + ": empty chunk box" + in_plan);
    }
    if (const auto* k2 = std::get_if<ExecuteTask>(&t.kind)) {
      device_check(k2->device);
      if (k2->superblock.empty()) fail(describe(t) + ": empty superblock" + in_plan);
    }
  }

  // Send/Recv pairs.
  std::map<uint64_t, std::vector<size_t>> sends, recvs;
  for (size_t k = 0; k < n; ++k) {
    if (const auto* s = std::get_if<SendTask>(&local[k].task->kind)) sends[s->tag].push_back(k);
    if (const auto* r = std::get_if<RecvTask>(&local[k].task->kind)) recvs[r->tag].push_back(k);
  }
  for (const auto& [tag, ks] : sends) {
    const Task& st = *local[ks[0]].task;
    if (ks.size() > 1) fail("tag " + std::to_string(tag) + " has several Sends" + in_plan);
    if (tags_.count(tag)) fail(describe(st) + ": tag reused from an earlier plan" + in_plan);
    auto it = recvs.find(tag);
    if (it == recvs.end() || it->second.size() != 1) {
      fail(describe(st) + ": " +
           (it == recvs.end() ? std::string("no Recv") : std::string("several Recvs")) +
           " with its tag" + in_plan);
      continue;
    }
    const size_t rk = it->second[0];
    const Task& rt = *local[rk].task;
    const auto& s = std::get<SendTask>(st.kind);
    const auto& r = std::get<RecvTask>(rt.kind);
    if (s.to != rt.worker || r.from != st.worker || st.worker == rt.worker)
      fail(describe(st) + " is received by " + describe(rt) + " on " + rt.worker.to_string() +
           in_plan);
    if (s.region != r.region)
      fail(describe(st) + " and " + describe(rt) + " name different regions" + in_plan);
    succ[ks[0]].push_back(rk);
    ++indeg[rk];
  }
  for (const auto& [tag, ks] : recvs) {
    if (!sends.count(tag)) fail(describe(*local[ks[0]].task) + ": no Send with its tag" + in_plan);
    if (tags_.count(tag))
      fail(describe(*local[ks[0]].task) + ": tag reused from an earlier plan" + in_plan);
  }
  for (const auto& [tag, ks] : sends) tags_.insert(tag);

  // A topological order over deps and Send->Recv edges (Kahn, fragment order as tie-break).
  std::vector<size_t> order;
  order.reserve(n);
  {
    std::vector<int> deg = indeg;
    std::vector<size_t> stack;
    for (size_t k = n; k-- > 0;)
      if (deg[k] == 0) stack.push_back(k);
    while (!stack.empty()) {
      const size_t k = stack.back();
      stack.pop_back();
      order.push_back(k);
      for (size_t s : succ[k])
        if (--deg[s] == 0) stack.push_back(s);
    }
  }
  if (order.size() != n) {
    fail("the plan's tasks and Send->Recv edges form a cycle: it would deadlock" + in_plan);
    return violations_ - before;
  }
  // Predecessors in the plan (for reachability).
  std::vector<std::vector<size_t>> pred(n);
  for (size_t k = 0; k < n; ++k)
    for (size_t s : succ[k]) pred[s].push_back(k);

  std::vector<ChunkId> temporaries;
  for (size_t k : order) {
    const Task& t = *local[k].task;
    TaskInfo info;
    info.order = next_order_++;
    info.worker = t.worker;
    info.description = describe(t);
    info.accesses = t.accesses;
    for (TaskId d : t.deps) {
      auto it = tasks_.find(d);
      if (it == tasks_.end()) continue;
      or_into(info.ancestors, it->second.ancestors);
      set_bit(info.ancestors, it->second.order);
    }
    for (size_t p : pred[k]) {  // Send -> Recv (deps are covered above)
      const TaskInfo& pi = tasks_.at(local[p].task->id);
      or_into(info.ancestors, pi.ancestors);
      set_bit(info.ancestors, pi.order);
    }

    // Chunk lifetime.
    if (const auto* c = std::get_if<CreateChunkTask>(&t.kind)) {
      if (chunks_.count(c->chunk))
        fail(info.description + ": chunk " + c->chunk.to_string() + " exists already" + in_plan);
      chunks_[c->chunk] = {t.worker, c->box, c->temporary, plan_no, c->array};
      ever_created_.insert(c->chunk);
      if (c->temporary) temporaries.push_back(c->chunk);
    }
    // An Execute names the array behind each binding (what its failure poisons): the array
    // its chunk holds part of.
    if (const auto* e = std::get_if<ExecuteTask>(&t.kind))
      for (const ExecuteTask::Binding& b : e->bindings) {
        auto it = chunks_.find(b.chunk);
        if (it != chunks_.end() && it->second.array != b.array)
          fail(info.description + ": binding of parameter " + std::to_string(b.param) +
               " names array " + b.array.to_string() + ", but chunk " + b.chunk.to_string() +
               " holds part of " + it->second.array.to_string() + in_plan);
      }
    // Accesses: existence, worker, box, conflicts.
    for (const ChunkAccess& a : t.accesses) {
      auto it = chunks_.find(a.chunk);
      if (it == chunks_.end()) {
        fail(info.description + ": uses chunk " + a.chunk.to_string() +
             (ever_created_.count(a.chunk) ? ", already deleted" : ", never created") + in_plan);
        continue;
      }
      const ChunkInfo& ci = it->second;
      if (ci.worker != t.worker)
        fail(info.description + ": uses chunk " + a.chunk.to_string() + " of " +
             ci.worker.to_string() + in_plan);
      if (a.region.rank() != ci.box.rank() || !ci.box.contains(a.region))
        fail(info.description + ": region " + a.region.to_string() + " is not inside chunk " +
             a.chunk.to_string() + " " + ci.box.to_string() + in_plan);
      auto& records = chunk_accesses_[a.chunk];
      const bool w = writes(a.mode);
      for (const AccessRecord& r : records) {
        if (r.task == t.id || !(w || r.writes)) continue;
        if (!r.region.intersects(a.region) && !(r.region.rank() == 0 && a.region.rank() == 0))
          continue;
        const TaskInfo& ri = tasks_.at(r.task);
        if (r.task.value() >= retired_below_ && !ancestor(info, ri.order))
          fail("conflict on " + a.chunk.to_string() + ": " + ri.description + " (" +
               (r.writes ? "writes " : "reads ") + r.region.to_string() + ") and " +
               info.description + " (" + (w ? "writes " : "reads ") + a.region.to_string() +
               ") are not ordered" + in_plan);
      }
      // A write after (and covering) earlier accesses stands for them from now on.
      if (w) {
        records.erase(std::remove_if(records.begin(), records.end(),
                                     [&](const AccessRecord& r) {
                                       return r.task != t.id && a.region.contains(r.region) &&
                                              ancestor(info, tasks_.at(r.task).order);
                                     }),
                      records.end());
      }
      records.push_back({t.id, a.region, w});
    }
    if (const auto* d = std::get_if<DeleteChunkTask>(&t.kind)) {
      auto it = chunks_.find(d->chunk);
      if (it != chunks_.end()) {
        if (it->second.box != d->box)
          fail(info.description + ": deletes box " + d->box.to_string() + " of a chunk of " +
               it->second.box.to_string() + in_plan);
        chunks_.erase(it);
      }
    }
    tasks_.emplace(t.id, std::move(info));
  }

  // Completion: known tasks of this plan; every task that writes a host buffer (what the driver
  // waits for) is one of them or comes before one; a Barrier follows every task of its worker.
  std::vector<const TaskInfo*> completion;
  for (TaskId c : plan.completion) {
    if (!index.count(c)) {
      fail("completion names " + c.to_string() + ", not a task of the plan" + in_plan);
      continue;
    }
    completion.push_back(&tasks_.at(c));
  }
  for (size_t k = 0; k < n; ++k) {
    const Task& t = *local[k].task;
    const auto* recv = std::get_if<RecvTask>(&t.kind);
    const bool to_host =
        std::holds_alternative<HostReadTask>(t.kind) || (recv && !recv->dst.valid());
    if (to_host) {
      const TaskInfo& ti = tasks_.at(t.id);
      const bool waited = std::any_of(completion.begin(), completion.end(), [&](const TaskInfo* c) {
        return c == &ti || ancestor(*c, ti.order);
      });
      if (!waited)
        fail(describe(t) + " writes a host buffer but the plan's completion does not wait for it" +
             in_plan);
    }
    if (std::holds_alternative<BarrierTask>(t.kind)) {
      const TaskInfo& bi = tasks_.at(t.id);
      for (const auto& [id, other] : tasks_) {
        if (other.worker == t.worker && &other != &bi && !ancestor(bi, other.order) &&
            other.order < bi.order && id.value() >= retired_below_) {
          fail(describe(t) + " does not follow " + other.description + in_plan);
          break;
        }
      }
      if (std::find(plan.completion.begin(), plan.completion.end(), t.id) == plan.completion.end())
        fail(describe(t) + " is not in the plan's completion" + in_plan);
    }
  }

  for (ChunkId c : temporaries) {
    if (chunks_.count(c))
      fail("temporary chunk " + c.to_string() + " is not deleted by the plan creating it" +
           in_plan);
  }
  // Records of deleted chunks can go (the delete was a write over the whole box).
  for (auto it = chunk_accesses_.begin(); it != chunk_accesses_.end();) {
    if (!chunks_.count(it->first))
      it = chunk_accesses_.erase(it);
    else
      ++it;
  }
  return violations_ - before;
}

}  // namespace lightning::planner::testing
