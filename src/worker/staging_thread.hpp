// The worker's staging thread: the one owner of its memory manager.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <variant>
#include <vector>

#include "core/ids.hpp"
#include "core/message_queue.hpp"
#include "planner/task_failure.hpp"
#include "worker/engine.hpp"
#include "worker/memory_manager.hpp"
#include "worker/planned_uses.hpp"
#include "worker/trace_writer.hpp"

namespace lightning::worker {

/// A worker's memory in figures, as its memory manager sees it.
struct MemoryReport {
  uint64_t device_bytes = 0;
  uint64_t host_bytes = 0;
  size_t spill_files = 0;
  size_t chunks = 0;
  MemoryCounters counters;
};

/// Runs a MemoryManager on a thread of its own, fed by a queue: creating and deleting chunks,
/// staging a task's chunks where it runs (evicting and spilling to make room) and releasing
/// them. Staging that must wait for space waits here, oldest task first, and is retried
/// whenever space may have been freed. Every request is answered through `Replies`, from this
/// thread.
///
/// When a device runs short of memory that is free or clean (MemoryManager::start_write_back),
/// it writes dirty copies back to the host ahead of their eviction on a thread of its own
/// (the "write-back" engine, at most kWriteBacksAtOnce at a time), while this thread goes on
/// staging: on a GPU the copies to the host then overlap those to the device (they go on
/// streams of their own), and evictions on the staging path drop clean copies instead of
/// copying them. A chunk being written back waits to be staged or deleted until it is done.
class StagingThread {
 public:
  /// How requests are answered (each called on the staging thread).
  struct Replies {
    /// The task's chunks are staged: a pointer per request, in order.
    std::function<void(TaskId, std::vector<void*>)> staged;
    /// Staging failed for good (e.g. out of memory): the underlying error.
    std::function<void(TaskId, planner::TaskFailure)> stage_failed;
    /// A CreateChunk or DeleteChunk is done: empty on success, else the underlying error.
    std::function<void(TaskId, std::optional<planner::TaskFailure>)> done;
    /// stage_in_place could not stage the task without moving data (nothing changed).
    std::function<void(TaskId)> not_in_place;
  };

  /// `trace` and `track` (optional) receive a slice per staging that moved bytes. `planned`
  /// (optional) is read on the thread that makes the requests, which owns it: while the memory
  /// manager wants them (MemoryManager::wants_next_uses, a device's memory more than half used)
  /// every request takes the next uses changed since the last one taken to the memory manager
  /// (MemoryManager::plan_next_use), so eviction follows the plan without messages of its own;
  /// otherwise they wait in `planned`, one per chunk at most.
  StagingThread(const MemoryLimits& limits, MemoryBackend& backend, std::vector<DeviceId> devices,
                Replies replies, TraceWriter* trace = nullptr, int track = -1,
                PlannedUses* planned = nullptr, const WaitPolicy* wait = nullptr);
  /// Stops the thread; queued requests are dropped.
  ~StagingThread();
  StagingThread(const StagingThread&) = delete;
  StagingThread& operator=(const StagingThread&) = delete;

  void stage(TaskId task, std::vector<StageRequest> requests);
  /// Stages `task` behind the tasks `behind` (staged before it, run before it on one in-order
  /// queue) if its chunks are already where it runs (MemoryManager::stage_in_place): answered
  /// at once, by `staged` or `not_in_place`, never waiting for space.
  void stage_in_place(TaskId task, std::vector<StageRequest> requests, std::vector<TaskId> behind);
  void unstage(TaskId task);
  /// `phase`: see MemoryManager::create_chunk.
  void create(TaskId task, ChunkId chunk, uint64_t bytes, uint64_t phase);
  void remove(TaskId task, ChunkId chunk);
  /// Blocks until the staging thread answers. May be called from any thread.
  MemoryReport report();

  /// Write-backs ahead of eviction under way at most.
  static constexpr int kWriteBacksAtOnce = 2;

 private:
  struct StageOp {
    TaskId task;
    std::vector<StageRequest> requests;
  };
  struct StageInPlaceOp {
    TaskId task;
    std::vector<StageRequest> requests;
    std::vector<TaskId> behind;
  };
  struct UnstageOp {
    TaskId task;
  };
  struct CreateOp {
    TaskId task;
    ChunkId chunk;
    uint64_t bytes;
    uint64_t phase;
  };
  struct DeleteOp {
    TaskId task;
    ChunkId chunk;
  };
  struct ReportOp {
    std::function<void(MemoryReport)> reply;
  };
  struct WriteBackDoneOp {  // from the write-back engine
    ChunkId chunk;
    std::exception_ptr error;  ///< null: written back
  };
  struct StopOp {};
  using Op = std::variant<StageOp, StageInPlaceOp, UnstageOp, CreateOp, DeleteOp, ReportOp,
                          WriteBackDoneOp, StopOp>;
  /// A request, with the next uses that changed before it was made (applied first).
  struct Message {
    std::vector<NextUse> next_uses;
    Op op;
  };

  /// Queues `op` with the planned uses' changes (on the requesting thread).
  void post(Op op);
  void loop();
  /// False when it must wait for space.
  bool try_stage(StageOp& op);
  /// Where the staged chunks of `requests` are, in request order.
  std::vector<void*> pointers_of(const std::vector<StageRequest>& requests) const;
  void retry_waiting();
  /// Runs `f`, answering `task` (Replies::done) with what it threw.
  template <class F>
  void answer(TaskId task, F&& f);
  /// Deletes the chunk, answering `task` (the chunk must not be being written back).
  void delete_now(TaskId task, ChunkId chunk);
  /// Starts the write-backs the memory manager asks for, up to kWriteBacksAtOnce.
  void start_write_backs();
  void write_back_done(const WriteBackDoneOp& done);

  std::vector<DeviceId> devices_;
  Replies replies_;
  TraceWriter* trace_;
  int track_;
  PlannedUses* planned_;  // the requesting thread's
  // Whether requests take the next uses along: the staging thread's answer to
  // MemoryManager::wants_next_uses after each batch, read by the requesting thread (only a
  // hint: whatever it reads, no next use is lost, as they wait in `planned_`).
  std::atomic<bool> next_uses_wanted_{false};
  MessageQueue<Message> ops_;
  MemoryBackend& backend_;
  // Owned by the staging thread.
  std::unique_ptr<MemoryManager> memory_;
  std::map<TaskId, StageOp> waiting_;          // staging that must wait for space, oldest first
  std::vector<DeleteOp> deferred_deletes_;     // of chunks being written back
  int write_backs_ = 0;                        // under way
  bool write_back_failed_ = false;             // once one failed, no more are started
  std::unique_ptr<Engine> write_back_engine_;  // made at the first write-back
  std::thread thread_;
};

}  // namespace lightning::worker
