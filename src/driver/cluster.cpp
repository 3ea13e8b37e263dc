#include "driver/cluster.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/cpu_affinity.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "driver/wire_format.hpp"
#include "driver/worker_service.hpp"

namespace lightning::driver {

namespace {

// Whether the launcher ends every rank of the job when one calls MPI_Abort, a stopped one too:
// Open MPI's mpirun does (SIGCONT, SIGTERM, SIGKILL) unless run with --enable-recovery. Where
// it does, a survivor must not end a lost rank itself first: mpirun would see that rank die
// while the abort is under way, and can then hang instead of ending the job.
bool launcher_ends_every_rank() {
  if (!std::getenv("OMPI_COMM_WORLD_SIZE")) return false;  // not Open MPI's mpirun: unknown
  const char* recovery = std::getenv("OMPI_MCA_orte_enable_recovery");
  return !recovery || std::string(recovery) == "0" || std::string(recovery) == "false";
}

}  // namespace

Cluster::Options Cluster::Options::from(const Config& config) {
  return {config.heartbeat_interval, config.peer_timeout, config.direct_receive_wait,
          config.comm_poll};
}

Cluster::Cluster() : Cluster(Options()) {}

Cluster::Cluster(Options options) {
  // MPI_Init and MPI_Finalize stay on the application's thread (MPI wants them on one
  // thread); every other MPI call is made by the transport's communication thread, hence
  // more than MPI_THREAD_FUNNELED (see docs/runtime.md).
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    owns_mpi_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Before the communication thread exists, so on this thread like MPI_Init.
  const ProcessIdentity self = ProcessIdentity::of_this_process();
  processes_.resize(static_cast<size_t>(size_));
  MPI_Allgather(&self, sizeof self, MPI_BYTE, processes_.data(), sizeof self, MPI_BYTE,
                MPI_COMM_WORLD);
  std::vector<std::string> hosts;
  for (const ProcessIdentity& p : processes_) hosts.push_back(p.host_name());
  node_ = node_rank_among(hosts, rank_);
  // The ranks on this host share its CPUs.
  if (const std::string advice =
          cpu_affinity_advice(cpus_allowed(), cpus_online(), node_.local_size, kBusyRuntimeThreads);
      !advice.empty())
    log().warn("rank {}: {}", rank_, advice);
  comm::MpiTransport::Options t;
  t.heartbeat_interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(options.heartbeat_interval);
  t.peer_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options.peer_timeout);
  t.direct_receive_wait = options.direct_receive_wait;
  t.idle_poll = options.comm_poll;
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r) t.watched.push_back(r);
  } else {
    t.watched.push_back(0);
  }
  try {
    transport_ = std::make_unique<comm::MpiTransport>(
        std::move(t), [this](comm::ControlMessage m) { on_control(std::move(m)); },
        [this](int rank, const std::string& reason) { on_rank_lost(rank, reason); });
  } catch (...) {
    if (owns_mpi_) MPI_Finalize();
    throw;
  }
}

Cluster::~Cluster() {
  // MPI_Finalize waits for every rank, a lost one too: after a loss it would never return
  // (and the user's own, when the application owns MPI, neither). End the job instead: every
  // process stops, with the reason printed and mpirun's exit status non-zero.
  const std::string reason = first_loss();
  // Only a run that ends well is ended rank by rank: after a loss, a survivor told to end
  // would enter MPI_Finalize (which cannot complete) while the launcher ends the job, one
  // more process changing state under Open MPI's abort, whose races hang mpirun now and then.
  if (rank_ == 0 && reason.empty())
    for (int r = 1; r < size_; ++r) send(r, rpc::EndRun{});
  transport_.reset();  // sends what is queued, then stops
  if (!reason.empty()) {
    log().error("rank {}: ending the MPI job (MPI_Abort): {}", rank_, reason);
    // mpirun --enable-recovery ends neither a stopped nor a hung rank, and would wait for it
    // for ever: end the lost ranks that still live on this host, unless the launcher will.
    if (!launcher_ends_every_rank())
      for (int lost : lost_ranks())
        if (end_process(processes_.at(static_cast<size_t>(lost))))
          log().error("rank {}: ended rank {} (pid {}), lost but still alive on this host", rank_,
                      lost, processes_.at(static_cast<size_t>(lost)).pid);
    log().flush();
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (owns_mpi_) MPI_Finalize();
}

std::vector<int> Cluster::lost_ranks() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int> ranks;
  for (const auto& [rank, reason] : lost_) ranks.push_back(rank);
  return ranks;
}

