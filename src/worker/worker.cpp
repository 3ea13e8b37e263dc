#include "worker/worker.hpp"

#include "core/overloaded.hpp"

#include <cstring>
#include <map>

#include "core/error.hpp"
#include "kernel/array_binding.hpp"
#include "kernel/kernel_registry.hpp"
#include "worker/region_ops.hpp"

namespace lightning::worker {

using planner::Task;

namespace {

std::shared_ptr<DevicePlatform> required(std::shared_ptr<DevicePlatform> platform) {
  if (!platform)
    throw Error(ErrorKind::kInternal, "a worker needs a device platform (WorkerOptions::platform)");
  return platform;
}

// The underlying error of a failed operation (its kind and text) as a failure, for the
// scheduler, which fills in what the task was; empty for success.
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

planner::TaskFailure failure_from(ErrorKind kind, std::string what) {
  planner::TaskFailure f;
  f.error = kind;
  f.what = std::move(what);
  return f;
}

}  // namespace

// Where a chunk's storage should start relative to an aligned address: where its first
// element would sit in the whole array, row-major (modulo the pool's alignment). Only the
// last axis counts: a chunk of whole rows starts aligned, and a rank-1 chunk with a halo
// (which starts one element before its owned part) keeps its owned elements where a whole
// array has them, on aligned 128-byte lines.
uint64_t Worker::alignment_phase(ChunkId chunk) const {
  const ChunkMeta& meta = chunks_.at(chunk);
  const int rank = meta.box.rank();
  if (rank == 0) return 0;
  const uint64_t lo = static_cast<uint64_t>(meta.box.lo()[rank - 1]);
  return lo * meta.element_size % MemoryPool::kAlignment;
}

// The scheduler's requests, answered on the scheduler thread.
class Worker::Sink final : public SchedulerSink {
 public:
  explicit Sink(Worker& w) : w_(w) {}
  void stage(const Task& task) override { w_.stage_task(task); }
  void run(const Task& task) override { w_.run_task(task); }
  void unstage(const Task& task) override {
    w_.running_.erase(task.id);
    w_.staging_ops_.push(UnstageOp{task.id});
  }
  void completed(const Task& task, const std::optional<planner::TaskFailure>& failure) override {
    w_.report_completion(task, failure);
  }

