// One worker: the devices of one process, running the task fragments it is given.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

#include "comm/transport.hpp"
#include "core/ids.hpp"
#include "core/message_queue.hpp"
#include "core/reused_nodes.hpp"
#include "core/wait_policy.hpp"
#include "planner/task.hpp"
#include "planner/task_failure.hpp"
#include "worker/chunk_table.hpp"
#include "worker/data_exchange.hpp"
#include "worker/device.hpp"
#include "worker/device_platform.hpp"
#include "worker/engine.hpp"
#include "worker/fragment_context.hpp"
#include "worker/memory_manager.hpp"
#include "worker/planned_uses.hpp"
#include "worker/scheduler.hpp"
#include "worker/staging_leases.hpp"
#include "worker/staging_thread.hpp"
#include "worker/trace_writer.hpp"

namespace lightning::worker {

/// How a worker is set up.
struct WorkerOptions {
  WorkerId id;
  std::vector<DeviceId> devices;  ///< in global numbering
  MemoryLimits memory;            ///< pool size per device, host cap, spill directory
  uint64_t staging_limit = 2'000'000'000;
  /// Opens the devices and serves their memory (emulated host devices or GPUs: the backends
  /// implement it). Required.
  std::shared_ptr<DevicePlatform> platform;
  TraceWriter* trace = nullptr;  ///< optional; shared by the workers of a process
  /// Optional; shared by the workers of a process: how the scheduler and staging threads
  /// wait for work (GPU platforms count their operations in it and poll by it too).
  WaitPolicy* wait = nullptr;
  /// Checked mode (Config::check_access): kernels on devices that check accesses run with
  /// checked array handles.
  bool check_access = false;
};

/// Runs fragments on a process's devices. Three kinds of threads, each owning its state and
/// fed by a queue: the scheduler thread (task states, see Scheduler; the chunks' layouts, see
/// ChunkTable; the Send/Recv protocol, see DataExchange), the staging thread (StagingThread:
/// the MemoryManager's staging, eviction and spilling) and the devices (Device: per device a
/// compute and a copy engine, emulated or a GPU's) with one host copy engine for chunks in host
/// memory. Completions are reported through the handler, from the scheduler thread.
class Worker {
 public:
  /// Called once per finished task; `failure` is empty on success. A failure of the worker
  /// itself (a broken invariant) comes with an invalid task id.
  using CompletionHandler = std::function<void(WorkerId worker, TaskId task,
                                               const std::optional<planner::TaskFailure>& failure)>;
  /// Called on the scheduler thread after each burst of its events (what it found queued at
  /// once) and before the thread ends: a handler that gathers completions sends them here.
  using BurstEndHandler = std::function<void()>;

  Worker(WorkerOptions options, comm::Transport& transport, CompletionHandler on_completed,
         BurstEndHandler on_burst_end = {});
  /// Stops the threads; tasks not yet run are abandoned (the driver fences first).
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Queues a fragment; `context` holds the launches and host buffers its tasks name.
  void submit(std::vector<planner::Task> tasks, std::shared_ptr<const FragmentContext> context);

  WorkerId id() const { return options_.id; }

  using MemoryReport = worker::MemoryReport;
  /// Memory statistics, read on the staging thread (blocks until it answers).
  MemoryReport memory_report() { return staging_->report(); }

 private:
  // Events for the scheduler thread.
  struct SubmitEvent {
    std::vector<planner::Task> tasks;
    std::shared_ptr<const FragmentContext> context;
  };
  struct StagedEvent {
    TaskId task;
    std::vector<void*> pointers;  ///< per request, from the staging thread; none for a sharer
  };
  struct StageFailedEvent {
    TaskId task;
    planner::TaskFailure failure;  ///< the underlying error (see Scheduler::on_failed)
  };
  struct NotInPlaceEvent {  // staging behind others found the chunks not in place
    TaskId task;
  };
  struct RanEvent {
    TaskId task;
    std::optional<planner::TaskFailure> failure;  ///< empty on success
  };
  struct ArrivedEvent {
    comm::DataMessage message;
  };
  struct ReceivedEvent {  // an announced payload's receive ended (DataExchange::received)
    TaskId task;
    comm::Payload payload;
    std::string error;
  };
  struct StopEvent {};
  using Event = std::variant<SubmitEvent, StagedEvent, StageFailedEvent, NotInPlaceEvent, RanEvent,
                             ArrivedEvent, ReceivedEvent, StopEvent>;

