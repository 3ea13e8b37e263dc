#include "comm/incoming_payloads.hpp"

#include <vector>

#include "core/error.hpp"

namespace lightning::comm {

IncomingPayloads::IncomingPayloads(Communicator& comm, BufferPool& buffers, const Clock& clock,
                                   std::chrono::microseconds direct_receive_wait)
    : comm_(comm), buffers_(buffers), clock_(clock), direct_receive_wait_(direct_receive_wait) {}

void IncomingPayloads::announce(int from, WorkerId to, uint64_t tag, int payload_tag, size_t size,
                                PeerFailures& failed) {
  Incoming in;
  in.from = from;
  in.payload_tag = payload_tag;
  in.size = size;
  in.deadline = clock_.now() + direct_receive_wait_;
  auto [it, inserted] = incoming_.emplace(Key{to.value(), tag}, std::move(in));
  if (!inserted)
    throw Error(ErrorKind::kCommunication, "a second payload with tag " + std::to_string(tag) +
                                               " for worker " + std::to_string(to.value()));
  if (direct_receive_wait_.count() <= 0) post(it->second, nullptr, failed);
}

void IncomingPayloads::receive(WorkerId to, uint64_t tag, void* destination,
                               Transport::ReceiveDone done, PeerFailures& failed) {
  auto it = incoming_.find({to.value(), tag});
  if (it == incoming_.end()) {
    done({}, "no payload with tag " + std::to_string(tag) + " for worker " + to.to_string() +
                 " was announced (or it was received already)");
    return;
  }
  Incoming& in = it->second;
  in.done = std::move(done);
  if (!in.error.empty() || in.arrived) return complete(it);
  if (!in.posted) post(in, destination, failed);
}

void IncomingPayloads::post(Incoming& in, void* destination, PeerFailures& failed) {
  void* into = destination;
  if (!into) {
    in.buffer = buffers_.take(in.size);
    into = in.buffer.data();
  }
  in.destination = destination;
  const std::string error = comm_.irecv(into, in.size, in.from, in.payload_tag, &in.request);
  if (!error.empty()) {
    failed.push_back({in.from, "receiving from it failed: " + error});
    return;
  }
  in.posted = true;
  ++receiving_;
}

bool IncomingPayloads::buffer_overdue(PeerFailures& failed) {
  const Clock::time_point now = clock_.now();
  bool any = false;
  for (auto& [key, in] : incoming_)
    if (!in.posted && in.error.empty() && now >= in.deadline) {
      post(in, nullptr, failed);
      any = true;
    }
  return any;
}

void IncomingPayloads::complete(Table::iterator it) {
  Incoming in = std::move(it->second);
  incoming_.erase(it);
  if (!delivering_) return;
  if (!in.error.empty()) return in.done({}, std::move(in.error));
  in.done(in.destination ? Payload() : std::move(in.buffer), {});
}

bool IncomingPayloads::test(PeerFailures& failed) {
  bool any = false;
  for (auto it = incoming_.begin(); it != incoming_.end();) {
    Incoming& in = it->second;
    if (!in.posted || in.arrived) {
      ++it;
      continue;
    }
    bool done = false;
    const std::string error = comm_.test(&in.request, &done);
    if (!error.empty()) {
      // Its sender is lost: fail_from() changes the table, so stop here.
      failed.push_back({in.from, "receiving from it failed: " + error});
      return true;
    }
    if (!done) {
      ++it;
      continue;
    }
    any = true;
    in.arrived = true;
    --receiving_;
    if (in.done) {
      complete(it++);
    } else {
      ++it;
    }
  }
  return any;
}

void IncomingPayloads::fail_from(int r, const std::string& reason) {
  for (auto it = incoming_.begin(); it != incoming_.end();) {
    Incoming& in = it->second;
    if (in.from != r || in.arrived) {
      ++it;
      continue;
    }
    if (in.posted) {
      comm_.cancel(&in.request);
      comm_.free(&in.request);
      in.posted = false;
      --receiving_;
    }
    in.error = "rank " + std::to_string(r) + " was lost before its payload with tag " +
               std::to_string(it->first.second) + " arrived: " + reason;
    if (in.done) {
      complete(it++);
    } else {
      ++it;
    }
  }
}

void IncomingPayloads::abandon() {
  for (auto& [key, in] : incoming_)
    if (in.posted && !in.arrived) {
      comm_.cancel(&in.request);
      comm_.free(&in.request);
    }
  incoming_.clear();
  receiving_ = 0;
}

}  // namespace lightning::comm
