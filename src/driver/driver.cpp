#include "driver/driver.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/reduction.hpp"
#include "driver/launch_decoder.hpp"
#include "driver/task_error.hpp"
#include "kernel/kernel_registry.hpp"
#include "worker/worker.hpp"

namespace lightning::driver {

Driver::Driver(const Config& config, int workers)
    : Driver(config, local_workers(config, workers)) {}

Driver::Driver(const Config& config, std::shared_ptr<Cluster> cluster)
    : Driver(config, cluster_workers(config, std::move(cluster))) {}

Driver::Driver(const Config& config, std::unique_ptr<WorkerGroup> workers)
    : workers_(std::move(workers)), config_(config), planner_(workers_->devices()) {
  set_log_level(config.log);
  workers_->start(
      {[this](TaskId t, std::optional<planner::TaskFailure> f) { on_completed(t, std::move(f)); },
       [this](const std::string& reason) { on_lost(reason); }});
  trace_ = workers_->trace();
  if (trace_) program_track_ = trace_->track("program");
  log().info("driver: {}, devices {}", workers_->describe(), planner_.devices().describe());
}

Driver::~Driver() {
  try {
    fence();
  } catch (const std::exception& e) {
    log().error("errors not collected before shutdown: {}", e.what());
  }
  try {
    drain();  // the workers stop with nothing in flight
  } catch (const std::exception& e) {
    log().error("errors not collected before shutdown: {}", e.what());
  }
  workers_->stop();
}

void Driver::on_lost(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopped_) stopped_ = Error(ErrorKind::kCommunication, reason);
    wakes_.fetch_add(1, std::memory_order_release);
  }
  completed_.notify_all();
}

std::vector<TaskId> Driver::submit(planner::Plan plan, worker::FragmentContext context) {
  auto shared = std::make_shared<const worker::FragmentContext>(std::move(context));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outstanding_ += plan.task_count() - plan.temporary_deletions.size();
    deleting_temporaries_.insert(plan.temporary_deletions.begin(), plan.temporary_deletions.end());
    for (TaskId t : plan.completion) waiting_.insert(t);
  }
  for (size_t w = 0; w < plan.fragments.size(); ++w)
    if (!plan.fragments[w].empty())
      workers_->submit(WorkerId(static_cast<uint64_t>(w)), std::move(plan.fragments[w]), shared);
  return std::move(plan.completion);
}

void Driver::on_completed(TaskId task, std::optional<planner::TaskFailure> failure) {
  bool awaited = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    awaited = waiting_.erase(task) != 0 && awaited_.count(task) != 0;
    if (task.valid()) {
      const bool temporary = !deleting_temporaries_.empty() && deleting_temporaries_.erase(task);
      if (!temporary) --outstanding_;
      if (outstanding_ == 0 && fencing_ > 0) awaited = true;
    }
    if (!task.valid() && failure && !stopped_) {  // the worker itself failed
      stopped_ = Error(ErrorKind::kInternal,
                       failure->worker.to_string() + " failed and cannot go on: " + failure->what);
      awaited = true;
    }
    if (failure) failures_.push_back(std::move(*failure));
    if (awaited) wakes_.fetch_add(1, std::memory_order_release);
  }
  if (awaited) completed_.notify_all();
}

template <class Done>
void Driver::wait_until(std::unique_lock<std::mutex>& lock, const Done& done) {
  while (!done()) {
    const uint64_t seen = wakes_.load(std::memory_order_acquire);
    lock.unlock();
    const bool woken = WaitPolicy::poll(
        workers_->wait_policy(), [&] { return wakes_.load(std::memory_order_acquire) != seen; });
    lock.lock();
    if (!woken) {
      completed_.wait(lock, done);
      return;
    }
  }
}

void Driver::wait_for(const std::vector<TaskId>& tasks) {
  std::unique_lock<std::mutex> lock(mutex_);
  std::vector<TaskId> marked;
  for (TaskId t : tasks)
    if (waiting_.count(t) != 0) {
      ++awaited_[t];
      marked.push_back(t);
    }
  wait_until(lock, [&] {
    return stopped_ ||
           std::none_of(tasks.begin(), tasks.end(), [&](TaskId t) { return waiting_.count(t); });
  });
  for (TaskId t : marked)
    if (--awaited_[t] == 0) awaited_.erase(t);
  if (stopped_) throw *stopped_;
}

void Driver::wait_for_value(const std::vector<TaskId>& tasks) {
  wait_for(tasks);
  bool failed = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    failed = !failures_.empty();
  }
  // Settle everything submitted, as a fence does, before reporting: later launches must not
  // be ordered after (and so skipped with) the failed tasks.
  if (failed) fence();
  throw_pending_error();
}