  class Sink;
  class ExchangePort;

  void scheduler_loop();
  /// Handles one event on the scheduler thread; false for StopEvent.
  bool handle_event(Event& event);
  void handle(SubmitEvent& e);
  /// `task` was not staged (failed, or not in place): so are the launches sharing its staging.
  void not_staged(TaskId task);
  void run_task(const planner::Task& task);
  /// The failure flags of the launches `task` depends on that are in flight on an in-order
  /// device (for what is issued behind them).
  FailureFlags launch_failures_before(const planner::Task& task) const;
  /// Stages the task's chunks; behind the tasks `behind` (in place only) when not empty.
  void stage_task(const planner::Task& task, const std::vector<TaskId>& behind);
  /// `task` no longer counts as a future use of its chunks (PlannedUses).
  void end_planned_uses(const planner::Task& task);
  void report_completion(const planner::Task& task,
                         const std::optional<planner::TaskFailure>& failure);
  void name_kernel(const planner::Task& task, planner::TaskFailure::Kernel& names) const;
  const ChunkTable& chunks() const { return scheduler_->chunks(); }
  /// The chunk's home device when it is one of this worker's; invalid: host memory.
  DeviceId home_of(ChunkId chunk) const;
  MemorySpace space_for(const planner::Task& task, ChunkId chunk) const;
  uint64_t alignment_phase(ChunkId chunk) const;
  PlacedBuffer placed(const planner::Task& task, size_t access, void* data) const;
  Device* device_for(const planner::Task& task, int* track) const;
  Device::Done finished(const planner::Task& task);
  Device::Done finished(const planner::Task& task, int track);
  void run_copy(const planner::Task& task, PlacedBuffer dst, PlacedBuffer src, const Rect& region);
  void run_on_host(const planner::Task& task, std::vector<HostAccess> accesses,
                   Device::HostJob job);
  /// The same in the queue of the launches `task` was issued behind (on their device).
  void run_on_host_behind_launches(const planner::Task& task, std::vector<HostAccess> accesses,
                                   Device::HostJob job);
  /// The bytes of `region` in `buffer`, where the host can use them in place as one block.
  void* block_in_place(const PlacedBuffer& buffer, const Rect& region) const;
  void record(int track, const std::string& name, OpSpan span, std::vector<TraceArg> args);

  WorkerOptions options_;
  comm::Transport& transport_;
  CompletionHandler on_completed_;
  BurstEndHandler on_burst_end_;
  std::shared_ptr<DevicePlatform> platform_;  // outlives the memory manager and the devices

  MessageQueue<Event> events_;

  // Scheduler-thread state.
  std::unique_ptr<Sink> sink_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<ExchangePort> exchange_port_;
  std::unique_ptr<DataExchange> exchange_;
  // What the worker keeps of each task from its submission to its completion (one entry per
  // task: this is built and dropped for every task).
  struct TaskState {
    std::shared_ptr<const FragmentContext> context;
    /// A launch in flight on an in-order device: set when it fails, for those issued behind.
    std::shared_ptr<std::atomic<bool>> launch_failed;
    /// Staged behind launches it depends on (Scheduler): runs in their device's queue.
    bool issued_behind = false;
  };
  std::unordered_map<TaskId, TaskState> tasks_;
  ReusedNodes<std::unordered_map<TaskId, TaskState>> reused_tasks_;
  StagingLeases leases_;      // which token holds each staged task's chunks, and their data
  PlannedUses planned_uses_;  // for the eviction order; sent with each staging request

  // Engines (declared after the queues: their last jobs still post to them on shutdown).
  std::vector<std::unique_ptr<Device>> devices_;
  std::unique_ptr<Engine> host_copy_;  // for chunks in host memory
  std::unordered_map<DeviceId, size_t> device_index_;
  std::unordered_map<DeviceId, int> compute_track_, copy_track_;
  int host_copy_track_ = -1;

  std::unique_ptr<StagingThread> staging_;
  std::thread scheduler_thread_;
};

}  // namespace lightning::worker
