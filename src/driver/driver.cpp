#include "driver/driver.hpp"

#include <algorithm>
#include <atomic>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/reduction.hpp"
#include "driver/launch_decoder.hpp"
#include "driver/local_devices.hpp"
#include "driver/task_error.hpp"
#include "driver/wire_format.hpp"
#include "kernel/kernel_registry.hpp"
#include "worker/trace_writer.hpp"
#include "worker/worker.hpp"

namespace lightning::driver {

namespace {

DeviceSet device_set_for(const Config& config, int workers) {
  if (workers < 1) throw Error(ErrorKind::kInvalidArgument, "a driver needs at least one worker");
  return DeviceSet::uniform(workers, local_device_count(config));
}

// Opens a session on every worker rank; each answers with the devices it contributes.
DeviceSet device_set_over_ranks(const Config& config, Cluster& cluster, uint64_t session) {
  std::vector<int> counts(static_cast<size_t>(cluster.size()));
  counts[0] = local_device_count(config);
  const std::vector<rpc::Message> replies = cluster.request_all(rpc::OpenSession{session, config});
  for (int r = 1; r < cluster.size(); ++r) {
    const auto& offer = std::get<rpc::DevicesOffered>(replies[static_cast<size_t>(r)]);
    if (!offer.error.empty())
      throw Error(ErrorKind::kConfig, "rank " + std::to_string(r) + ": " + offer.error);
    counts[static_cast<size_t>(r)] = offer.count;
  }
  return DeviceSet::from_counts(counts);
}

uint64_t next_session() {
  static std::atomic<uint64_t> sessions{0};
  return ++sessions;
}

}  // namespace

Driver::Driver(const Config& config, int workers)
    : config_(config), planner_(device_set_for(config, workers)), transport_(&loopback_) {
  set_log_level(config.log);
  start_local_workers(workers);
  log().info("driver: {} worker(s), devices {}", workers, planner_.devices().describe());
}

Driver::Driver(const Config& config, std::shared_ptr<Cluster> cluster)
    : cluster_(std::move(cluster)),
      session_(next_session()),
      config_(config),
      planner_(device_set_over_ranks(config, *cluster_, session_)),
      transport_(&cluster_->transport()) {
  set_log_level(config.log);
  cluster_->set_listener(this);
  try {
    start_local_workers(1);
    const DeviceSet& devices = planner_.devices();
    for (int r = 1; r < cluster_->size(); ++r) {
      const WorkerId w(static_cast<uint64_t>(r));
      const rpc::Message reply = cluster_->request(
          r, rpc::StartWorker{session_, devices.devices_of(w), config.device_memory.value_or(0)});
      const std::string& error = std::get<rpc::WorkerStarted>(reply).error;
      if (!error.empty())
        throw Error(ErrorKind::kConfig, "rank " + std::to_string(r) + ": " + error);
    }
  } catch (...) {
    workers_.clear();
    cluster_->set_listener(nullptr);
    throw;
  }
  log().info("driver: {} ranks, devices {}", cluster_->size(), planner_.devices().describe());
}

void Driver::start_local_workers(int workers) {
  if (!config_.trace.empty()) trace_ = std::make_unique<worker::TraceWriter>(0, "lightning");
  const DeviceSet& devices = planner_.devices();
  // In-process, the process drives every device; over MPI, its own.
  const uint64_t device_bytes = config_.device_memory.value_or(
      default_device_memory(cluster_ ? devices.devices_of(WorkerId(0)).size() : devices.size()));
  std::vector<worker::WorkerOptions> options(static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    worker::WorkerOptions& o = options[static_cast<size_t>(w)];
    o.id = WorkerId(w);
    o.devices = devices.devices_of(WorkerId(w));
    for (DeviceId d : o.devices) o.memory.devices.push_back({d, device_bytes});
    o.memory.host_bytes = config_.host_memory;
    o.memory.spill_dir = config_.spill_dir;
    o.staging_limit = config_.staging_limit;
    o.trace = trace_.get();
  }
  choose_platforms(config_, options);
  for (worker::WorkerOptions& o : options)
    workers_.push_back(std::make_unique<worker::Worker>(
        std::move(o), *transport_,
        [this](WorkerId, TaskId t, const std::optional<planner::TaskFailure>& failure) {
          std::optional<planner::TaskFailure> f = failure;
          if (f && cluster_) f->rank = 0;  // over MPI, a failure says on which rank it happened
          on_completed(t, std::move(f));
        }));
}

Driver::~Driver() {
  try {
    fence();
  } catch (const std::exception& e) {
    log().error("errors not collected before shutdown: {}", e.what());
  }
  if (cluster_) {
    // Nothing is in flight after the fence: unhook worker 0, then stop every worker.
    transport_->set_handler(WorkerId(0), nullptr);
    workers_.clear();
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
  }
  workers_.clear();
  if (trace_) trace_->flush(config_.trace);
}

void Driver::on_task_completed(int rank, TaskId task,
                               const std::optional<planner::TaskFailure>& failure) {
  std::optional<planner::TaskFailure> f = failure;
  if (f) f->rank = rank;
  on_completed(task, std::move(f));
}

void Driver::on_rank_lost(int rank, const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_.empty())
      lost_ = "rank " + std::to_string(rank) + " (worker W" + std::to_string(rank) +
              ") was lost: " + reason;
  }
  completed_.notify_all();
}

