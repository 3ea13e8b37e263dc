#include "driver/worker_group.hpp"

#include <atomic>
#include <utility>

#include "comm/loopback_transport.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "driver/local_devices.hpp"
#include "driver/wire_format.hpp"
#include "worker/trace_writer.hpp"

namespace lightning::driver {

namespace {

// The workers `ids` of this process (at `node` on its host) over `transport`, with
// `device_bytes` per device, sharing `trace` and `wait`; a failure reported with `rank` set
// (>= 0) says on which rank it happened.
std::vector<std::unique_ptr<worker::Worker>> make_workers(
    const Config& config, NodeRank node, const DeviceSet& devices, const std::vector<WorkerId>& ids,
    uint64_t device_bytes, comm::Transport& transport, worker::TraceWriter* trace, WaitPolicy& wait,
    int rank, const WorkerEvents& events) {
  std::vector<worker::WorkerOptions> options(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    worker::WorkerOptions& o = options[i];
    o.id = ids[i];
    o.devices = devices.devices_of(ids[i]);
    for (DeviceId d : o.devices) o.memory.devices.push_back({d, device_bytes});
    apply_worker_settings(config, o);
    o.trace = trace;
    o.wait = &wait;
  }
  choose_platforms(config, node, options);
  std::vector<std::unique_ptr<worker::Worker>> workers;
  for (worker::WorkerOptions& o : options)
    workers.push_back(std::make_unique<worker::Worker>(
        std::move(o), transport,
        [completed = events.completed, rank](WorkerId, TaskId t,
                                             const std::optional<planner::TaskFailure>& failure) {
          std::optional<planner::TaskFailure> f = failure;
          if (f && rank >= 0) f->rank = rank;
          completed(t, std::move(f));
        }));
  return workers;
}

std::unique_ptr<worker::TraceWriter> trace_for(const Config& config) {
  if (config.trace.empty()) return nullptr;
  return std::make_unique<worker::TraceWriter>(0, "lightning");
}

// ---- in one process ----

class LocalWorkers final : public WorkerGroup {
 public:
  LocalWorkers(const Config& config, int workers)
      : config_(config),
        local_(local_devices(config, NodeRank{})),
        devices_(device_set_for(local_, workers)),
        count_(workers),
        wait_(config.gpu_poll) {}

  const DeviceSet& devices() const override { return devices_; }
  bool gpus_only() const override { return local_.gpus; }
  const WaitPolicy* wait_policy() const override { return &wait_; }
  worker::TraceWriter* trace() const override { return trace_.get(); }

  void start(WorkerEvents events) override {
    trace_ = trace_for(config_);
    std::vector<WorkerId> ids;
    for (int w = 0; w < count_; ++w) ids.push_back(WorkerId(static_cast<uint64_t>(w)));
    // The process drives every device.
    const uint64_t device_bytes =
        config_.device_memory.value_or(default_device_memory(devices_.size()));
    workers_ = make_workers(config_, NodeRank{}, devices_, ids, device_bytes, loopback_,
                            trace_.get(), wait_, -1, events);
  }

  void submit(WorkerId worker, std::vector<planner::Task> tasks,
              const std::shared_ptr<const worker::FragmentContext>& context) override {
    workers_.at(worker.value())->submit(std::move(tasks), context);
  }

  std::vector<worker::Worker::MemoryReport> memory_reports() override {
    std::vector<worker::Worker::MemoryReport> reports;
    for (auto& w : workers_) reports.push_back(w->memory_report());
    return reports;
  }

  void stop() override {
    workers_.clear();
    if (trace_) trace_->flush(config_.trace);
  }

  std::string describe() const override { return std::to_string(count_) + " worker(s)"; }

 private:
  static DeviceSet device_set_for(const LocalDevices& local, int workers) {
    if (workers < 1) throw Error(ErrorKind::kInvalidArgument, "a driver needs at least one worker");
    return DeviceSet::uniform(workers, local.count);
  }

  Config config_;
  LocalDevices local_;
  DeviceSet devices_;
  int count_;
  WaitPolicy wait_;
  comm::LoopbackTransport loopback_;
  std::unique_ptr<worker::TraceWriter> trace_;
  std::vector<std::unique_ptr<worker::Worker>> workers_;  // last: stopped first
};

// ---- over the ranks of an MPI run ----

uint64_t next_session() {
  static std::atomic<uint64_t> sessions{0};
  return ++sessions;
}

class ClusterWorkers final : public WorkerGroup, private Cluster::Listener {
 public:
  ClusterWorkers(const Config& config, std::shared_ptr<Cluster> cluster)
      : cluster_(std::move(cluster)),
        session_(next_session()),
        config_(config),
        devices_(open_sessions()),
        wait_(config.gpu_poll),
        last_sent_(static_cast<size_t>(cluster_->size())) {}

  ~ClusterWorkers() override { cluster_->set_listener(nullptr); }

  const DeviceSet& devices() const override { return devices_; }
  bool gpus_only() const override { return gpus_only_; }
  const WaitPolicy* wait_policy() const override { return &wait_; }
  worker::TraceWriter* trace() const override { return trace_.get(); }

