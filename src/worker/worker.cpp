#include "worker/worker.hpp"

#include "core/overloaded.hpp"

#include <cstring>
#include <map>

#include "core/error.hpp"
#include "kernel/kernel_registry.hpp"
#include "worker/kernel_run_binding.hpp"
#include "worker/region_ops.hpp"
#include "worker/thread_pool.hpp"

namespace lightning::worker {

using planner::Task;

namespace {

std::shared_ptr<DevicePlatform> required(std::shared_ptr<DevicePlatform> platform) {
  if (!platform)
    throw Error(ErrorKind::kInternal, "a worker needs a device platform (WorkerOptions::platform)");
  return platform;
}

// The underlying error of a failed operation (its kind and text) as a failure, for the
// scheduler, which fills in what the task was; empty for success. Taken on the thread that
// ran the operation, so only a value crosses to the scheduler thread.
std::optional<planner::TaskFailure> failure_from(const std::exception_ptr& e) {
  if (!e) return std::nullopt;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return planner::failure_of(ex);
  } catch (...) {
    planner::TaskFailure f;
    f.what = "unknown exception";
    return f;
  }
}

}  // namespace

// Where a chunk's storage should start relative to an aligned address: where its first
// element would sit in the whole array, row-major (modulo the pool's alignment). Only the
// last axis counts: a chunk of whole rows starts aligned, and a rank-1 chunk with a halo
// (which starts one element before its owned part) keeps its owned elements where a whole
// array has them, on aligned 128-byte lines.
uint64_t Worker::alignment_phase(ChunkId chunk) const {
  const ChunkLayout& meta = chunks().at(chunk);
  const int rank = meta.box.rank();
  if (rank == 0) return 0;
  const uint64_t lo = static_cast<uint64_t>(meta.box.lo()[rank - 1]);
  return lo * meta.element_size % MemoryPool::kAlignment;
}

// The scheduler's requests, answered on the scheduler thread.
class Worker::Sink final : public SchedulerSink {
 public:
  explicit Sink(Worker& w) : w_(w) {}
  void stage(const Task& task) override { w_.stage_task(task, {}); }
  void stage_behind(const Task& task, const std::vector<TaskId>& behind) override {
    w_.stage_task(task, behind);
  }
  void run(const Task& task) override { w_.run_task(task); }
  void unstage(const Task& task, bool ended) override {
    if (ended) w_.end_planned_uses(task);  // first: the unstage takes the change along
    if (std::optional<TaskId> token = w_.leases_.release(task.id)) w_.staging_->unstage(*token);
  }
  void completed(const Task& task, const std::optional<planner::TaskFailure>& failure) override {
    w_.report_completion(task, failure);
  }

 private:
  Worker& w_;
};

// What the Send/Recv protocol asks of the worker, answered on the scheduler thread (but
// post_received, which comes from a transport thread and only posts).
class Worker::ExchangePort final : public DataExchange::Port {
 public:
  explicit ExchangePort(Worker& w) : w_(w) {}
  void run_on_host(const Task& task, std::vector<HostAccess> accesses,
                   Device::HostJob job) override {
    w_.run_on_host(task, std::move(accesses), std::move(job));
  }
  Device::Done finished(const Task& task) override { return w_.finished(task); }
  void* block_in_place(const PlacedBuffer& buffer, const Rect& region) const override {
    return w_.block_in_place(buffer, region);
  }
  void post_received(TaskId task, comm::Payload payload, std::string error) override {
    w_.events_.push(ReceivedEvent{task, std::move(payload), std::move(error)});
  }

 private:
  Worker& w_;
};