void Driver::throw_pending_error() {
  std::vector<planner::TaskFailure> failures;
  bool idle = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    failures.swap(failures_);
    idle = outstanding_ == 0;
  }
  std::optional<Error> error;
  if (!failures.empty()) {
    error = task_error(failures, [this](LaunchId l) -> const LaunchNames* {
      auto it = launch_names_.find(l);
      return it == launch_names_.end() ? nullptr : &it->second;
    });
    poison(failures);
  }
  // No task left that could fail and need them. (Cleared only when they hold something: a
  // hash table's clear() touches every bucket, and this runs at every returning launch.)
  if (idle && !launch_names_.empty()) launch_names_ = {};
  if (error) throw *error;
}

// What a failed (or skipped) kernel run writes holds partial results, and so does what its
// kernel changed although it declares it read-only (checked mode found it).
void Driver::poison(const std::vector<planner::TaskFailure>& failures) {
  for (const planner::TaskFailure& f : failures) {
    if (!f.kernel) continue;
    const std::string why = kernel_title(*f.kernel) + ", which writes it, failed on superblock " +
                            f.kernel->superblock.to_string() + " (" + f.kernel->launch.to_string() +
                            ")";
    for (const planner::ExecuteTask::Binding& b : f.kernel->bindings) {
      const bool changed = f.violation &&
                           f.violation->kind == planner::AccessViolation::Kind::kWroteReadOnly &&
                           f.violation->param == b.param;
      if (planner::writes(b.mode) || changed) poisoned_[b.array].push_back({b.region, why});
    }
  }
}

void Driver::refuse_if_poisoned(ArrayId array, const Rect& region, const std::string& use) const {
  auto p = poisoned_.find(array);
  if (p == poisoned_.end()) return;
  for (const Poison& poison : p->second) {
    if (!poison.region.intersects(region)) continue;
    auto a = arrays_.find(array);
    const std::string view = a == arrays_.end() ? array.to_string() : "'" + a->second.name + "'";
    throw Error(ErrorKind::kInvalidArgument,
                "View " + view + " holds no valid data in " + poison.region.to_string() + ": " +
                    poison.why +
                    " (reported earlier). Overwrite that part (Kokkos::deep_copy from the host "
                    "or of a value, or a launch that writes it) before " +
                    use);
  }
}

void Driver::overwritten(ArrayId array, const Rect& region) {
  auto p = poisoned_.find(array);
  if (p == poisoned_.end()) return;
  std::vector<Poison>& left = p->second;
  left.erase(std::remove_if(left.begin(), left.end(),
                            [&](const Poison& poison) { return region.contains(poison.region); }),
             left.end());
  if (left.empty()) poisoned_.erase(p);
}

// A launch's `write`s renew the poisoned regions they cover.
void Driver::renew_written(const planner::Plan& plan) {
  for (const auto& fragment : plan.fragments)
    for (const planner::Task& t : fragment)
      if (const auto* e = std::get_if<planner::ExecuteTask>(&t.kind))
        for (const auto& b : e->bindings)
          if (b.mode == planner::ChunkAccessMode::kWrite ||
              b.mode == planner::ChunkAccessMode::kOverwrite)
            overwritten(b.array, b.region);
}

void Driver::remember_names(LaunchId launch, const Launch& l,
                            const kernel::KernelDescription& described,
                            const annotation::BoundAnnotation& bound) {
  LaunchNames names;
  names.annotation = described.annotation;
  const auto& params = described.signature.params;
  names.params.resize(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    LaunchNames::Param& p = names.params[i];
    p.name = params[i].name;
    if (i < l.arrays.size() && l.arrays[i].valid()) {
      auto a = arrays_.find(l.arrays[i]);
      if (a != arrays_.end()) {
        p.view = a->second.name;
        p.axes_reversed = a->second.axes_reversed;
      }
    }
  }
  for (const annotation::BoundRule& r : bound.rules()) {  // the first rule of each parameter
    LaunchNames::Param& p = names.params.at(static_cast<size_t>(r.param));
    if (p.rule == std::string::npos) p.rule = r.offset;
  }
  launch_names_[launch] = std::move(names);
}

ArrayId Driver::create_array(const std::string& name, DataType type, const Point& extent,
                             const DataDistribution& distribution, bool axes_reversed) {
  auto [id, plan] = planner_.create_array({name, type, extent, distribution});
  arrays_[id] = {name, type, extent, axes_reversed};
  submit(std::move(plan), {});
  return id;
}

void Driver::delete_array(ArrayId array) {
  planner::Plan plan = planner_.delete_array(array);
  arrays_.erase(array);
  poisoned_.erase(array);
  submit(std::move(plan), {});
}

void Driver::fill(ArrayId array, const Rect& region, const void* value) {
  const planner::ArrayState& a = planner_.array(array);
  const auto* bytes = static_cast<const uint8_t*>(value);
  submit(planner_.fill(array, region, {bytes, bytes + a.element_size()}), {});
  overwritten(array, region);
}

