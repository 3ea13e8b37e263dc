// What a worker rank does with the driver's messages: one worker per session.
#pragma once

#include <memory>
#include <string>

#include "core/config.hpp"
#include "driver/rpc_message.hpp"
#include "worker/trace_writer.hpp"
#include "worker/worker.hpp"

namespace lightning::driver {

class Cluster;

/// The worker side of the RPC on a rank other than 0: opens a session (answers with the
/// rank's devices), starts its worker, feeds it fragments, reports its completions and memory,
/// and closes the session (the worker stops, its trace file is written).
class WorkerService {
 public:
  /// `own_devices`: the rank's own `devices` setting (`auto`: follow the driver's).
  WorkerService(Cluster& cluster, DeviceSelection own_devices);
  /// Stops a session still open (rank 0 was lost).
  ~WorkerService();
  WorkerService(const WorkerService&) = delete;
  WorkerService& operator=(const WorkerService&) = delete;

  /// Handles one message from rank 0; false once it is EndRun.
  bool handle(rpc::Message message);

 private:
  void start(const rpc::StartWorker& m);
  std::string close();

  Cluster& cluster_;
  DeviceSelection own_devices_;
  Config config_;
  uint64_t session_ = 0;  // the session opened last
  int device_count_ = 0;
  std::unique_ptr<worker::TraceWriter> trace_;
  std::unique_ptr<WaitPolicy> wait_;  // the session's, shared by its worker and GPUs
  // Completions not yet sent: only the worker's scheduler thread touches them (through its
  // handlers), and the worker, declared after, stops that thread before they go.
  rpc::TasksCompleted completed_;
  rpc::LastLaunch last_launch_;  // for SubmitFragment::repeated; reset per session
  std::unique_ptr<worker::Worker> worker_;
};

/// The trace file of `rank`: `path` for rank 0, else the rank before the extension
/// (trace.json → trace.2.json), so that the ranks of one run never write the same file.
std::string trace_path_of_rank(const std::string& path, int rank);

}  // namespace lightning::driver