Worker::Worker(WorkerOptions options, comm::Transport& transport, CompletionHandler on_completed,
               BurstEndHandler on_burst_end)
    : options_(std::move(options)),
      transport_(transport),
      on_completed_(std::move(on_completed)),
      on_burst_end_(std::move(on_burst_end)),
      platform_(required(options_.platform)),
      events_(options_.wait),
      sink_(std::make_unique<Sink>(*this)),
      exchange_port_(std::make_unique<ExchangePort>(*this)),
      exchange_(std::make_unique<DataExchange>(options_.id, transport, *exchange_port_)) {
  const std::string w = options_.id.to_string();
  for (DeviceId d : options_.devices) {
    device_index_[d] = devices_.size();
    devices_.push_back(platform_->open(d, devices_.size()));
    if (options_.trace) {
      compute_track_[d] = options_.trace->track(w + " " + d.to_string() + " compute");
      copy_track_[d] = options_.trace->track(w + " " + d.to_string() + " copy");
    }
  }
  std::vector<DeviceId> ordered;
  for (const auto& device : devices_)
    if (device->runs_launches_in_order()) ordered.push_back(device->id());
  scheduler_ = std::make_unique<Scheduler>(*sink_, options_.staging_limit, std::move(ordered),
                                           options_.memory.devices);
  host_copy_ = std::make_unique<Engine>(w + " host copy");
  if (options_.trace) host_copy_track_ = options_.trace->track(w + " host copy");
  StagingThread::Replies replies{[this](TaskId t, std::vector<void*> pointers) {
                                   events_.push(StagedEvent{t, std::move(pointers)});
                                 },
                                 [this](TaskId t, planner::TaskFailure f) {
                                   events_.push(StageFailedEvent{t, std::move(f)});
                                 },
                                 [this](TaskId t, std::optional<planner::TaskFailure> f) {
                                   events_.push(RanEvent{t, std::move(f)});
                                 },
                                 [this](TaskId t) { events_.push(NotInPlaceEvent{t}); }};
  staging_ = std::make_unique<StagingThread>(
      options_.memory, platform_->memory(), options_.devices, std::move(replies), options_.trace,
      options_.trace ? options_.trace->track(w + " staging (eviction, disk)") : -1, &planned_uses_,
      options_.wait);
  transport_.set_handler(options_.id,
                         [this](comm::DataMessage m) { events_.push(ArrivedEvent{std::move(m)}); });
  scheduler_thread_ = std::thread([this] { scheduler_loop(); });
}

Worker::~Worker() {
  events_.push(StopEvent{});
  scheduler_thread_.join();
  // Engines finish their queued jobs when destroyed, in chunks the memory manager still holds;
  // their completions go to the event queue, which nobody reads any more.
  devices_.clear();
  host_copy_.reset();
  staging_.reset();
}

void Worker::submit(std::vector<Task> tasks, std::shared_ptr<const FragmentContext> context) {
  events_.push(SubmitEvent{std::move(tasks), std::move(context)});
}

// ---- scheduler thread ----

void Worker::scheduler_loop() {
  name_current_thread(options_.id.to_string() + " scheduler");
  RingQueue<Event> popped;  // reused: draining the queue allocates nothing
  for (;;) {
    events_.pop_all(popped);
    bool running = true;
    for (size_t i = 0; i < popped.size() && running; ++i) running = handle_event(popped[i]);
    if (on_burst_end_) on_burst_end_();
    if (!running) return;
  }
}

bool Worker::handle_event(Event& event) {
  if (std::holds_alternative<StopEvent>(event)) return false;
  try {
    std::visit(
        Overloaded{
            [&](SubmitEvent& e) { handle(e); },
            [&](StagedEvent& e) {
              // Launches that shared this one's staging meanwhile are staged too, answered
              // right after it: before any answer queued behind this one (a read staged
              // behind the last of them finds it running).
              const StagingLeases::Settled settled = leases_.staged(e.task, e.pointers);
              scheduler_->on_staged(e.task);
              for (TaskId task : settled) scheduler_->on_staged(task);
            },
            [&](StageFailedEvent& e) {
              not_staged(e.task);
              scheduler_->on_failed(e.task, e.failure);
            },
            [&](NotInPlaceEvent& e) {
              not_staged(e.task);
              scheduler_->on_not_in_place(e.task);
            },
            [&](RanEvent& e) { scheduler_->on_ran(e.task, std::move(e.failure)); },
            [&](ReceivedEvent& e) { exchange_->received(e.task, std::move(e.payload), e.error); },
            [&](ArrivedEvent& e) {
              const uint64_t tag = e.message.tag;
              const TaskId failed = e.message.failed_task;
              exchange_->arrived(std::move(e.message));
              scheduler_->on_message(tag, failed);
            },
            [&](StopEvent&) {},
        },
        event);
  } catch (const std::exception& e) {
    // A broken invariant of the worker itself: report it rather than die silently.
    planner::TaskFailure f = planner::failure_of(e);
    f.worker = options_.id;
    f.error = ErrorKind::kInternal;
    on_completed_(options_.id, TaskId(), f);
  }
  return true;
}