  void start(WorkerEvents events) override {
    events_ = std::move(events);
    cluster_->set_listener(this);
    try {
      trace_ = trace_for(config_);
      // This process drives its own devices only.
      const uint64_t device_bytes = config_.device_memory.value_or(
          default_device_memory(devices_.devices_of(WorkerId(0)).size()));
      local_ = make_workers(config_, cluster_->node_rank(), devices_, {WorkerId(0)}, device_bytes,
                            cluster_->transport(), trace_.get(), wait_, 0, events_);
      for (int r = 1; r < cluster_->size(); ++r) {
        const WorkerId w(static_cast<uint64_t>(r));
        const rpc::Message reply = cluster_->request(
            r,
            rpc::StartWorker{session_, devices_.devices_of(w), config_.device_memory.value_or(0)});
        const std::string& error = std::get<rpc::WorkerStarted>(reply).error;
        if (!error.empty())
          throw Error(ErrorKind::kConfig, "rank " + std::to_string(r) + ": " + error);
      }
    } catch (...) {
      local_.clear();
      cluster_->set_listener(nullptr);
      throw;
    }
  }

  void submit(WorkerId worker, std::vector<planner::Task> tasks,
              const std::shared_ptr<const worker::FragmentContext>& context) override {
    if (worker == WorkerId(0)) return local_.front()->submit(std::move(tasks), context);
    // A worker rank: the tasks and every launch they may name (host buffers stay here: the
    // planner gives host reads and writes to worker 0).
    rpc::SubmitFragment m;
    m.tasks = std::move(tasks);
    const auto& launches = context->launches();
    rpc::LastLaunch& last = last_sent_.at(worker.value());
    if (launches.size() == 1 && last.data &&
        (last.data == launches[0].second || *last.data == *launches[0].second)) {
      m.repeated.emplace_back(launches[0].first, last.id);
      last.id = launches[0].first;
    } else {
      m.launches.assign(launches.begin(), launches.end());
      if (!launches.empty()) last = {launches.back().first, launches.back().second};
    }
    cluster_->send(static_cast<int>(worker.value()), rpc::Message(std::move(m)));
  }

  std::vector<worker::Worker::MemoryReport> memory_reports() override {
    std::vector<worker::Worker::MemoryReport> reports;
    for (auto& w : local_) reports.push_back(w->memory_report());
    for (const rpc::Message& m : cluster_->request_all(rpc::ReportMemory{})) {
      const auto* r = std::get_if<rpc::MemoryReported>(&m);
      if (!r) continue;  // rank 0's slot
      reports.push_back({r->device_bytes, r->host_bytes, static_cast<size_t>(r->spill_files),
                         static_cast<size_t>(r->chunks), r->counters});
    }
    return reports;
  }

  void stop() override {
    // Nothing is in flight: unhook worker 0, then stop every worker.
    cluster_->transport().set_handler(WorkerId(0), nullptr);
    local_.clear();
    for (int r = 1; r < cluster_->size(); ++r) {
      if (!cluster_->lost_reason(r).empty()) continue;
      try {
        const rpc::Message reply = cluster_->request(r, rpc::CloseSession{});
        const std::string& error = std::get<rpc::SessionClosed>(reply).error;
        if (!error.empty()) log().error("rank {}: {}", r, error);
      } catch (const std::exception& e) {
        log().error("closing the session: {}", e.what());
      }
    }
    cluster_->set_listener(nullptr);
    if (trace_) trace_->flush(config_.trace);
  }

  std::string describe() const override { return std::to_string(cluster_->size()) + " ranks"; }

 private:
  // Opens a session on every worker rank; each answers with the devices it contributes.
  DeviceSet open_sessions() {
    std::vector<int> counts(static_cast<size_t>(cluster_->size()));
    const LocalDevices local = local_devices(config_, cluster_->node_rank());
    counts[0] = local.count;
    bool gpus = local.gpus;
    const std::vector<rpc::Message> replies =
        cluster_->request_all(rpc::OpenSession{session_, config_});
    for (int r = 1; r < cluster_->size(); ++r) {
      const auto& offer = std::get<rpc::DevicesOffered>(replies[static_cast<size_t>(r)]);
      if (!offer.error.empty())
        throw Error(ErrorKind::kConfig, "rank " + std::to_string(r) + ": " + offer.error);
      counts[static_cast<size_t>(r)] = offer.count;
      gpus = gpus && (offer.gpus || offer.count == 0);
    }
    gpus_only_ = gpus;
    return DeviceSet::from_counts(counts);
  }

  void on_task_completed(int rank, TaskId task,
                         const std::optional<planner::TaskFailure>& failure) override {
    std::optional<planner::TaskFailure> f = failure;
    if (f) f->rank = rank;
    events_.completed(task, std::move(f));
  }
  void on_rank_lost(int rank, const std::string& reason) override {
    events_.lost("rank " + std::to_string(rank) + " (worker W" + std::to_string(rank) +
                 ") was lost: " + reason);
  }

  std::shared_ptr<Cluster> cluster_;  // declared first: destroyed last
  uint64_t session_;                  // this driver's session on the worker ranks
  Config config_;
  bool gpus_only_ = false;  // set by open_sessions(), before devices_ holds its result
  DeviceSet devices_;
  WaitPolicy wait_;
  WorkerEvents events_;
  std::unique_ptr<worker::TraceWriter> trace_;
  // By rank: the launch each worker rank was told of last, which a repeated launch names
  // instead of sending its data again (the program thread alone touches it, in submit).
  std::vector<rpc::LastLaunch> last_sent_;
  std::vector<std::unique_ptr<worker::Worker>> local_;  // worker 0; last: stopped first
};

}  // namespace

std::unique_ptr<WorkerGroup> local_workers(const Config& config, int workers) {
  return std::make_unique<LocalWorkers>(config, workers);
}

std::unique_ptr<WorkerGroup> cluster_workers(const Config& config,
                                             std::shared_ptr<Cluster> cluster) {
  return std::make_unique<ClusterWorkers>(config, std::move(cluster));
}

}  // namespace lightning::driver
