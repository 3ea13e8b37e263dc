// Executes plans over host memory, in a random order their dependencies allow, to check what
// they compute (the planner's test oracle, with sequential_reference).
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/data_type.hpp"
#include "core/ids.hpp"
#include "core/rect.hpp"
#include "distribution/device_set.hpp"
#include "planner/plan.hpp"
#include "planner/task.hpp"
#include "test_kernels.hpp"

namespace lightning::planner::testing {

/// Runs the tasks of submitted plans. Every chunk is a separate byte vector (row-major over its
/// box) on its worker; host buffers are byte vectors the test provides. Whatever a plan does
/// wrong at run time is reported with ADD_FAILURE naming the task: a use of a chunk that does
/// not exist (yet, or any more) or lives on another worker; a kernel thread touching an element
/// outside its binding's region or chunk, or a parameter without a binding; a read of an element
/// nothing wrote since the chunk was created; a Recv whose message never comes (reported by
/// run(), which never hangs); element sizes or arrays that do not match.
///
/// Typical use: register arrays (add_array) and launches (add_launch) as the planner returns
/// them, host buffers before the plans that use them; submit() each plan; run() before looking
/// at host buffers. Tasks of several submitted plans interleave as their dependencies allow.
class PlanSimulator {
 public:
  /// What an ExecuteTask of a launch needs: the kernel, the arrays per signature parameter
  /// (checked against the chunks bound) and the integer scalars.
  struct LaunchInfo {
    const TestKernel* kernel = nullptr;
    std::vector<ArrayId> arrays;
    std::vector<int64_t> scalars;
  };
  struct HostBuffer {
    DataType type = DataType::kFloat64;
    Rect box;
    std::vector<uint8_t> bytes;
    std::vector<uint8_t> defined;  ///< per element: written (by the test or a task)
  };

  PlanSimulator(DeviceSet devices, uint64_t seed);

  /// The element type of `array`'s chunks (temporaries included).
  void add_array(ArrayId array, DataType type) { array_types_[array] = type; }
  void add_launch(LaunchId launch, LaunchInfo info) { launches_[launch] = std::move(info); }
  /// A host buffer with `values` (row-major over `box`) for writes to an array.
  void set_host_buffer(HostBufferId id, DataType type, const Rect& box,
                       const std::vector<double>& values);
  /// A host buffer with nothing defined yet, for reads (or a scalar result initialised to
  /// `identity` when given: what the driver does for ScalarReduction::result).
  void add_host_buffer(HostBufferId id, DataType type, const Rect& box);
  void add_scalar_result(HostBufferId id, DataType type, double identity);
  const HostBuffer& host_buffer(HostBufferId id) const { return host_.at(id.value); }
  /// The values of a host buffer; reports a failure for elements no task wrote.
  std::vector<double> host_values(HostBufferId id, const std::string& what) const;

  /// Queues the tasks of `plan`.
  void submit(const Plan& plan);
  /// Runs every queued task, in a random order allowed by dependencies and messages. Tasks
  /// that can never run (a Recv without its Send, a dependency cycle or unknown dependency)
  /// and messages nobody receives are reported as failures.
  void run();

  bool chunk_exists(ChunkId c) const { return chunks_.count(c) != 0; }
  /// The contents of chunk `c` (row-major over `box`; `defined` per element): false when it
  /// does not exist. For coherence checks once everything submitted ran.
  bool chunk_contents(ChunkId c, Rect& box, std::vector<double>& values,
                      std::vector<uint8_t>& defined) const;
  size_t live_chunks() const { return chunks_.size(); }
  size_t executed_tasks() const { return done_.size(); }
  size_t executed_threads() const { return threads_; }
  /// Number of failures reported so far (they stop being printed after a few dozen).
  size_t failures() const { return failures_; }
  /// Text put before every failure message (e.g. the case being replayed).
  void set_context(std::string context) { context_ = std::move(context); }

 private:
  struct ChunkMem {
    WorkerId worker;
    ArrayId array;
    Rect box;
    bool scalar = false;  // rank 0: a reduction value; its type comes from the launch
    DataType type = DataType::kFloat64;
    size_t elem = 0;
    std::vector<uint8_t> bytes;
    std::vector<uint8_t> defined;
    size_t offset(const Point& p) const;
  };
  struct Message {
    WorkerId from, to;
    Rect region;
    size_t elem = 0;
    ArrayId array;  // invalid for host buffers
    std::vector<uint8_t> bytes;
    std::vector<uint8_t> defined;
    std::string sender;
  };
  friend class ExecuteAccess;

  void fail(const Task& task, const std::string& message);
  void execute(const Task& task);
  void on_done(const Task& task);
  /// The chunk `id` if it exists on the task's worker and holds `region`; else a failure.
  ChunkMem* use_chunk(const Task& task, ChunkId id, const Rect& region, const char* role);
  HostBuffer* use_host(const Task& task, HostBufferId id, const Rect& host_box, const Rect& region,
                       const char* role);
  const LaunchInfo* launch_info(const Task& task, LaunchId launch);
  /// Type used for typed operations on `c` by `launch` (the scalar type for rank-0 chunks).
  DataType value_type(const Task& task, const ChunkMem& c, LaunchId launch);

  void run_create(const Task& t, const CreateChunkTask& k);
  void run_delete(const Task& t, const DeleteChunkTask& k);
  void run_execute(const Task& t, const ExecuteTask& k);
  void run_copy(const Task& t, const CopyTask& k);
  void run_send(const Task& t, const SendTask& k);
  void run_recv(const Task& t, const RecvTask& k);
  void run_fill(const Task& t, const FillTask& k);
  void run_fold(const Task& t, const FoldTask& k);
  void run_host_write(const Task& t, const HostWriteTask& k);
  void run_host_read(const Task& t, const HostReadTask& k);

  DeviceSet devices_;
  std::mt19937_64 rng_;
  std::unordered_map<ArrayId, DataType> array_types_;
  std::unordered_map<LaunchId, LaunchInfo> launches_;
  std::unordered_map<uint64_t, HostBuffer> host_;
  std::unordered_map<ChunkId, ChunkMem> chunks_;
  std::unordered_set<ChunkId> deleted_;
  std::unordered_map<uint64_t, Message> mailbox_;  // by tag
  std::unordered_set<uint64_t> used_tags_;
  std::vector<Task> queued_;
  std::unordered_set<TaskId> done_;
  std::unordered_set<TaskId> queued_ids_;
  size_t threads_ = 0;
  size_t failures_ = 0;
  std::string context_;
};

}  // namespace lightning::planner::testing