void Worker::handle(SubmitEvent& e) {
  // (No reserve: reserving the size + n of a map that shrinks and grows by a task or two
  // rehashes it back and forth.)
  for (const Task& t : e.tasks) {
    TaskState& state = reused_tasks_.find_or_insert(tasks_, t.id)->second;
    state.context = e.context;  // the rest was reset when the node was erased
    for (const planner::ChunkAccess& a : t.accesses) planned_uses_.add(t.id, a.chunk);
  }
  scheduler_->submit(std::move(e.tasks));
}

void Worker::not_staged(TaskId task) {
  // Each sharer is answered as the staging thread answers a launch staged in place behind
  // another that was not staged: it waits, and asks again, like any task.
  for (TaskId sharer : leases_.not_staged(task)) events_.push(NotInPlaceEvent{sharer});
}

DeviceId Worker::home_of(ChunkId chunk) const {
  const DeviceId device = chunks().at(chunk).device;
  return device_index_.count(device) ? device : DeviceId();
}

MemorySpace Worker::space_for(const Task& task, ChunkId chunk) const {
  if (const auto* e = std::get_if<planner::ExecuteTask>(&task.kind))
    return MemorySpace::of_device(e->device);
  const DeviceId home = home_of(chunk);
  return home.valid() ? MemorySpace::of_device(home) : MemorySpace::host();
}

void Worker::stage_task(const Task& task, const std::vector<TaskId>& behind) {
  // What a task overwrites (a data task's region, a kernel's dense `overwrite`) need not have
  // its old bytes staged, when they are one run of the chunk's bytes.
  tasks_.at(task.id).issued_behind = !behind.empty();
  std::vector<StageRequest> requests;
  requests.reserve(task.accesses.size());
  for (const auto& a : task.accesses) {
    ByteRange overwritten;
    if (a.mode == planner::ChunkAccessMode::kOverwrite) {
      const ChunkLayout& chunk = chunks().at(a.chunk);
      overwritten = contiguous_bytes(chunk.box, chunk.element_size, a.region);
    }
    requests.push_back({a.chunk, space_for(task, a.chunk), planner::writes(a.mode), overwritten});
  }
  if (behind.empty()) {
    leases_.requested(task.id, requests);
    return staging_->stage(task.id, std::move(requests));
  }
  // Behind a launch holding exactly these chunks: share its staging (answered through this
  // thread's own queue, as the staging thread would answer: the scheduler is not re-entered).
  switch (leases_.share(task.id, requests, behind)) {
    case StagingLeases::Share::kShared:
      return events_.push(StagedEvent{task.id, {}});
    case StagingLeases::Share::kPending:
      return;  // answered with the launch it shares with
    case StagingLeases::Share::kNo:
      break;
  }
  leases_.requested(task.id, requests);
  std::vector<TaskId> tokens;  // the launches behind hold their chunks under these
  tokens.reserve(behind.size());
  for (TaskId b : behind) tokens.push_back(leases_.token(b));
  staging_->stage_in_place(task.id, std::move(requests), tokens);
}

PlacedBuffer Worker::placed(const Task& task, size_t access, void* data) const {
  const ChunkId chunk = task.accesses.at(access).chunk;
  const ChunkLayout& layout = chunks().at(chunk);
  return {data, layout.box, layout.element_size, space_for(task, chunk)};
}

// Data tasks run on the engines of the device holding the task's first chunk that lives on a
// device; with every chunk in host memory, on the worker's host copy engine (nullptr).
Device* Worker::device_for(const Task& task, int* track) const {
  for (const auto& a : task.accesses) {
    const DeviceId home = home_of(a.chunk);
    if (!home.valid()) continue;
    *track = options_.trace ? copy_track_.at(home) : -1;
    return devices_[device_index_.at(home)].get();
  }
  *track = host_copy_track_;
  return nullptr;
}

Device::Done Worker::finished(const Task& task) {
  int track = -1;
  device_for(task, &track);
  return finished(task, track);
}

// Reports a task's end to the scheduler thread, traced as one slice with the bytes it moves.
Device::Done Worker::finished(const Task& task, int track) {
  uint64_t bytes = 0;
  if (!task.accesses.empty()) {
    const auto& a = task.accesses.back();  // the written region: what moves
    bytes = static_cast<uint64_t>(a.region.volume()) * chunks().at(a.chunk).element_size;
  }
  return [this, track, name = std::string(planner::name_of(task.kind)), task_id = task.id, bytes](
             std::exception_ptr e, OpSpan span) {
    if (!e) record(track, name, span, {{"task", task_id.to_string()}, {"bytes", bytes}});
    events_.push(RanEvent{task_id, failure_from(e)});
  };
}

