#include "driver/worker_service.hpp"

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/overloaded.hpp"
#include "driver/cluster.hpp"
#include "driver/local_devices.hpp"
#include "driver/wire_format.hpp"

namespace lightning::driver {

namespace {

// A fragment this rank cannot run: each of its tasks completes with an internal error saying
// why (a bug of the runtime, which the driver reports at its next wait).
rpc::TasksCompleted refused(const std::vector<planner::Task>& tasks, const std::string& why) {
  rpc::TasksCompleted m;
  for (const planner::Task& t : tasks)
    m.tasks.push_back({t.id, planner::failure_of(t, ErrorKind::kInternal, why)});
  return m;
}

}  // namespace

std::string trace_path_of_rank(const std::string& path, int rank) {
  if (rank == 0) return path;
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  const std::string suffix = "." + std::to_string(rank);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == 0 ||
      (slash != std::string::npos && dot == slash + 1))
    return path + suffix;
  return path.substr(0, dot) + suffix + path.substr(dot);
}

WorkerService::WorkerService(Cluster& cluster, DeviceSelection own_devices)
    : cluster_(cluster), own_devices_(std::move(own_devices)) {}

WorkerService::~WorkerService() {
  const std::string error = close();
  if (!error.empty()) log().error("rank {}: {}", cluster_.rank(), error);
}

bool WorkerService::handle(rpc::Message message) {
  const int rank = cluster_.rank();
  bool running = true;
  std::visit(Overloaded{
                 [&](rpc::OpenSession& m) {
                   close();
                   session_ = m.session;
                   last_launch_ = {};
                   config_ = std::move(m.config);
                   // Each rank contributes the devices it was told to drive; `auto` follows rank 0.
                   if (own_devices_.kind != DeviceSelection::Kind::kAuto)
                     config_.devices = own_devices_;
                   set_log_level(config_.log);
                   wait_ = std::make_unique<WaitPolicy>(config_.gpu_poll);  // no worker uses it now
                   rpc::DevicesOffered reply{m.session, 0, false, {}};
                   try {
                     const LocalDevices local = local_devices(config_, cluster_.node_rank());
                     device_count_ = local.count;
                     reply.count = local.count;
                     reply.gpus = local.gpus;
                   } catch (const std::exception& e) {
                     reply.error = e.what();
                   }
                   cluster_.send(0, reply);
                 },
                 [&](rpc::StartWorker& m) {
                   rpc::WorkerStarted reply;
                   if (m.session != session_) {
                     reply.error = "StartWorker for session " + std::to_string(m.session) +
                                   ", but the session open here is " + std::to_string(session_);
                     cluster_.send(0, reply);
                     return;
                   }
                   try {
                     if (!config_.trace.empty())
                       trace_ = std::make_unique<worker::TraceWriter>(
                           rank, "rank " + std::to_string(rank));
                     worker::WorkerOptions o;
                     o.id = WorkerId(static_cast<uint64_t>(rank));
                     o.devices = m.devices;
                     const uint64_t bytes =
                         m.device_bytes ? m.device_bytes : default_device_memory(m.devices.size());
                     for (DeviceId d : o.devices) o.memory.devices.push_back({d, bytes});
                     apply_worker_settings(config_, o);
                     o.trace = trace_.get();
                     o.wait = wait_.get();
                     std::vector<worker::WorkerOptions> local(1);
                     local[0] = std::move(o);
                     choose_platforms(config_, cluster_.node_rank(), local);
                     // Completions of one burst of the scheduler go out in one message.
                     worker_ = std::make_unique<worker::Worker>(
                         std::move(local[0]), cluster_.transport(),
                         [this](WorkerId, TaskId task, const auto& failure) {
                           completed_.tasks.push_back({task, failure});
                         },
                         [this] {
                           if (completed_.tasks.empty()) return;
                           cluster_.send(0, rpc::Message(std::move(completed_)));
                           completed_.tasks.clear();
                         });
                   } catch (const std::exception& e) {
                     reply.error = e.what();
                   }
                   cluster_.send(0, reply);
                 },
                 [&](rpc::SubmitFragment& m) {
                   if (!worker_) {
                     cluster_.send(0, refused(m.tasks,
                                              "no worker runs on this rank: the fragment came "
                                              "outside a session"));
                     return;
                   }
                   auto context = std::make_shared<worker::FragmentContext>();
                   for (auto& [id, data] : m.launches) {
                     context->add_launch(id, data);
                     last_launch_ = {id, std::move(data)};
                   }
                   for (const auto& [id, earlier] : m.repeated) {
                     if (!last_launch_.data || earlier != last_launch_.id) {
                       cluster_.send(0, refused(m.tasks, "launch " + id.to_string() +
                                                             " repeats the data of launch " +
                                                             earlier.to_string() +
                                                             ", which is not the last launch "
                                                             "this rank was sent"));
                       return;
                     }
                     context->add_launch(id, last_launch_.data);
                     last_launch_.id = id;
                   }
                   worker_->submit(std::move(m.tasks), std::move(context));
                 },
                 [&](rpc::ReportMemory&) {
                   rpc::MemoryReported reply;
                   if (worker_) {
                     const worker::Worker::MemoryReport r = worker_->memory_report();
                     reply = {r.device_bytes, r.host_bytes, r.spill_files, r.chunks, r.counters};
                   }
                   cluster_.send(0, reply);
                 },
                 [&](rpc::CloseSession&) { cluster_.send(0, rpc::SessionClosed{close()}); },
                 [&](rpc::EndRun&) {
                   const std::string error = close();
                   if (!error.empty()) log().error("rank {}: {}", rank, error);
                   running = false;
                 },
                 [&](auto& m) {
                   log().error("rank {}: ignored a {} message, which only rank 0 receives", rank,
                               rpc::name_of(rpc::Message(std::move(m))));
                 },
             },
             message);
  return running;
}

std::string WorkerService::close() {
  const int rank = cluster_.rank();
  if (worker_) {
    // No message for the worker is in flight (the driver fenced): unhook it, then stop it.
    cluster_.transport().set_handler(WorkerId(static_cast<uint64_t>(rank)), nullptr);
    worker_.reset();
  }
  std::string error;
  if (trace_) {
    try {
      trace_->flush(trace_path_of_rank(config_.trace, rank));
    } catch (const std::exception& e) {
      error = e.what();
    }
    trace_.reset();
  }
  return error;
}

}  // namespace lightning::driver
