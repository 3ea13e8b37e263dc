// One worker: the devices of one process, running the task fragments it is given.
#pragma once

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
#include "planner/task.hpp"
#include "planner/task_failure.hpp"
#include "worker/device.hpp"
#include "worker/device_platform.hpp"
#include "worker/engine.hpp"
#include "worker/fragment_context.hpp"
#include "worker/memory_manager.hpp"
#include "worker/scheduler.hpp"
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
};

/// Runs fragments on a process's devices. Three kinds of threads, each owning its state and
/// fed by a queue: the scheduler thread (task states, see Scheduler), the staging thread (the
/// MemoryManager: staging, eviction, spilling; it retries staging that must wait for space),
/// and the devices (Device: per device a compute and a copy engine, emulated or a GPU's) with
/// one host copy engine for chunks in host memory. Completions are reported through the
/// handler, from the scheduler thread.
class Worker {
 public:
  /// Called once per finished task; `failure` is empty on success. A failure of the worker
  /// itself (a broken invariant) comes with an invalid task id.
  using CompletionHandler = std::function<void(WorkerId worker, TaskId task,
                                               const std::optional<planner::TaskFailure>& failure)>;

  Worker(WorkerOptions options, comm::Transport& transport, CompletionHandler on_completed);
  /// Stops the threads; tasks not yet run are abandoned (the driver fences first).
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Queues a fragment; `context` holds the launches and host buffers its tasks name.
  void submit(std::vector<planner::Task> tasks, std::shared_ptr<const FragmentContext> context);

  WorkerId id() const { return options_.id; }

  /// Memory statistics, read on the staging thread (blocks until it answers).
  struct MemoryReport {
    uint64_t device_bytes = 0;
    uint64_t host_bytes = 0;
    size_t spill_files = 0;
    size_t chunks = 0;
    MemoryCounters counters;
  };
  MemoryReport memory_report();

 private:
  struct ChunkMeta {
    Rect box;
    size_t element_size = 0;
    DataType type = DataType::kUInt8;
    DeviceId home;  // invalid: host memory
  };
  struct Running {  // what a staged task needs while it runs
    std::shared_ptr<const FragmentContext> context;
    std::vector<void*> pointers;  // per access, in Task::accesses order
  };

  // Events for the scheduler thread.
  struct SubmitEvent {
    std::vector<planner::Task> tasks;
    std::shared_ptr<const FragmentContext> context;
  };
  struct StagedEvent {
    TaskId task;
    std::vector<void*> pointers;
  };
  struct StageFailedEvent {
    TaskId task;
    planner::TaskFailure failure;  ///< the underlying error (see Scheduler::on_failed)
  };
  struct RanEvent {
    TaskId task;
    std::exception_ptr error;  ///< null on success
  };
  struct ArrivedEvent {
    comm::DataMessage message;
  };
  struct ReceivedEvent {  // a Recv's announced payload is in: in its chunk, or in `payload`
    TaskId task;
    comm::Payload payload;
    std::string error;
  };
  struct StopEvent {};
  using Event = std::variant<SubmitEvent, StagedEvent, StageFailedEvent, RanEvent, ArrivedEvent,
                             ReceivedEvent, StopEvent>;

  // Operations for the staging thread.
  struct StageOp {
    TaskId task;
    std::vector<StageRequest> requests;
  };
  struct UnstageOp {
    TaskId task;
  };
  struct CreateOp {
    TaskId task;
    ChunkId chunk;
    uint64_t bytes;
    uint64_t phase;  ///< see MemoryManager::create_chunk
  };
  struct DeleteOp {
    TaskId task;
    ChunkId chunk;
  };
  struct ReportOp {
    std::function<void(MemoryReport)> reply;
  };
  struct StopOp {};
  using StagingOp = std::variant<StageOp, UnstageOp, CreateOp, DeleteOp, ReportOp, StopOp>;

  class Sink;

  void scheduler_loop();
  void staging_loop();
  void handle(SubmitEvent& e);
  void run_task(const planner::Task& task);
  void stage_task(const planner::Task& task);
  void report_completion(const planner::Task& task,
                         const std::optional<planner::TaskFailure>& failure);
  void name_kernel(const planner::Task& task, planner::TaskFailure::Kernel& names) const;
  MemorySpace space_for(const planner::Task& task, ChunkId chunk) const;
  uint64_t alignment_phase(ChunkId chunk) const;
  PlacedBuffer placed(const planner::Task& task, size_t access, void* data) const;
  Device* device_for(const planner::Task& task, int* track) const;
  Device::Done finished(const planner::Task& task, int track);
  void run_copy(const planner::Task& task, PlacedBuffer dst, PlacedBuffer src, const Rect& region);
  void run_on_host(const planner::Task& task, std::vector<HostAccess> accesses,
                   Device::HostJob job);
  void run_send(const planner::Task& task, const planner::SendTask& send, PlacedBuffer src);
  void run_recv(const planner::Task& task, const planner::RecvTask& recv, PlacedBuffer dst);
  void on_received(ReceivedEvent& e);
  void unpack(const planner::Task& task, PlacedBuffer dst, std::shared_ptr<comm::Payload> payload);
  static std::exception_ptr wrong_size(size_t got, size_t expected);
  /// The bytes of `region` in `buffer`, where the host can use them in place as one block.
  void* block_in_place(const PlacedBuffer& buffer, const Rect& region) const;
  void record(int track, const std::string& name, OpSpan span, std::vector<TraceArg> args);

  WorkerOptions options_;
  comm::Transport& transport_;
  CompletionHandler on_completed_;
  std::shared_ptr<DevicePlatform> platform_;  // outlives the memory manager and the devices

  MessageQueue<Event> events_;
  MessageQueue<StagingOp> staging_ops_;

  // Scheduler-thread state.
  std::unique_ptr<Sink> sink_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unordered_map<ChunkId, ChunkMeta> chunks_;
  std::unordered_map<TaskId, std::shared_ptr<const FragmentContext>> contexts_;
  std::unordered_map<TaskId, Running> running_;
  std::unordered_map<uint64_t, comm::DataMessage> messages_;  // arrived, Recv not yet run
  struct Receiving {  // a Recv whose announced payload is on its way
    planner::Task task;
    PlacedBuffer dst;
    size_t size = 0;  // announced bytes
    std::chrono::steady_clock::time_point start;
  };
  std::unordered_map<TaskId, Receiving> receiving_;

  // Staging-thread state.
  std::unique_ptr<MemoryManager> memory_;

  // Engines (declared after the queues: their last jobs still post to them on shutdown).
  std::vector<std::unique_ptr<Device>> devices_;
  std::unique_ptr<Engine> host_copy_;  // for chunks in host memory
  std::unordered_map<DeviceId, size_t> device_index_;
  std::unordered_map<DeviceId, int> compute_track_, copy_track_;
  int host_copy_track_ = -1;
  int staging_track_ = -1;

  std::thread scheduler_thread_;
  std::thread staging_thread_;
};

}  // namespace lightning::worker