void Worker::run_copy(const Task& task, PlacedBuffer dst, PlacedBuffer src, const Rect& region) {
  int track = -1;
  Device* device = device_for(task, &track);
  if (device) return device->copy(dst, src, region, finished(task, track));
  host_copy_->execute([dst, src, region] { worker::copy_region(dst.view(), src.view(), region); },
                      finished(task, track));
}

void Worker::run_on_host(const Task& task, std::vector<HostAccess> accesses, Device::HostJob job) {
  int track = -1;
  Device* device = device_for(task, &track);
  if (device)
    return device->run_on_host(std::move(accesses), std::move(job), finished(task, track));
  host_copy_->execute(
      [accesses = std::move(accesses), job = std::move(job)] {
        std::vector<worker::BoxBuffer> views;
        for (const HostAccess& a : accesses) views.push_back(a.buffer.view());
        job(views);
      },
      finished(task, track));
}

void Worker::run_on_host_behind_launches(const Task& task, std::vector<HostAccess> accesses,
                                         Device::HostJob job) {
  int track = -1;
  Device* device = device_for(task, &track);
  if (!device)
    throw Error(ErrorKind::kInternal,
                task.id.to_string() + " was issued behind launches of no device");
  if (options_.trace) track = compute_track_.at(device->id());  // where it runs
  device->run_on_host_behind_launches(std::move(accesses), std::move(job),
                                      launch_failures_before(task), finished(task, track));
}

void Worker::record(int track, const std::string& name, OpSpan span, std::vector<TraceArg> args) {
  if (options_.trace && track >= 0)
    options_.trace->record(track, name, span.start, span.end, std::move(args));
}

void Worker::run_task(const Task& task) {
  TaskState& state = tasks_.at(task.id);
  std::shared_ptr<const FragmentContext> context = state.context;
  const std::vector<void*>& pointers = leases_.pointers(task.id);  // per access; empty: none
  auto buffer = [&](size_t access) { return placed(task, access, pointers.at(access)); };
  auto host_buffer = [&](planner::HostBufferId id) {
    const HostBuffer& h = context->host_buffer(id.value);
    return PlacedBuffer{h.data, h.box, h.element_size, MemorySpace::host()};
  };
  // A custom reduction joins with the functions of its launch's kernel, resolved in this process.
  auto resolved = [&](const Reduction& r, LaunchId launch) {
    return r.is_custom() ? context->launch(launch)->reduction : r;
  };

  std::visit(
      Overloaded{
          [&](const planner::CreateChunkTask& t) {
            staging_->create(task.id, t.chunk, t.bytes, alignment_phase(t.chunk));
          },
          [&](const planner::DeleteChunkTask& t) {
            planned_uses_.forget(t.chunk);
            staging_->remove(task.id, t.chunk);
          },
          [&](const planner::BarrierTask&) {
            events_.push(RanEvent{task.id, {}});
          },
          [&](const planner::ExecuteTask& t) {
            std::shared_ptr<const LaunchData> launch = context->launch(t.launch);
            Device& device = *devices_[device_index_.at(t.device)];
            const bool checked = options_.check_access &&
                                 device.checks_accesses(kernel::KernelRegistry::get(t.kernel));
            KernelRun run = bound_kernel_run(task, t, *launch, pointers, chunks(), checked);
            const int track = compute_track_.count(t.device) ? compute_track_.at(t.device) : -1;
            // On an in-order device, launches issued behind this one skip when it fails.
            std::shared_ptr<std::atomic<bool>> failed;
            if (device.runs_launches_in_order()) {
              run.skip_if_failed = launch_failures_before(task);
              failed = std::make_shared<std::atomic<bool>>(false);
              state.launch_failed = failed;
            }
            // The trace's texts are made only when it records (not for every launch).
            device.launch(std::move(run), [this, track, id = task.id, launch,
                                           superblock = t.superblock, device = t.device,
                                           failed](std::exception_ptr e, OpSpan span) {
              if (failed && e) failed->store(true, std::memory_order_release);
              if (!e && track >= 0)
                record(track, launch->name, span,
                       {{"superblock", superblock.to_string()}, {"device", device.to_string()}});
              events_.push(RanEvent{id, failure_from(e)});
            });
          },
          [&](const planner::CopyTask& t) { run_copy(task, buffer(1), buffer(0), t.region); },
          [&](const planner::FillTask& t) {
            int track = -1;
            if (Device* device = device_for(task, &track))
              return device->fill(buffer(0), t.region, t.value, finished(task, track));
            run_on_host(task, {{buffer(0), t.region, /*read=*/false, /*write=*/true}},
                        [region = t.region, value = t.value](const auto& b) {
                          worker::fill_region(b[0], region, value.data());
                        });
          },
          [&](const planner::FoldTask& t) {
            if (t.assign) return run_copy(task, buffer(1), buffer(0), t.region);
            run_on_host(task,
                        {{buffer(0), t.region, true, false}, {buffer(1), t.region, true, true}},
                        [region = t.region, r = resolved(t.reduction, t.launch)](const auto& b) {
                          worker::fold_region(b[1], b[0], region, r);
                        });
          },
          [&](const planner::HostWriteTask& t) {
            run_copy(task, buffer(0), host_buffer(t.buffer), t.region);
          },
          [&](const planner::HostReadTask& t) {
            // Issued behind launches: in their device's queue; a plain copy otherwise.
            if (!t.fold && !state.issued_behind)
              return run_copy(task, host_buffer(t.buffer), buffer(0), t.region);
            std::vector<HostAccess> accesses{{buffer(0), t.region, true, false},
                                             {host_buffer(t.buffer), t.region, t.fold, true}};
            Device::HostJob job;
            if (t.fold)
              job = [region = t.region, r = resolved(t.reduction, t.launch)](const auto& b) {
                worker::fold_region(b[1], b[0], region, r);
              };
            else
              job = [region = t.region](const auto& b) { worker::copy_region(b[1], b[0], region); };
            if (state.issued_behind)
              return run_on_host_behind_launches(task, std::move(accesses), std::move(job));
            run_on_host(task, std::move(accesses), std::move(job));
          },
          [&](const planner::SendTask& t) {
            exchange_->send(task, t, t.src.valid() ? buffer(0) : host_buffer(t.host_src));
          },
          [&](const planner::RecvTask& t) {
            exchange_->recv(task, t, t.dst.valid() ? buffer(0) : host_buffer(t.host_dst));
          },
      },
      task.kind);
}