std::string Cluster::first_loss() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (lost_.empty()) return {};
  return "rank " + std::to_string(lost_.begin()->first) + " was lost: " + lost_.begin()->second;
}

void Cluster::on_control(comm::ControlMessage message) {
  rpc::Message m;
  try {
    m = rpc::decode(message.bytes, message.from);
  } catch (const std::exception& e) {
    on_rank_lost(message.from, e.what());  // a rank that speaks garbage is as good as gone
    return;
  }
  if (rank_ != 0) {  // a worker rank: serve() handles everything in order
    inbox_.push(std::move(m));
    return;
  }
  if (auto* done = std::get_if<rpc::TasksCompleted>(&m)) {
    std::lock_guard<std::mutex> lock(listener_mutex_);
    if (listener_)
      for (const rpc::TaskCompleted& t : done->tasks)
        listener_->on_task_completed(message.from, t.task, t.failure);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    replies_[message.from] = std::move(m);
  }
  replied_.notify_all();
}

void Cluster::on_rank_lost(int rank, const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lost_.emplace(rank, reason);
  }
  if (rank_ != 0) {
    inbox_.push(RankLost{rank, reason});
    return;
  }
  replied_.notify_all();
  std::lock_guard<std::mutex> lock(listener_mutex_);
  if (listener_) listener_->on_rank_lost(rank, reason);
}

int Cluster::serve(const DeviceSelection& own_devices) {
  if (rank_ == 0)
    throw Error(ErrorKind::kInvalidArgument, "Cluster::serve: rank 0 drives, it does not serve");
  WorkerService service(*this, own_devices);
  for (;;) {
    auto event = inbox_.pop();
    if (auto* lost = std::get_if<RankLost>(&event)) {
      if (lost->rank != 0) continue;
      log().error("rank {}: the driver (rank 0) was lost: {}; this worker stops", rank_,
                  lost->reason);
      return 1;
    }
    if (!service.handle(std::move(std::get<rpc::Message>(event)))) return 0;
  }
}

void Cluster::set_listener(Listener* listener) {
  std::lock_guard<std::mutex> lock(listener_mutex_);
  listener_ = listener;
}

void Cluster::send(int rank, const rpc::Message& message) {
  transport_->send_control(rank, rpc::encode(message));
}

std::string Cluster::lost_reason(int rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = lost_.find(rank);
  return it == lost_.end() ? std::string() : it->second;
}

rpc::Message Cluster::wait_reply(int rank) {
  std::unique_lock<std::mutex> lock(mutex_);
  replied_.wait(lock, [&] { return replies_.count(rank) || lost_.count(rank); });
  auto it = replies_.find(rank);
  if (it == replies_.end())
    throw Error(ErrorKind::kCommunication,
                "rank " + std::to_string(rank) + " was lost: " + lost_.at(rank));
  rpc::Message reply = std::move(it->second);
  replies_.erase(it);
  return reply;
}

rpc::Message Cluster::request(int rank, const rpc::Message& message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    replies_.erase(rank);
  }
  send(rank, message);
  return wait_reply(rank);
}

std::vector<rpc::Message> Cluster::request_all(const rpc::Message& message) {
  std::vector<rpc::Message> replies(static_cast<size_t>(size_));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int r = 1; r < size_; ++r) replies_.erase(r);
  }
  const std::vector<uint8_t> bytes = rpc::encode(message);
  for (int r = 1; r < size_; ++r) transport_->send_control(r, bytes);
  for (int r = 1; r < size_; ++r) replies[static_cast<size_t>(r)] = wait_reply(r);
  return replies;
}

}  // namespace lightning::driver
