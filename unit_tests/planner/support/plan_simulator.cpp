#include "plan_simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <sstream>

namespace lightning::planner::testing {

namespace {

constexpr size_t kMaxPrintedFailures = 30;
constexpr uint8_t kPoison = 0xA5;

size_t offset_in(const Rect& box, const Point& p) {
  size_t off = 0;
  for (int a = 0; a < box.rank(); ++a) {
    off = off * static_cast<size_t>(box.hi()[a] - box.lo()[a]) +
          static_cast<size_t>(p[a] - box.lo()[a]);
  }
  return off;
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

size_t PlanSimulator::ChunkMem::offset(const Point& p) const {
  return offset_in(box, p);
}

PlanSimulator::PlanSimulator(DeviceSet devices, uint64_t seed)
    : devices_(std::move(devices)), rng_(seed) {}

void PlanSimulator::set_host_buffer(HostBufferId id, DataType type, const Rect& box,
                                    const std::vector<double>& values) {
  HostBuffer b;
  b.type = type;
  b.box = box;
  const size_t n = static_cast<size_t>(box.volume());
  b.bytes.assign(n * size_of(type), kPoison);
  b.defined.assign(n, 1);
  for (size_t i = 0; i < n && i < values.size(); ++i)
    store_value(type, b.bytes.data() + i * size_of(type), values[i]);
  host_[id.value] = std::move(b);
}

void PlanSimulator::add_host_buffer(HostBufferId id, DataType type, const Rect& box) {
  HostBuffer b;
  b.type = type;
  b.box = box;
  const size_t n = static_cast<size_t>(box.volume());
  b.bytes.assign(n * size_of(type), kPoison);
  b.defined.assign(n, 0);
  host_[id.value] = std::move(b);
}

void PlanSimulator::add_scalar_result(HostBufferId id, DataType type, double identity) {
  set_host_buffer(id, type, Rect(), {identity});
}

std::vector<double> PlanSimulator::host_values(HostBufferId id, const std::string& what) const {
  const HostBuffer& b = host_.at(id.value);
  const size_t elem = size_of(b.type);
  std::vector<double> out(b.defined.size());
  size_t undefined = 0;
  Point first;
  size_t i = 0;
  b.box.for_each_point([&](const Point& p) {
    if (!b.defined[i] && undefined++ == 0) first = p;
    out[i] = load_value(b.type, b.bytes.data() + i * elem);
    ++i;
  });
  if (undefined) {
    ADD_FAILURE() << context_ << "simulator: " << what << ": " << undefined << " of " << out.size()
                  << " elements of host buffer " << id.value << " " << b.box.to_string()
                  << " were never written by a task (first " << first.to_string() << ")";
  }
  return out;
}

bool PlanSimulator::chunk_contents(ChunkId id, Rect& box, std::vector<double>& values,
                                   std::vector<uint8_t>& defined) const {
  auto it = chunks_.find(id);
  if (it == chunks_.end() || it->second.scalar) return false;
  const ChunkMem& c = it->second;
  box = c.box;
  defined = c.defined;
  values.resize(defined.size());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = load_value(c.type, c.bytes.data() + i * c.elem);
  return true;
}

void PlanSimulator::fail(const Task& task, const std::string& message) {
  if (++failures_ <= kMaxPrintedFailures) {
    ADD_FAILURE() << context_ << "simulator: " << describe(task) << " on " << task.worker << ": "
                  << message;
  }
}

void PlanSimulator::submit(const Plan& plan) {
  for (const auto& fragment : plan.fragments) {
    for (const Task& t : fragment) queued_.push_back(t);
  }
}

void PlanSimulator::run() {
  std::vector<Task> tasks = std::move(queued_);
  queued_.clear();
  const size_t n = tasks.size();
  std::unordered_map<TaskId, size_t> index;
  index.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (done_.count(tasks[i].id) || !index.emplace(tasks[i].id, i).second)
      fail(tasks[i], "task id used twice");
  }
  std::vector<int> missing(n, 0);
  std::vector<std::vector<size_t>> dependents(n);
  for (size_t i = 0; i < n; ++i) {
    for (TaskId d : tasks[i].deps) {
      if (done_.count(d)) continue;
      auto it = index.find(d);
      if (it == index.end()) {
        fail(tasks[i], "depends on " + d.to_string() + ", a task never submitted");
        continue;
      }
      ++missing[i];
      dependents[it->second].push_back(i);
    }
  }
  std::vector<size_t> ready;
  std::unordered_map<uint64_t, size_t> waiting;  // Recvs with deps done, by tag
  std::vector<uint8_t> finished(n, 0);
  auto make_ready = [&](size_t i) {
    if (const auto* r = std::get_if<RecvTask>(&tasks[i].kind); r && !mailbox_.count(r->tag)) {
      if (!waiting.emplace(r->tag, i).second)
        fail(tasks[i], "a second Recv with tag " + std::to_string(r->tag));
      return;
    }
    ready.push_back(i);
  };
  for (size_t i = 0; i < n; ++i)
    if (missing[i] == 0) make_ready(i);

  while (!ready.empty()) {
    std::uniform_int_distribution<size_t> pick(0, ready.size() - 1);
    const size_t k = pick(rng_);
    const size_t i = ready[k];
    ready[k] = ready.back();
    ready.pop_back();
    execute(tasks[i]);
    finished[i] = 1;
    done_.insert(tasks[i].id);
    for (size_t s : dependents[i])
      if (--missing[s] == 0) make_ready(s);
    if (const auto* s = std::get_if<SendTask>(&tasks[i].kind)) {
      if (auto it = waiting.find(s->tag); it != waiting.end()) {
        ready.push_back(it->second);
        waiting.erase(it);
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (finished[i]) continue;
    if (const auto* r = std::get_if<RecvTask>(&tasks[i].kind); r && missing[i] == 0) {
      fail(tasks[i], "its message (tag " + std::to_string(r->tag) + ") never came");
    } else {
      std::string pending;
      for (TaskId d : tasks[i].deps)
        if (!done_.count(d)) pending += " " + d.to_string();
      fail(tasks[i],
           "never ran: dependencies never completed (a cycle, or a Recv that "
           "never got its message):" +
               pending);
    }
  }
  for (const auto& [tag, m] : mailbox_) {
    if (++failures_ <= kMaxPrintedFailures)
      ADD_FAILURE() << context_ << "simulator: message tag " << tag << " sent by " << m.sender
                    << " was never received";
  }
  mailbox_.clear();
}

void PlanSimulator::execute(const Task& task) {
  std::visit(Overloaded{
                 [&](const CreateChunkTask& k) { run_create(task, k); },
                 [&](const DeleteChunkTask& k) { run_delete(task, k); },
                 [&](const ExecuteTask& k) { run_execute(task, k); },
                 [&](const CopyTask& k) { run_copy(task, k); },
                 [&](const SendTask& k) { run_send(task, k); },
                 [&](const RecvTask& k) { run_recv(task, k); },
                 [&](const FillTask& k) { run_fill(task, k); },
                 [&](const FoldTask& k) { run_fold(task, k); },
                 [&](const HostWriteTask& k) { run_host_write(task, k); },
                 [&](const HostReadTask& k) { run_host_read(task, k); },
                 [&](const BarrierTask&) {},
             },
             task.kind);
}

PlanSimulator::ChunkMem* PlanSimulator::use_chunk(const Task& task, ChunkId id, const Rect& region,
                                                  const char* role) {
  auto it = chunks_.find(id);
  if (it == chunks_.end()) {
    fail(task, std::string(role) + " chunk " + id.to_string() +
                   (deleted_.count(id) ? " was already deleted" : " does not exist (yet)"));
    return nullptr;
  }
  ChunkMem& c = it->second;
  if (c.worker != task.worker) {
    fail(task,
         std::string(role) + " chunk " + id.to_string() + " lives on " + c.worker.to_string());
    return nullptr;
  }
  if (region.rank() != c.box.rank() || !c.box.contains(region)) {
    fail(task, std::string(role) + " region " + region.to_string() + " is not inside chunk " +
                   id.to_string() + " " + c.box.to_string());
    return nullptr;
  }
  return &c;
}

PlanSimulator::HostBuffer* PlanSimulator::use_host(const Task& task, HostBufferId id,
                                                   const Rect& host_box, const Rect& region,
                                                   const char* role) {
  if (task.worker != WorkerId(0)) {
    fail(task, std::string(role) + " host buffer used on a worker other than the driver W0");
    return nullptr;
  }
  auto it = host_.find(id.value);
  if (it == host_.end()) {
    fail(task, std::string(role) + " host buffer " + std::to_string(id.value) + " is unknown");
    return nullptr;
  }
  HostBuffer& b = it->second;
  if (host_box != b.box) {
    fail(task, std::string(role) + " host buffer " + std::to_string(id.value) + " holds " +
                   b.box.to_string() + ", the task says " + host_box.to_string());
    return nullptr;
  }
  if (region.rank() != b.box.rank() || !b.box.contains(region)) {
    fail(task, std::string(role) + " region " + region.to_string() + " is not inside host buffer " +
                   b.box.to_string());
    return nullptr;
  }
  return &b;
}

const PlanSimulator::LaunchInfo* PlanSimulator::launch_info(const Task& task, LaunchId launch) {
  auto it = launches_.find(launch);
  if (it == launches_.end() || !it->second.kernel) {
    fail(task, "launch " + launch.to_string() + " is unknown to the test");
    return nullptr;
  }
  return &it->second;
}

DataType PlanSimulator::value_type(const Task& task, const ChunkMem& c, LaunchId launch) {
  if (!c.scalar) return c.type;
  const LaunchInfo* info = launch_info(task, launch);
  return info ? info->kernel->scalar_type : DataType::kFloat64;
}

void PlanSimulator::run_create(const Task& t, const CreateChunkTask& k) {
  if (chunks_.count(k.chunk)) {
    fail(t, "chunk " + k.chunk.to_string() + " exists already");
    return;
  }
  const bool host_only = !k.device.valid() && devices_.device_count(t.worker) == 0;
  if (!host_only && (!devices_.contains(k.device) || devices_.worker_of(k.device) != t.worker)) {
    fail(t, "device " + k.device.to_string() + " is not a device of " + t.worker.to_string());
  }
  ChunkMem c;
  c.worker = t.worker;
  c.array = k.array;
  c.box = k.box;
  c.scalar = k.box.rank() == 0;
  if (c.scalar) {
    c.elem = k.bytes;
    if (k.bytes == 0 || k.bytes > 8)
      fail(t, "scalar chunk of " + std::to_string(k.bytes) + " bytes");
  } else {
    auto it = array_types_.find(k.array);
    if (it == array_types_.end()) {
      fail(t, "chunk of array " + k.array.to_string() + ", unknown to the test");
      return;
    }
    c.type = it->second;
    c.elem = size_of(c.type);
    if (k.box.empty()) fail(t, "chunk with an empty box");
    if (k.bytes != static_cast<uint64_t>(k.box.volume()) * c.elem)
      fail(t, "bytes " + std::to_string(k.bytes) + " != volume x element size");
  }
  const size_t n = c.scalar ? 1 : static_cast<size_t>(k.box.volume());
  c.bytes.assign(n * c.elem, kPoison);
  c.defined.assign(n, 0);
  deleted_.erase(k.chunk);
  chunks_.emplace(k.chunk, std::move(c));
}

void PlanSimulator::run_delete(const Task& t, const DeleteChunkTask& k) {
  ChunkMem* c = use_chunk(t, k.chunk, k.box, "deleted");
  if (!c) return;
  if (c->box != k.box)
    fail(t, "deletes " + k.box.to_string() + " but the chunk holds " + c->box.to_string());
  chunks_.erase(k.chunk);
  deleted_.insert(k.chunk);
}

/// The KernelAccess of one ExecuteTask: maps (param, global point) to the bound chunk.
class ExecuteAccess final : public KernelAccess {
 public:
  ExecuteAccess(PlanSimulator& sim, const Task& task, const ExecuteTask& exec,
                const PlanSimulator::LaunchInfo& info)
      : sim_(sim), task_(task), exec_(exec), info_(info) {
    const size_t nparams = info.kernel->signature.params.size();
    binding_.assign(nparams, nullptr);
    mem_.assign(nparams, nullptr);
    for (const auto& b : exec.bindings) {
      if (b.param < 0 || static_cast<size_t>(b.param) >= nparams ||
          !info.kernel->signature.params[static_cast<size_t>(b.param)].is_array) {
        sim.fail(task, "binding of p" + std::to_string(b.param) + ", not an array parameter");
        continue;
      }
      if (binding_[static_cast<size_t>(b.param)]) {
        sim.fail(task, "two bindings of p" + std::to_string(b.param));
        continue;
      }
      binding_[static_cast<size_t>(b.param)] = &b;
      PlanSimulator::ChunkMem* c = sim.use_chunk(task, b.chunk, b.region, "bound");
      if (c && static_cast<size_t>(b.param) < info.arrays.size() &&
          c->array != info.arrays[static_cast<size_t>(b.param)]) {
        sim.fail(task, "p" + std::to_string(b.param) + " is bound to " + b.chunk.to_string() +
                           " of " + c->array.to_string() + ", the launch passed " +
                           info.arrays[static_cast<size_t>(b.param)].to_string());
        c = nullptr;
      }
      mem_[static_cast<size_t>(b.param)] = c;
    }
  }

  double get(int param, const Point& p) override {
    uint8_t* e = element(param, p, "reads");
    if (!e) return 0;
    auto* c = mem_[static_cast<size_t>(param)];
    if (!c->defined[c->offset(p)]) report(param, p, "reads", "an element nothing wrote");
    return load_value(c->type, e);
  }
  void set(int param, const Point& p, double v) override {
    uint8_t* e = element(param, p, "writes");
    if (!e) return;
    auto* c = mem_[static_cast<size_t>(param)];
    store_value(c->type, e, v);
    c->defined[c->offset(p)] = 1;
  }
  void reduce(int param, const Point& p, double v) override {
    uint8_t* e = element(param, p, "reduces into");
    if (!e) return;
    auto* c = mem_[static_cast<size_t>(param)];
    if (!c->defined[c->offset(p)])
      report(param, p, "reduces into", "an element not initialised to the identity");
    const auto vb = value_bytes(c->type, v);
    fold_element(c->type, info_.kernel->reduce_ops[static_cast<size_t>(param)], e, vb.data());
  }
  int64_t scalar(int param) override {
    if (param < 0 || static_cast<size_t>(param) >= info_.scalars.size()) return 0;
    return info_.scalars[static_cast<size_t>(param)];
  }
  void add_partial(double v) override {
    has_partial_ = true;
    partial_ += v;
  }

  /// A scan's pass starts from the identity or, in the final pass, from its prefix.
  void start_scan() {
    const bool scans = info_.kernel->scans;
    if (scans != (exec_.scan != ScanPass::kNone)) {
      sim_.fail(task_, scans ? "a scan kernel's Execute task has no scan pass"
                             : "a scan pass of a kernel that does not scan");
      return;
    }
    scan_final = exec_.scan == ScanPass::kFinal;
    scan_value = 0;
    if (!exec_.scan_prefix.valid()) return;
    if (exec_.scan != ScanPass::kFinal) sim_.fail(task_, "a scan prefix outside the final pass");
    PlanSimulator::ChunkMem* c = sim_.use_chunk(task_, exec_.scan_prefix, Rect(), "prefix");
    if (!c) return;
    if (!c->scalar || c->elem != size_of(info_.kernel->scalar_type) || !c->defined[0]) {
      sim_.fail(task_, "scan_prefix " + exec_.scan_prefix.to_string() +
                           " is not a written rank-0 chunk of the scan's value");
      return;
    }
    scan_value = load_value(info_.kernel->scalar_type, c->bytes.data());
  }

  void finish() {
    if (exec_.scan == ScanPass::kFinal) {
      if (!exec_.scalar_partial.valid()) return;
      has_partial_ = true;  // where the pass ends: its prefix joined with all of its values
      partial_ = scan_value;
    }
    if (exec_.scan == ScanPass::kPartial) {
      has_partial_ = true;
      partial_ = scan_value;
    }
    if (!exec_.scalar_partial.valid()) {
      if (has_partial_ || info_.kernel->has_scalar_result || info_.kernel->scans)
        sim_.fail(task_, "the kernel has a scalar result but the task no scalar_partial");
      return;
    }
    PlanSimulator::ChunkMem* c = sim_.use_chunk(task_, exec_.scalar_partial, Rect(), "partial");
    if (!c) return;
    if (!c->scalar || c->elem != size_of(info_.kernel->scalar_type)) {
      sim_.fail(task_, "scalar_partial " + exec_.scalar_partial.to_string() +
                           " is not a rank-0 chunk of the result's size");
      return;
    }
    // The partial is written (not read): it starts from the reducer's identity.
    store_value(info_.kernel->scalar_type, c->bytes.data(), partial_);
    c->defined[0] = 1;
  }

 private:
  uint8_t* element(int param, const Point& p, const char* verb) {
    if (param < 0 || static_cast<size_t>(param) >= binding_.size() ||
        !binding_[static_cast<size_t>(param)]) {
      if (!unbound_reported_) {
        unbound_reported_ = true;
        sim_.fail(task_, "thread " + current.to_string() + " " + verb + " p" +
                             std::to_string(param) + ", which has no binding");
      }
      return nullptr;
    }
    const auto& b = *binding_[static_cast<size_t>(param)];
    auto* c = mem_[static_cast<size_t>(param)];
    if (!c) return nullptr;
    if (p.rank() != c->box.rank() || !b.region.contains(p) || !c->box.contains(p)) {
      report(param, p, verb,
             "outside its binding's region " + b.region.to_string() + " (chunk " +
                 b.chunk.to_string() + " " + c->box.to_string() + ")");
      return nullptr;
    }
    return c->bytes.data() + c->offset(p) * c->elem;
  }
  void report(int param, const Point& p, const char* verb, const std::string& what) {
    if (reported_++ < 3)
      sim_.fail(task_, "thread " + current.to_string() + " " + verb + " p" + std::to_string(param) +
                           p.to_string() + ": " + what);
  }

 public:
  Point current;

 private:
  PlanSimulator& sim_;
  const Task& task_;
  const ExecuteTask& exec_;
  const PlanSimulator::LaunchInfo& info_;
  std::vector<const ExecuteTask::Binding*> binding_;
  std::vector<PlanSimulator::ChunkMem*> mem_;
  bool unbound_reported_ = false;
  int reported_ = 0;
  bool has_partial_ = false;
  double partial_ = 0;
};

void PlanSimulator::run_execute(const Task& t, const ExecuteTask& k) {
  const LaunchInfo* info = launch_info(t, k.launch);
  if (!info) return;
  if (info->kernel->id != k.kernel) {
    fail(t,
         "kernel " + k.kernel.to_string() + " but the launch ran " + info->kernel->id.to_string());
    return;
  }
  if (!devices_.contains(k.device) || devices_.worker_of(k.device) != t.worker)
    fail(t, "device " + k.device.to_string() + " is not a device of " + t.worker.to_string());
  ExecuteAccess access(*this, t, k, *info);
  access.start_scan();
  k.superblock.for_each_point([&](const Point& p) {
    access.current = p;
    info->kernel->body(p, access);
    ++threads_;
  });
  access.finish();
}

void PlanSimulator::run_copy(const Task& t, const CopyTask& k) {
  ChunkMem* s = use_chunk(t, k.src, k.region, "source");
  ChunkMem* d = use_chunk(t, k.dst, k.region, "destination");
  if (!s || !d) return;
  if (s->elem != d->elem || s->array != d->array) {
    fail(t, "copies between chunks of different arrays or element sizes");
    return;
  }
  if (s == d) return;
  k.region.for_each_point([&](const Point& p) {
    std::memcpy(d->bytes.data() + d->offset(p) * d->elem, s->bytes.data() + s->offset(p) * s->elem,
                s->elem);
    d->defined[d->offset(p)] = s->defined[s->offset(p)];
  });
}

void PlanSimulator::run_send(const Task& t, const SendTask& k) {
  Message m;
  m.from = t.worker;
  m.to = k.to;
  m.region = k.region;
  m.sender = describe(t);
  const size_t n = k.region.rank() == 0 ? 1 : static_cast<size_t>(k.region.volume());
  if (!used_tags_.insert(k.tag).second) fail(t, "tag " + std::to_string(k.tag) + " sent twice");
  if (k.src.valid()) {
    ChunkMem* s = use_chunk(t, k.src, k.region, "source");
    if (!s) return;
    m.elem = s->elem;
    m.array = s->array;
    m.bytes.reserve(n * s->elem);
    k.region.for_each_point([&](const Point& p) {
      const uint8_t* e = s->bytes.data() + s->offset(p) * s->elem;
      m.bytes.insert(m.bytes.end(), e, e + s->elem);
      m.defined.push_back(s->defined[s->offset(p)]);
    });
  } else {
    HostBuffer* h = use_host(t, k.host_src, k.host_box, k.region, "source");
    if (!h) return;
    m.elem = size_of(h->type);
    k.region.for_each_point([&](const Point& p) {
      const size_t o = offset_in(h->box, p);
      const uint8_t* e = h->bytes.data() + o * m.elem;
      m.bytes.insert(m.bytes.end(), e, e + m.elem);
      m.defined.push_back(h->defined[o]);
    });
  }
  mailbox_[k.tag] = std::move(m);
}

void PlanSimulator::run_recv(const Task& t, const RecvTask& k) {
  auto it = mailbox_.find(k.tag);
  if (it == mailbox_.end()) {
    fail(t, "no message");
    return;
  }
  Message m = std::move(it->second);
  mailbox_.erase(it);
  if (m.to != t.worker || m.from != k.from) {
    fail(t, "message tag " + std::to_string(k.tag) + " went " + m.from.to_string() + " -> " +
                m.to.to_string() + " (" + m.sender + ")");
    return;
  }
  if (m.region != k.region) {
    fail(t, "message holds " + m.region.to_string() + " (" + m.sender + ")");
    return;
  }
  size_t i = 0;
  if (k.dst.valid()) {
    ChunkMem* d = use_chunk(t, k.dst, k.region, "destination");
    if (!d) return;
    if (d->elem != m.elem || (m.array.valid() && m.array != d->array)) {
      fail(t, "message of another array or element size (" + m.sender + ")");
      return;
    }
    k.region.for_each_point([&](const Point& p) {
      std::memcpy(d->bytes.data() + d->offset(p) * d->elem, m.bytes.data() + i * m.elem, m.elem);
      d->defined[d->offset(p)] = m.defined[i];
      ++i;
    });
  } else {
    HostBuffer* h = use_host(t, k.host_dst, k.host_box, k.region, "destination");
    if (!h) return;
    if (size_of(h->type) != m.elem) {
      fail(t, "message element size differs from the host buffer's");
      return;
    }
    k.region.for_each_point([&](const Point& p) {
      const size_t o = offset_in(h->box, p);
      std::memcpy(h->bytes.data() + o * m.elem, m.bytes.data() + i * m.elem, m.elem);
      h->defined[o] = m.defined[i];
      ++i;
    });
  }
}

void PlanSimulator::run_fill(const Task& t, const FillTask& k) {
  ChunkMem* c = use_chunk(t, k.chunk, k.region, "filled");
  if (!c) return;
  if (k.value.size() != c->elem) {
    fail(t, "value of " + std::to_string(k.value.size()) + " bytes for elements of " +
                std::to_string(c->elem));
    return;
  }
  k.region.for_each_point([&](const Point& p) {
    std::memcpy(c->bytes.data() + c->offset(p) * c->elem, k.value.data(), c->elem);
    c->defined[c->offset(p)] = 1;
  });
}

void PlanSimulator::run_fold(const Task& t, const FoldTask& k) {
  ChunkMem* s = use_chunk(t, k.src, k.region, "source");
  ChunkMem* d = use_chunk(t, k.dst, k.region, "destination");
  if (!s || !d) return;
  if (s->elem != d->elem || s->array != d->array || s->scalar != d->scalar) {
    fail(t, "folds between chunks of different arrays or element sizes");
    return;
  }
  const DataType type = value_type(t, *d, k.launch);
  if (size_of(type) != d->elem) {
    fail(t, "element size does not match the fold's type");
    return;
  }
  if (!k.reduction.is_custom() && k.reduction.type != type) {
    fail(t, "folds " + std::string(name_of(type)) + " elements as " + k.reduction.key());
    return;
  }
  bool reported = false;
  k.region.for_each_point([&](const Point& p) {
    const size_t so = s->offset(p), dof = d->offset(p);
    if ((!s->defined[so] || (!k.assign && !d->defined[dof])) && !reported) {
      reported = true;
      fail(t, "folds an element nothing wrote, at " + p.to_string());
    }
    if (k.assign)
      std::memcpy(d->bytes.data() + dof * d->elem, s->bytes.data() + so * s->elem, d->elem);
    else
      fold_element(type, k.reduction.op, d->bytes.data() + dof * d->elem,
                   s->bytes.data() + so * s->elem);
    d->defined[dof] = s->defined[so] && (k.assign || d->defined[dof]);
  });
}

void PlanSimulator::run_host_write(const Task& t, const HostWriteTask& k) {
  HostBuffer* h = use_host(t, k.buffer, k.host_box, k.region, "source");
  ChunkMem* d = use_chunk(t, k.dst, k.region, "destination");
  if (!h || !d) return;
  if (size_of(h->type) != d->elem) {
    fail(t, "host buffer element size differs from the chunk's");
    return;
  }
  k.region.for_each_point([&](const Point& p) {
    const size_t o = offset_in(h->box, p);
    std::memcpy(d->bytes.data() + d->offset(p) * d->elem, h->bytes.data() + o * d->elem, d->elem);
    d->defined[d->offset(p)] = h->defined[o];
  });
}

void PlanSimulator::run_host_read(const Task& t, const HostReadTask& k) {
  ChunkMem* s = use_chunk(t, k.src, k.region, "source");
  HostBuffer* h = use_host(t, k.buffer, k.host_box, k.region, "destination");
  if (!h || !s) return;
  if (size_of(h->type) != s->elem) {
    fail(t, "host buffer element size differs from the chunk's");
    return;
  }
  if (k.fold) {
    const DataType type = value_type(t, *s, k.launch);
    k.region.for_each_point([&](const Point& p) {
      const size_t o = offset_in(h->box, p);
      if (!s->defined[s->offset(p)] || !h->defined[o]) fail(t, "folds an element nothing wrote");
      fold_element(type, k.reduction.op, h->bytes.data() + o * s->elem,
                   s->bytes.data() + s->offset(p) * s->elem);
    });
    return;
  }
  k.region.for_each_point([&](const Point& p) {
    const size_t o = offset_in(h->box, p);
    std::memcpy(h->bytes.data() + o * s->elem, s->bytes.data() + s->offset(p) * s->elem, s->elem);
    h->defined[o] = s->defined[s->offset(p)];
  });
}

}  // namespace lightning::planner::testing
