#include "worker/data_exchange.hpp"

#include <memory>
#include <utility>

#include "core/error.hpp"
#include "worker/region_ops.hpp"

namespace lightning::worker {

using planner::Task;

namespace {

std::exception_ptr wrong_size(size_t got, size_t expected) {
  return std::make_exception_ptr(
      Error(ErrorKind::kCommunication,
            "message of " + std::to_string(got) + " bytes, expected " + std::to_string(expected)));
}

OpSpan since(std::chrono::steady_clock::time_point start) {
  return {start, std::chrono::steady_clock::now()};
}

}  // namespace

DataExchange::DataExchange(WorkerId self, comm::Transport& transport, Port& port)
    : self_(self), transport_(transport), port_(port) {}

void DataExchange::arrived(comm::DataMessage message) {
  const uint64_t tag = message.tag;
  messages_[tag] = std::move(message);
}

void DataExchange::send(const Task& task, const planner::SendTask& send, const PlacedBuffer& src) {
  comm::DataMessage m;
  m.from = self_;
  m.to = send.to;
  m.tag = send.tag;
  if (void* block = port_.block_in_place(src, send.region)) {
    m.lent.data = block;
    m.lent.size = static_cast<size_t>(send.region.volume()) * src.elem_size;
    m.lent.release = [done = port_.finished(task), start = std::chrono::steady_clock::now()] {
      done(nullptr, since(start));
    };
    try {
      transport_.send(std::move(m));
    } catch (const std::exception&) {  // not taken: the bytes will not be released
      port_.finished(task)(std::current_exception(), since(std::chrono::steady_clock::now()));
    }
    return;
  }
  port_.run_on_host(task, {{src, send.region, true, false}},
                    [this, region = send.region, m = std::move(m)](const auto& b) mutable {
                      m.payload.resize(static_cast<size_t>(region.volume()) * b[0].elem_size);
                      worker::pack_region(m.payload.data(), b[0], region);
                      transport_.send(std::move(m));
                    });
}

void DataExchange::recv(const Task& task, const planner::RecvTask& recv, const PlacedBuffer& dst) {
  auto it = messages_.find(recv.tag);
  if (it == messages_.end())
    throw Error(ErrorKind::kInternal, task.id.to_string() + " runs before its message (tag " +
                                          std::to_string(recv.tag) + ") arrived");
  comm::DataMessage message = std::move(it->second);
  messages_.erase(it);
  const size_t expected = static_cast<size_t>(recv.region.volume()) * dst.elem_size;
  if (message.pending_size == 0) {
    if (message.payload.size() != expected)
      return port_.finished(task)(wrong_size(message.payload.size(), expected),
                                  since(std::chrono::steady_clock::now()));
    return unpack(task, dst, std::make_shared<comm::Payload>(std::move(message.payload)));
  }
  void* block = message.pending_size == expected ? port_.block_in_place(dst, recv.region) : nullptr;
  receiving_.emplace(task.id,
                     Receiving{task, dst, message.pending_size, std::chrono::steady_clock::now()});
  transport_.receive(self_, recv.tag, block,
                     [this, id = task.id](comm::Payload payload, std::string error) {
                       port_.post_received(id, std::move(payload), std::move(error));
                     });
}

void DataExchange::received(TaskId task, comm::Payload payload, const std::string& error) {
  auto it = receiving_.find(task);
  if (it == receiving_.end())
    throw Error(ErrorKind::kInternal,
                "a receive ended for " + task.to_string() + ", which is not receiving");
  Receiving r = std::move(it->second);
  receiving_.erase(it);
  const Device::Done done = port_.finished(r.task);
  if (!error.empty())
    return done(std::make_exception_ptr(Error(ErrorKind::kCommunication, error)), since(r.start));
  const size_t expected =
      static_cast<size_t>(std::get<planner::RecvTask>(r.task.kind).region.volume()) *
      r.dst.elem_size;
  if (r.size != expected) return done(wrong_size(r.size, expected), since(r.start));
  if (payload.empty()) return done(nullptr, since(r.start));  // it went where recv() said
  unpack(r.task, r.dst, std::make_shared<comm::Payload>(std::move(payload)));
}

void DataExchange::unpack(const Task& task, const PlacedBuffer& dst,
                          std::shared_ptr<comm::Payload> payload) {
  const Rect region = std::get<planner::RecvTask>(task.kind).region;
  port_.run_on_host(task, {{dst, region, false, true}}, [payload, region](const auto& b) {
    worker::unpack_region(b[0], payload->data(), region);
  });
}

void DataExchange::ended(const Task& task, const std::optional<planner::TaskFailure>& failure) {
  // A Send that will never run still owes its Recv a message: one naming the failed task
  // (the Send, or the task at the root of what it was skipped for), so the Recv is skipped.
  if (failure)
    if (const auto* s = std::get_if<planner::SendTask>(&task.kind)) {
      comm::DataMessage m;
      m.from = self_;
      m.to = s->to;
      m.tag = s->tag;
      m.failed_task = failure->skipped() ? failure->caused_by : task.id;
      transport_.send(std::move(m));
    }
  if (const auto* r = std::get_if<planner::RecvTask>(&task.kind)) {
    // A Recv that did not run still takes its announced payload, so that the Send finishes.
    auto it = messages_.find(r->tag);
    if (it == messages_.end()) return;
    if (it->second.pending_size > 0)
      transport_.receive(self_, r->tag, nullptr, [](comm::Payload, std::string) {});
    messages_.erase(it);
  }
}

}  // namespace lightning::worker