 private:
  Worker& w_;
};

Worker::Worker(WorkerOptions options, comm::Transport& transport, CompletionHandler on_completed)
    : options_(std::move(options)),
      transport_(transport),
      on_completed_(std::move(on_completed)),
      platform_(required(options_.platform)),
      sink_(std::make_unique<Sink>(*this)),
      scheduler_(std::make_unique<Scheduler>(*sink_, options_.staging_limit)),
      memory_(std::make_unique<MemoryManager>(options_.memory, platform_->memory())) {
  const std::string w = options_.id.to_string();
  for (DeviceId d : options_.devices) {
    device_index_[d] = devices_.size();
    devices_.push_back(platform_->open(d, devices_.size()));
    if (options_.trace) {
      compute_track_[d] = options_.trace->track(w + " " + d.to_string() + " compute");
      copy_track_[d] = options_.trace->track(w + " " + d.to_string() + " copy");
    }
  }
  host_copy_ = std::make_unique<Engine>(w + " host copy");
  if (options_.trace) {
    host_copy_track_ = options_.trace->track(w + " host copy");
    staging_track_ = options_.trace->track(w + " staging (eviction, disk)");
  }
  transport_.set_handler(options_.id,
                         [this](comm::DataMessage m) { events_.push(ArrivedEvent{std::move(m)}); });
  scheduler_thread_ = std::thread([this] { scheduler_loop(); });
  staging_thread_ = std::thread([this] { staging_loop(); });
}

Worker::~Worker() {
  events_.push(StopEvent{});
  staging_ops_.push(StopOp{});
  scheduler_thread_.join();
  staging_thread_.join();
  // Executors finish their queued jobs when destroyed; their completions go to the queues,
  // which nobody reads any more.
  devices_.clear();
  host_copy_.reset();
}

void Worker::submit(std::vector<Task> tasks, std::shared_ptr<const FragmentContext> context) {
  events_.push(SubmitEvent{std::move(tasks), std::move(context)});
}

Worker::MemoryReport Worker::memory_report() {
  MessageQueue<MemoryReport> reply;
  staging_ops_.push(ReportOp{[&reply](MemoryReport r) { reply.push(std::move(r)); }});
  return reply.pop();
}

// ---- scheduler thread ----

void Worker::scheduler_loop() {
  for (;;) {
    Event event = events_.pop();
    if (std::holds_alternative<StopEvent>(event)) return;
    try {
      std::visit(Overloaded{
                     [&](SubmitEvent& e) { handle(e); },
                     [&](StagedEvent& e) {
                       running_[e.task].pointers = std::move(e.pointers);
                       scheduler_->on_staged(e.task);
                     },
                     [&](StageFailedEvent& e) { scheduler_->on_failed(e.task, e.failure); },
                     [&](RanEvent& e) { scheduler_->on_ran(e.task, failure_from(e.error)); },
                     [&](ReceivedEvent& e) { on_received(e); },
                     [&](ArrivedEvent& e) {
                       const uint64_t tag = e.message.tag;
                       const TaskId failed = e.message.failed_task;
                       messages_[tag] = std::move(e.message);
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
  }
}

void Worker::handle(SubmitEvent& e) {
  for (const Task& t : e.tasks) {
    if (const auto* c = std::get_if<planner::CreateChunkTask>(&t.kind))
      chunks_[c->chunk] = {c->box, c->element_size, c->type,
                           device_index_.count(c->device) ? c->device : DeviceId()};
    contexts_[t.id] = e.context;
  }
  scheduler_->submit(e.tasks);
}

MemorySpace Worker::space_for(const Task& task, ChunkId chunk) const {
  if (const auto* e = std::get_if<planner::ExecuteTask>(&task.kind))
    return MemorySpace::of_device(e->device);
  const ChunkMeta& meta = chunks_.at(chunk);
  return meta.home.valid() ? MemorySpace::of_device(meta.home) : MemorySpace::host();
}

void Worker::stage_task(const Task& task) {
  // Data tasks that write a whole chunk without reading it (a Recv, a Copy, Fill or HostWrite
  // into all of it) need not have its old bytes staged. Kernels are not trusted to write every
  // element they declare.
  const bool data_task = !std::holds_alternative<planner::ExecuteTask>(task.kind);
  StageOp op{task.id, {}};
  for (const auto& a : task.accesses) {
    const bool write = a.mode != planner::ChunkAccessMode::kRead;
    const bool overwrites = data_task && a.mode == planner::ChunkAccessMode::kWrite &&
                            a.region == chunks_.at(a.chunk).box;
    op.requests.push_back({a.chunk, space_for(task, a.chunk), write, overwrites});
  }
  staging_ops_.push(std::move(op));
}

PlacedBuffer Worker::placed(const Task& task, size_t access, void* data) const {
  const ChunkId chunk = task.accesses.at(access).chunk;
  const ChunkMeta& meta = chunks_.at(chunk);
  return {data, meta.box, meta.element_size, space_for(task, chunk)};
}

// Data tasks run on the engines of the device holding the task's first chunk that lives on a
// device; with every chunk in host memory, on the worker's host copy engine (nullptr).
Device* Worker::device_for(const Task& task, int* track) const {
  for (const auto& a : task.accesses) {
    const ChunkMeta& meta = chunks_.at(a.chunk);
    if (!meta.home.valid()) continue;
    *track = options_.trace ? copy_track_.at(meta.home) : -1;
    return devices_[device_index_.at(meta.home)].get();
  }
  *track = host_copy_track_;
  return nullptr;
}

// Reports a task's end to the scheduler thread, traced as one slice with the bytes it moves.
Device::Done Worker::finished(const Task& task, int track) {
  uint64_t bytes = 0;
  if (!task.accesses.empty()) {
    const auto& a = task.accesses.back();  // the written region: what moves
    bytes = static_cast<uint64_t>(a.region.volume()) * chunks_.at(a.chunk).element_size;
  }
  return [this, track, name = std::string(planner::name_of(task.kind)), task_id = task.id, bytes](
             std::exception_ptr e, OpSpan span) {
    if (!e) record(track, name, span, {{"task", task_id.to_string()}, {"bytes", bytes}});
    events_.push(RanEvent{task_id, std::move(e)});
  };
}

void Worker::run_copy(const Task& task, PlacedBuffer dst, PlacedBuffer src, const Rect& region) {
  int track = -1;
  Device* device = device_for(task, &track);
  if (device) return device->copy(dst, src, region, finished(task, track));
  run_timed(
      *host_copy_, [dst, src, region] { worker::copy_region(dst.view(), src.view(), region); },
      finished(task, track));
}

void Worker::run_on_host(const Task& task, std::vector<HostAccess> accesses, Device::HostJob job) {
  int track = -1;
  Device* device = device_for(task, &track);
  if (device)
    return device->run_on_host(std::move(accesses), std::move(job), finished(task, track));
  run_timed(
      *host_copy_,
      [accesses = std::move(accesses), job = std::move(job)] {
        std::vector<worker::BoxBuffer> views;
        for (const HostAccess& a : accesses) views.push_back(a.buffer.view());
        job(views);
      },
      finished(task, track));
}

void Worker::record(int track, const std::string& name, OpSpan span, std::vector<TraceArg> args) {
  if (options_.trace && track >= 0)
    options_.trace->record(track, name, span.start, span.end, std::move(args));
}

void Worker::run_task(const Task& task) {
  std::shared_ptr<const FragmentContext> context = contexts_.at(task.id);
  static const std::vector<void*> kUnstaged;  // tasks that need no staging
  auto staged = running_.find(task.id);
  const std::vector<void*>& pointers =
      staged == running_.end() ? kUnstaged : staged->second.pointers;
  auto buffer = [&](size_t access) { return placed(task, access, pointers.at(access)); };
  auto host_buffer = [&](planner::HostBufferId id) {
    const HostBuffer& h = context->host_buffers.at(id.value);
    return PlacedBuffer{h.data, h.box, h.element_size, MemorySpace::host()};
  };
  // A custom reduction joins with the functions of its launch's kernel, resolved in this process.
  auto resolved = [&](const Reduction& r, LaunchId launch) {
    return r.is_custom() ? context->launches.at(launch)->reduction : r;
  };

  std::visit(
      Overloaded{
          [&](const planner::CreateChunkTask& t) {
            staging_ops_.push(CreateOp{task.id, t.chunk, t.bytes, alignment_phase(t.chunk)});
          },
          [&](const planner::DeleteChunkTask& t) {
            chunks_.erase(t.chunk);
            staging_ops_.push(DeleteOp{task.id, t.chunk});
          },
          [&](const planner::BarrierTask&) {
            events_.push(RanEvent{task.id, {}});
          },
          [&](const planner::ExecuteTask& t) {
            const kernel::KernelInfo& info = kernel::KernelRegistry::get(t.kernel);
            std::shared_ptr<const LaunchData> launch = context->launches.at(t.launch);
            KernelRun run{&info,        launch->name, launch->functor,
                          t.superblock, nullptr,      launch->reduction};
            kernel::clear_arrays(run.functor.data(), launch->arrays);  // unbound: nothing to touch
            for (size_t i = 0; i < task.accesses.size(); ++i) {
              const ChunkId c = task.accesses[i].chunk;
              if (c == t.scalar_partial) {
                run.partial = pointers.at(i);
                continue;
              }
              const auto& binding = t.bindings.at(i);
              for (const kernel::ArraySlot& slot : launch->arrays)
                if (slot.param == binding.param)
                  kernel::bind_array(run.functor.data(), slot, pointers.at(i), chunks_.at(c).box,
                                     launch->extents.at(slot.param));
            }
            const int track = compute_track_.count(t.device) ? compute_track_.at(t.device) : -1;
            devices_[device_index_.at(t.device)]->launch(
                std::move(run), [this, track, id = task.id, name = launch->name,
                                 superblock = t.superblock.to_string(),
                                 device = t.device.to_string()](std::exception_ptr e, OpSpan span) {
                  if (!e)
                    record(track, name, span, {{"superblock", superblock}, {"device", device}});
                  events_.push(RanEvent{id, e});
                });
          },
          [&](const planner::CopyTask& t) { run_copy(task, buffer(1), buffer(0), t.region); },
          [&](const planner::FillTask& t) {
            run_on_host(task, {{buffer(0), t.region, /*read=*/false, /*write=*/true}},
                        [region = t.region, value = t.value](const auto& b) {
                          worker::fill_region(b[0], region, value.data());
                        });
          },
          [&](const planner::FoldTask& t) {
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
            if (!t.fold) return run_copy(task, host_buffer(t.buffer), buffer(0), t.region);
            run_on_host(
                task,
                {{buffer(0), t.region, true, false}, {host_buffer(t.buffer), t.region, true, true}},
                [region = t.region, r = resolved(t.reduction, t.launch)](const auto& b) {
                  worker::fold_region(b[1], b[0], region, r);
                });
          },
          [&](const planner::SendTask& t) {
            run_send(task, t, t.src.valid() ? buffer(0) : host_buffer(t.host_src));
          },
          [&](const planner::RecvTask& t) {
            run_recv(task, t, t.dst.valid() ? buffer(0) : host_buffer(t.host_dst));
          },
      },
      task.kind);
}

void* Worker::block_in_place(const PlacedBuffer& buffer, const Rect& region) const {
  const bool host_memory = !buffer.space.is_device() || platform_->host_addresses_device_memory();
  return host_memory ? worker::contiguous_block(buffer.view(), region) : nullptr;
}

// A Send lends the transport the chunk's bytes when they lie in host-addressable memory as one
// block, and is done once they are sent; otherwise it packs them into a payload of its own.
void Worker::run_send(const Task& task, const planner::SendTask& send, PlacedBuffer src) {
  comm::DataMessage m;
  m.from = options_.id;
  m.to = send.to;
  m.tag = send.tag;
  if (void* block = block_in_place(src, send.region)) {
    int track = -1;
    device_for(task, &track);
    m.lent.data = block;
    m.lent.size = static_cast<size_t>(send.region.volume()) * src.elem_size;
    m.lent.release = [done = finished(task, track), start = std::chrono::steady_clock::now()] {
      done(nullptr, {start, std::chrono::steady_clock::now()});
    };
    try {
      transport_.send(std::move(m));
    } catch (const std::exception&) {  // not taken: the bytes will not be released
      events_.push(RanEvent{task.id, std::current_exception()});
    }
    return;
  }
  run_on_host(task, {{src, send.region, true, false}},
              [this, region = send.region, m = std::move(m)](const auto& b) mutable {
                m.payload.resize(static_cast<size_t>(region.volume()) * b[0].elem_size);
                worker::pack_region(m.payload.data(), b[0], region);
                transport_.send(std::move(m));
              });
}

// A Recv whose payload arrived whole unpacks it. One announced by the transport is received
// straight into the chunk where it can be (host-addressable memory, one block), otherwise into
// a buffer of the transport's, then unpacked.
void Worker::run_recv(const Task& task, const planner::RecvTask& recv, PlacedBuffer dst) {
  comm::DataMessage message = std::move(messages_.at(recv.tag));
  messages_.erase(recv.tag);
  const size_t expected = static_cast<size_t>(recv.region.volume()) * dst.elem_size;
  if (message.pending_size == 0) {
    if (message.payload.size() != expected)
      return events_.push(RanEvent{task.id, wrong_size(message.payload.size(), expected)});
    return unpack(task, dst, std::make_shared<comm::Payload>(std::move(message.payload)));
  }
  void* block = message.pending_size == expected ? block_in_place(dst, recv.region) : nullptr;
  receiving_.emplace(task.id,
                     Receiving{task, dst, message.pending_size, std::chrono::steady_clock::now()});
  transport_.receive(options_.id, recv.tag, block,
                     [this, id = task.id](comm::Payload payload, std::string error) {
                       events_.push(ReceivedEvent{id, std::move(payload), std::move(error)});
                     });
}

void Worker::on_received(ReceivedEvent& e) {
  auto it = receiving_.find(e.task);
  Receiving r = std::move(it->second);
  receiving_.erase(it);
  if (!e.error.empty())
    return scheduler_->on_ran(e.task, failure_from(ErrorKind::kCommunication, e.error));
  const size_t expected =
      static_cast<size_t>(std::get<planner::RecvTask>(r.task.kind).region.volume()) *
      r.dst.elem_size;
  if (r.size != expected)
    return scheduler_->on_ran(e.task, failure_from(wrong_size(r.size, expected)));
  if (e.payload.empty()) {  // it went where run_recv said (announced payloads are never empty)
    int track = -1;
    device_for(r.task, &track);
    return finished(r.task, track)(nullptr, {r.start, std::chrono::steady_clock::now()});
  }
  unpack(r.task, r.dst, std::make_shared<comm::Payload>(std::move(e.payload)));
}

void Worker::unpack(const Task& task, PlacedBuffer dst, std::shared_ptr<comm::Payload> payload) {
  const Rect region = std::get<planner::RecvTask>(task.kind).region;
  run_on_host(task, {{dst, region, false, true}}, [payload, region](const auto& b) {
    worker::unpack_region(b[0], payload->data(), region);
  });
}

std::exception_ptr Worker::wrong_size(size_t got, size_t expected) {
  return std::make_exception_ptr(
      Error(ErrorKind::kCommunication,
            "message of " + std::to_string(got) + " bytes, expected " + std::to_string(expected)));
}

void Worker::report_completion(const Task& task,
                               const std::optional<planner::TaskFailure>& failure) {
  // A Send that will never run still owes its Recv a message: one naming the failed task
  // (the Send, or the task at the root of what it was skipped for), so the Recv is skipped.
  if (failure)
    if (const auto* s = std::get_if<planner::SendTask>(&task.kind)) {
      comm::DataMessage m;
      m.from = options_.id;
      m.to = s->to;
      m.tag = s->tag;
      m.failed_task = failure->skipped() ? failure->caused_by : task.id;
      transport_.send(std::move(m));
    }
  if (const auto* r = std::get_if<planner::RecvTask>(&task.kind)) {
    // A Recv that did not run still takes its announced payload, so that the Send finishes.
    auto it = messages_.find(r->tag);
    if (it != messages_.end() && it->second.pending_size > 0)
      transport_.receive(options_.id, r->tag, nullptr, [](comm::Payload, std::string) {});
    if (it != messages_.end()) messages_.erase(it);
  }
  std::optional<planner::TaskFailure> reported = failure;
  if (reported && reported->kernel) name_kernel(task, *reported->kernel);
  contexts_.erase(task.id);
  running_.erase(task.id);
  on_completed_(options_.id, task.id, reported);
}

// What only the worker knows of an Execute that failed: its kernel's and its launch's names.
void Worker::name_kernel(const Task& task, planner::TaskFailure::Kernel& names) const {
  const auto& e = std::get<planner::ExecuteTask>(task.kind);
  if (kernel::KernelRegistry::contains(e.kernel))
    names.name = kernel::KernelRegistry::get(e.kernel).name;
  auto context = contexts_.find(task.id);
  if (context == contexts_.end()) return;
  auto launch = context->second->launches.find(e.launch);
  if (launch != context->second->launches.end() && launch->second)
    names.label = launch->second->name;
}

// ---- staging thread ----

void Worker::staging_loop() {
  std::map<TaskId, StageOp> waiting;  // staging that must wait for space, oldest first
  auto try_stage = [&](StageOp& op) {
    try {
      const OpSpan span{std::chrono::steady_clock::now(), {}};
      const MemoryCounters before = memory_->counters();
      if (memory_->stage(op.task.value(), op.requests) == StageResult::kRetryLater) return false;
      const MemoryCounters& after = memory_->counters();
      if (after.bytes_copied != before.bytes_copied || after.disk_writes != before.disk_writes ||
          after.disk_reads != before.disk_reads)
        record(staging_track_, "stage " + op.task.to_string(),
               {span.start, std::chrono::steady_clock::now()},
               {{"bytes_copied", after.bytes_copied - before.bytes_copied},
                {"bytes_to_disk", after.bytes_written_to_disk - before.bytes_written_to_disk},
                {"bytes_from_disk", after.bytes_read_from_disk - before.bytes_read_from_disk}});
      std::vector<void*> pointers;
      for (const StageRequest& r : op.requests) pointers.push_back(memory_->data(r.chunk, r.where));
      events_.push(StagedEvent{op.task, std::move(pointers)});
    } catch (const std::exception&) {
      events_.push(StageFailedEvent{op.task, *failure_from(std::current_exception())});
    }
    return true;
  };
  auto retry_waiting = [&] {
    for (auto it = waiting.begin(); it != waiting.end();)
      it = try_stage(it->second) ? waiting.erase(it) : std::next(it);
  };
  for (;;) {
    StagingOp op = staging_ops_.pop();
    if (std::holds_alternative<StopOp>(op)) return;
    std::visit(Overloaded{
                   [&](StageOp& s) {
                     if (!try_stage(s)) waiting.emplace(s.task, std::move(s));
                   },
                   [&](UnstageOp& u) {
                     memory_->unstage(u.task.value());
                     retry_waiting();
                   },
                   [&](CreateOp& c) {
                     std::exception_ptr error;
                     try {
                       memory_->create_chunk(c.chunk, c.bytes, c.phase);
                     } catch (const std::exception&) {
                       error = std::current_exception();
                     }
                     events_.push(RanEvent{c.task, error});
                   },
                   [&](DeleteOp& d) {
                     std::exception_ptr error;
                     try {
                       memory_->delete_chunk(d.chunk);
                     } catch (const std::exception&) {
                       error = std::current_exception();
                     }
                     events_.push(RanEvent{d.task, error});
                     retry_waiting();
                   },
                   [&](ReportOp& r) {
                     MemoryReport report;
                     for (DeviceId d : options_.devices)
                       report.device_bytes += memory_->bytes_used(MemorySpace::of_device(d));
                     report.host_bytes = memory_->bytes_used(MemorySpace::host());
                     report.spill_files = memory_->spill_file_count();
                     report.chunks = memory_->chunk_count();
                     report.counters = memory_->counters();
                     r.reply(std::move(report));
                   },
                   [&](StopOp&) {},
               },
               op);
  }
}

}  // namespace lightning::worker
