#include "worker/staging_thread.hpp"

#include <chrono>
#include <string>

#include "core/log.hpp"
#include "core/overloaded.hpp"
#include "worker/thread_pool.hpp"

namespace lightning::worker {

StagingThread::StagingThread(const MemoryLimits& limits, MemoryBackend& backend,
                             std::vector<DeviceId> devices, Replies replies, TraceWriter* trace,
                             int track, PlannedUses* planned, const WaitPolicy* wait)
    : devices_(std::move(devices)),
      replies_(std::move(replies)),
      trace_(trace),
      track_(track),
      planned_(planned),
      ops_(wait),
      backend_(backend),
      memory_(std::make_unique<MemoryManager>(limits, backend)) {
  thread_ = std::thread([this] { loop(); });
}

StagingThread::~StagingThread() {
  ops_.push({{}, StopOp{}});
  thread_.join();
}

void StagingThread::post(Op op) {
  Message message{{}, std::move(op)};
  if (planned_ && planned_->has_changes() && next_uses_wanted_.load(std::memory_order_relaxed))
    planned_->take_changes(message.next_uses);
  ops_.push(std::move(message));
}

void StagingThread::stage(TaskId task, std::vector<StageRequest> requests) {
  post(StageOp{task, std::move(requests)});
}
void StagingThread::stage_in_place(TaskId task, std::vector<StageRequest> requests,
                                   std::vector<TaskId> behind) {
  post(StageInPlaceOp{task, std::move(requests), std::move(behind)});
}
void StagingThread::unstage(TaskId task) {
  post(UnstageOp{task});
}
void StagingThread::create(TaskId task, ChunkId chunk, uint64_t bytes, uint64_t phase) {
  post(CreateOp{task, chunk, bytes, phase});
}
void StagingThread::remove(TaskId task, ChunkId chunk) {
  post(DeleteOp{task, chunk});
}

MemoryReport StagingThread::report() {
  MessageQueue<MemoryReport> reply;
  // Not post(): any thread may ask for a report, and the planned uses are the requesting
  // thread's.
  ops_.push({{}, ReportOp{[&reply](MemoryReport r) { reply.push(std::move(r)); }}});
  return reply.pop();
}

std::vector<void*> StagingThread::pointers_of(const std::vector<StageRequest>& requests) const {
  std::vector<void*> pointers;
  pointers.reserve(requests.size());
  for (const StageRequest& r : requests) pointers.push_back(memory_->data(r.chunk, r.where));
  return pointers;
}

bool StagingThread::try_stage(StageOp& op) {
  try {
    const auto start = std::chrono::steady_clock::now();
    const MemoryCounters before = memory_->counters();
    if (memory_->stage(op.task.value(), op.requests) == StageResult::kRetryLater) return false;
    const MemoryCounters& after = memory_->counters();
    if (trace_ && track_ >= 0 &&
        (after.bytes_copied != before.bytes_copied || after.disk_writes != before.disk_writes ||
         after.disk_reads != before.disk_reads))
      trace_->record(
          track_, "stage " + op.task.to_string(), start, std::chrono::steady_clock::now(),
          {{"bytes_copied", after.bytes_copied - before.bytes_copied},
           {"bytes_to_disk", after.bytes_written_to_disk - before.bytes_written_to_disk},
           {"bytes_from_disk", after.bytes_read_from_disk - before.bytes_read_from_disk}});
    replies_.staged(op.task, pointers_of(op.requests));
  } catch (const std::exception& e) {
    replies_.stage_failed(op.task, planner::failure_of(e));
  }
  return true;
}

void StagingThread::retry_waiting() {
  for (auto it = waiting_.begin(); it != waiting_.end();)
    it = try_stage(it->second) ? waiting_.erase(it) : std::next(it);
}

template <class F>
void StagingThread::answer(TaskId task, F&& f) {
  std::optional<planner::TaskFailure> failure;
  try {
    f();
  } catch (const std::exception& e) {
    failure = planner::failure_of(e);
  }
  replies_.done(task, std::move(failure));
}

void StagingThread::delete_now(TaskId task, ChunkId chunk) {
  answer(task, [&] { memory_->delete_chunk(chunk); });
  retry_waiting();
}

void StagingThread::start_write_backs() {
  while (write_backs_ < kWriteBacksAtOnce && !write_back_failed_) {
    std::optional<WriteBack> w;
    try {
      w = memory_->start_write_back();
    } catch (const std::exception&) {
      return;  // cleaning is an optimisation: eviction on the staging path does it otherwise
    }
    if (!w) return;
    if (!write_back_engine_) write_back_engine_ = std::make_unique<Engine>("write-back");
    ++write_backs_;
    write_back_engine_->execute(
        [this, w = *w] { backend_.copy(w.dst, MemorySpace::host(), w.src, w.from, w.bytes); },
        [this, chunk = w->chunk](std::exception_ptr error, OpSpan) {
          ops_.push({{}, WriteBackDoneOp{chunk, std::move(error)}});
        });
  }
}

void StagingThread::write_back_done(const WriteBackDoneOp& done) {
  --write_backs_;
  memory_->finish_write_back(done.chunk, done.error == nullptr);
  if (done.error) {
    // Nothing is lost (the device copy stays the only one), but a failing copy to the host
    // says something of the device: no more write-backs ahead (evictions on the staging path
    // then fail the tasks that need them, with the error).
    write_back_failed_ = true;
    std::string what = "an unknown error";
    try {
      std::rethrow_exception(done.error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    log().warn(
        "writing chunk {} back to the host ahead of its eviction failed, so no more chunks are "
        "written back ahead: {}",
        done.chunk.to_string(), what);
  }
  for (size_t i = 0; i < deferred_deletes_.size(); ++i) {
    if (deferred_deletes_[i].chunk != done.chunk) continue;
    const DeleteOp d = deferred_deletes_[i];
    deferred_deletes_.erase(deferred_deletes_.begin() + static_cast<std::ptrdiff_t>(i));
    delete_now(d.task, d.chunk);
    return;
  }
  retry_waiting();  // a staging may have waited for the chunk
}

void StagingThread::loop() {
  name_current_thread("staging");
  RingQueue<Message> popped;  // reused: draining the queue allocates nothing
  // Stops once the write-backs under way are done (their copies write the manager's memory).
  auto stop = [&] {
    while (write_backs_ > 0) {
      ops_.pop_all(popped);
      for (size_t i = 0; i < popped.size(); ++i)
        if (auto* done = std::get_if<WriteBackDoneOp>(&popped[i].op)) {
          --write_backs_;
          memory_->finish_write_back(done->chunk, done->error == nullptr);
        }
    }
  };
  for (;;) {
    ops_.pop_all(popped);
    for (size_t i = 0; i < popped.size(); ++i) {
      for (const NextUse& u : popped[i].next_uses) memory_->plan_next_use(u.chunk, u.task);
      Op& op = popped[i].op;
      if (std::holds_alternative<StopOp>(op)) return stop();
      std::visit(Overloaded{
                     [&](StageOp& s) {
                       if (!try_stage(s)) waiting_.emplace(s.task, std::move(s));
                     },
                     [&](StageInPlaceOp& s) {
                       std::vector<uint64_t> behind;
                       for (TaskId b : s.behind) behind.push_back(b.value());
                       bool staged = false;
                       try {
                         staged = memory_->stage_in_place(s.task.value(), s.requests, behind);
                       } catch (const std::exception& e) {
                         return replies_.stage_failed(s.task, planner::failure_of(e));
                       }
                       if (!staged) return replies_.not_in_place(s.task);
                       replies_.staged(s.task, pointers_of(s.requests));
                     },
                     [&](UnstageOp& u) {
                       memory_->unstage(u.task.value());
                       retry_waiting();
                     },
                     [&](CreateOp& c) {
                       answer(c.task, [&] { memory_->create_chunk(c.chunk, c.bytes, c.phase); });
                     },
                     [&](DeleteOp& d) {
                       if (memory_->writing_back(d.chunk))
                         deferred_deletes_.push_back(d);
                       else
                         delete_now(d.task, d.chunk);
                     },
                     [&](WriteBackDoneOp& done) { write_back_done(done); },
                     [&](ReportOp& r) {
                       MemoryReport report;
                       for (DeviceId d : devices_)
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
    start_write_backs();
    next_uses_wanted_.store(memory_->wants_next_uses(), std::memory_order_relaxed);
  }
}

}  // namespace lightning::worker