void Driver::write(ArrayId array, const Rect& region, const void* host) {
  const auto started = trace_now();
  const planner::HostBufferId buffer = next_buffer();
  planner::Plan plan = planner_.write_from_host(array, region, buffer);
  worker::FragmentContext context;
  context.add_host_buffer(buffer.value,
                          {const_cast<void*>(host), region, planner_.array(array).element_size()});
  wait_for(submit(std::move(plan), std::move(context)));
  overwritten(array, region);
  trace_program([&] { return "write " + arrays_.at(array).name; }, started);
}

void Driver::read(ArrayId array, const Rect& region, void* host) {
  const auto started = trace_now();
  refuse_if_poisoned(array, region, "reading it");
  const planner::HostBufferId buffer = next_buffer();
  planner::Plan plan = planner_.read_to_host(array, region, buffer);
  worker::FragmentContext context;
  context.add_host_buffer(buffer.value, {host, region, planner_.array(array).element_size()});
  wait_for_value(submit(std::move(plan), std::move(context)));
  trace_program([&] { return "read " + arrays_.at(array).name; }, started);
}

void Driver::launch(const Launch& l) {
  const auto started = trace_now();
  const kernel::KernelInfo& info = kernel::KernelRegistry::get(l.kernel);
  const kernel::KernelDescription& described = info.described_by(l.description);
  const size_t bindings = annotations_.bound_count();
  const annotation::BoundAnnotation& bound = annotations_.bind(
      described.annotation, described.signature, l.domain.rank(),
      l.teams ? annotation::LaunchKind::kTeams : annotation::LaunchKind::kThreads);
  if (annotations_.bound_count() != bindings)  // a new binding: its warnings, once
    for (const annotation::Diagnostic& w : bound.warnings())
      log().warn("kernel '{}': {}", info.name, w.format(described.annotation));
  // The launch returns a value (a reduction's, a scan's total): the program waits for it.
  const bool returns_value = info.reduces() || (info.scans() && l.result);
  const planner::HostBufferId result = returns_value ? next_buffer() : planner::HostBufferId{};
  decode_launch(l, info, described, bound, planner_, result, decoded_request_, decoded_data_);
  if (!last_launch_data_ || !(*last_launch_data_ == decoded_data_))
    last_launch_data_ = std::make_shared<const worker::LaunchData>(decoded_data_);
  if (!poisoned_.empty())  // before any submission, too
    for (const annotation::BoundArray& b : bound.arrays())
      if (b.mode != annotation::AccessMode::kWrite &&
          b.mode != annotation::AccessMode::kOverwrite) {
        const ArrayId array = l.arrays.at(static_cast<size_t>(b.param));
        refuse_if_poisoned(array, Rect::from_extent(planner_.array(array).extent),
                           "kernel '" + info.name + "' reads it");
      }
  planner::Plan plan = planner_.launch(decoded_request_);  // throws before any submission
  if (config_.check_access) remember_names(plan.request, l, described, bound);
  if (!poisoned_.empty()) renew_written(plan);
  worker::FragmentContext context;
  const worker::LaunchData& data = *last_launch_data_;
  context.add_launch(plan.request, last_launch_data_);
  if (returns_value) {
    data.reduction.init(l.result);
    context.add_host_buffer(result.value, {l.result, Rect(), data.reduction.value_size});
  }
  const std::vector<TaskId> completion = submit(std::move(plan), std::move(context));
  trace_program([&] { return "launch " + data.name; }, started);
  if (returns_value) {
    const auto waited = trace_now();
    wait_for_value(completion);
    trace_program([&] { return "value of " + data.name; }, waited);
  }
}

std::vector<worker::Worker::MemoryReport> Driver::memory_reports() {
  drain();
  return workers_->memory_reports();
}

void Driver::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  ++fencing_;
  wait_until(lock,
             [&] { return stopped_ || (outstanding_ == 0 && deleting_temporaries_.empty()); });
  --fencing_;
  if (stopped_) throw *stopped_;
}

void Driver::fence() {
  // Every task submitted so far ends, but the temporaries' deletions (drain() waits for
  // those): waited for as the count of outstanding tasks reaching zero, which costs no
  // planned tasks and no round trip when everything has ended already (Kokkos fences after
  // each value a parallel_reduce returns).
  const auto started = trace_now();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    ++fencing_;
    wait_until(lock, [&] { return stopped_ || outstanding_ == 0; });
    --fencing_;
    if (stopped_) throw *stopped_;
  }
  planner_.retire_before(planner_.next_task());
  trace_program([] { return std::string("fence"); }, started);
  throw_pending_error();
}

}  // namespace lightning::driver