FailureFlags Worker::launch_failures_before(const Task& task) const {
  FailureFlags flags;
  for (TaskId d : task.deps)
    if (auto f = tasks_.find(d); f != tasks_.end() && f->second.launch_failed)
      flags.push_back(f->second.launch_failed);
  return flags;
}

void* Worker::block_in_place(const PlacedBuffer& buffer, const Rect& region) const {
  const bool host_memory = !buffer.space.is_device() || platform_->host_addresses_device_memory();
  return host_memory ? worker::contiguous_block(buffer.view(), region) : nullptr;
}

void Worker::end_planned_uses(const Task& task) {
  for (const planner::ChunkAccess& a : task.accesses) planned_uses_.end(task.id, a.chunk);
}

void Worker::report_completion(const Task& task,
                               const std::optional<planner::TaskFailure>& failure) {
  end_planned_uses(task);  // a task never staged (skipped, failed) ends here
  exchange_->ended(task, failure);
  std::optional<planner::TaskFailure> reported = failure;
  if (reported && reported->kernel) name_kernel(task, *reported->kernel);
  if (auto it = tasks_.find(task.id); it != tasks_.end()) {
    it->second = TaskState{};  // a kept node must not keep the fragment's data alive
    reused_tasks_.erase(tasks_, it);
  }
  on_completed_(options_.id, task.id, reported);
}

// What only the worker knows of an Execute that failed: its kernel's and its launch's names.
void Worker::name_kernel(const Task& task, planner::TaskFailure::Kernel& names) const {
  const auto& e = std::get<planner::ExecuteTask>(task.kind);
  if (kernel::KernelRegistry::contains(e.kernel))
    names.name = kernel::KernelRegistry::get(e.kernel).name;
  auto state = tasks_.find(task.id);
  if (state == tasks_.end() || !state->second.context) return;
  const auto* launch = state->second.context->find_launch(e.launch);
  if (launch && *launch) names.label = (*launch)->name;
}

}  // namespace lightning::worker