void Driver::submit(const planner::Plan& plan, const worker::FragmentContext& context) {
  auto shared = std::make_shared<const worker::FragmentContext>(context);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outstanding_ += plan.task_count();
    for (TaskId t : plan.completion) waiting_.insert(t);
  }
  for (size_t w = 0; w < plan.fragments.size(); ++w) {
    if (plan.fragments[w].empty()) continue;
    if (w < workers_.size()) {
      workers_[w]->submit(plan.fragments[w], shared);
      continue;
    }
    // A worker rank: the tasks and every launch they may name (host buffers stay here: the
    // planner gives host reads and writes to worker 0).
    rpc::SubmitFragment m;
    m.tasks = plan.fragments[w];
    for (const auto& [id, data] : context.launches) m.launches.emplace_back(id, *data);
    cluster_->send(static_cast<int>(w), m);
  }
}

void Driver::on_completed(TaskId task, std::optional<planner::TaskFailure> failure) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_.erase(task);
    if (task.valid()) --outstanding_;
    if (failure) failures_.push_back(std::move(*failure));
  }
  completed_.notify_all();
}

void Driver::wait_for(const std::vector<TaskId>& tasks) {
  std::unique_lock<std::mutex> lock(mutex_);
  completed_.wait(lock, [&] {
    return !lost_.empty() ||
           std::none_of(tasks.begin(), tasks.end(), [&](TaskId t) { return waiting_.count(t); });
  });
  if (!lost_.empty()) throw Error(ErrorKind::kCommunication, lost_);
}

void Driver::throw_pending_error() {
  std::vector<planner::TaskFailure> failures;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    failures.swap(failures_);
  }
  if (!failures.empty()) throw task_error(failures);
}

ArrayId Driver::create_array(const std::string& name, DataType type, const Point& extent,
                             const DataDistribution& distribution) {
  auto [id, plan] = planner_.create_array({name, type, extent, distribution});
  arrays_[id] = {name, type, extent};
  submit(plan, {});
  return id;
}

void Driver::delete_array(ArrayId array) {
  const planner::Plan plan = planner_.delete_array(array);
  arrays_.erase(array);
  submit(plan, {});
}

void Driver::fill(ArrayId array, const Rect& region, const void* value) {
  const planner::ArrayState& a = planner_.array(array);
  const auto* bytes = static_cast<const uint8_t*>(value);
  submit(planner_.fill(array, region, {bytes, bytes + a.element_size()}), {});
}

void Driver::write(ArrayId array, const Rect& region, const void* host) {
  const planner::HostBufferId buffer = next_buffer();
  const planner::Plan plan = planner_.write_from_host(array, region, buffer);
  worker::FragmentContext context;
  context.host_buffers[buffer.value] = {const_cast<void*>(host), region,
                                        planner_.array(array).element_size()};
  submit(plan, context);
  wait_for(plan.completion);
}

void Driver::read(ArrayId array, const Rect& region, void* host) {
  const planner::HostBufferId buffer = next_buffer();
  const planner::Plan plan = planner_.read_to_host(array, region, buffer);
  worker::FragmentContext context;
  context.host_buffers[buffer.value] = {host, region, planner_.array(array).element_size()};
  submit(plan, context);
  wait_for(plan.completion);
  throw_pending_error();
}

void Driver::launch(const Launch& l) {
  const kernel::KernelInfo& info = kernel::KernelRegistry::get(l.kernel);
  const kernel::KernelDescription& described = info.described_by(l.description);
  const annotation::BoundAnnotation& bound =
      annotations_.bind(described.annotation, described.signature, l.domain.rank());
  const planner::HostBufferId result = info.reduces() ? next_buffer() : planner::HostBufferId{};
  DecodedLaunch decoded = decode_launch(l, info, described, bound, planner_, result);
  const planner::Plan plan = planner_.launch(decoded.request);  // throws before any submission
  worker::FragmentContext context;
  context.launches[plan.request] = decoded.data;
  if (info.reduces()) {
    decoded.data->reduction.init(l.result);
    context.host_buffers[result.value] = {l.result, Rect(), decoded.data->reduction.value_size};
  }
  submit(plan, context);
  if (info.reduces()) {
    wait_for(plan.completion);
    throw_pending_error();
  }
}

std::vector<worker::Worker::MemoryReport> Driver::memory_reports() {
  std::vector<worker::Worker::MemoryReport> reports;
  for (auto& w : workers_) reports.push_back(w->memory_report());
  if (cluster_) {
    for (const rpc::Message& m : cluster_->request_all(rpc::ReportMemory{})) {
      const auto* r = std::get_if<rpc::MemoryReported>(&m);
      if (!r) continue;  // rank 0's slot
      reports.push_back({r->device_bytes, r->host_bytes, static_cast<size_t>(r->spill_files),
                         static_cast<size_t>(r->chunks), r->counters});
    }
  }
  return reports;
}

void Driver::fence() {
  const planner::Plan plan = planner_.fence();
  submit(plan, {});
  wait_for(plan.completion);
  TaskId last;
  for (TaskId t : plan.completion)
    if (!last.valid() || last < t) last = t;
  if (last.valid()) planner_.retire_before(TaskId(last.value() + 1));
  throw_pending_error();
}

}  // namespace lightning::driver
