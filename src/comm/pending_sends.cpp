#include "comm/pending_sends.hpp"

#include <utility>

#include "comm/frame.hpp"

namespace lightning::comm {

PendingSends::PendingSends(Communicator& comm, BufferPool& buffers)
    : comm_(comm),
      buffers_(buffers),
      next_payload_tag_(static_cast<size_t>(comm.size()), kFirstPayloadTag) {}

int PendingSends::payload_tag(int to) {
  int& next = next_payload_tag_[static_cast<size_t>(to)];
  const int tag = next;
  next = next >= comm_.tag_ub() ? kFirstPayloadTag : next + 1;
  return tag;
}

void PendingSends::send_frame(int to, std::vector<uint8_t> frame, PeerFailures& failed) {
  sends_.push_back({0, to, std::move(frame), {}});
  Send& s = sends_.back();
  std::string error = comm_.isend(s.frame.data(), s.frame.size(), to, kControlTag, &s.request);
  if (!error.empty()) {
    sends_.pop_back();
    failed.push_back({to, "sending to it failed: " + error});
  }
}

void PendingSends::send_payload(int to, int tag, DataMessage message, PeerFailures& failed) {
  sends_.push_back({0, to, {}, std::move(message)});
  Send& s = sends_.back();
  const bool lent = s.message.lent.data != nullptr;
  const void* bytes = lent ? s.message.lent.data : s.message.payload.data();
  const size_t size = lent ? s.message.lent.size : s.message.payload.size();
  std::string error = comm_.isend(bytes, size, to, tag, &s.request);
  if (!error.empty()) {
    DataMessage dropped = std::move(s.message);
    sends_.pop_back();
    release(dropped);
    failed.push_back({to, "sending to it failed: " + error});
  }
}

bool PendingSends::test(PeerFailures& failed) {
  bool any = false;
  const size_t failed_before = failed.size();
  // Whether a send to `r` failed in this call: its other sends are left alone, for drop_to()
  // once the transport loses it, which releases their lent bytes.
  auto failed_already = [&](int r) {
    for (size_t i = failed_before; i < failed.size(); ++i)
      if (failed[i].rank == r) return true;
    return false;
  };
  for (auto it = sends_.begin(); it != sends_.end();) {
    if (failed.size() > failed_before && failed_already(it->to)) {
      ++it;
      continue;
    }
    bool done = false;
    std::string error = comm_.test(&it->request, &done);
    if (!error.empty()) {
      failed.push_back({it->to, "sending to it failed: " + error});
      it = sends_.erase(it);
      any = true;
    } else if (done) {
      release(it->message);
      buffers_.keep(std::move(it->message.payload));
      it = sends_.erase(it);
      any = true;
    } else {
      ++it;
    }
  }
  return any;
}

void PendingSends::drop_to(int r) {
  // Whatever was on its way to it will not complete: let go of the requests.
  for (auto it = sends_.begin(); it != sends_.end();) {
    if (it->to == r) {
      comm_.free(&it->request);
      release(it->message);
      it = sends_.erase(it);
    } else {
      ++it;
    }
  }
}

void PendingSends::abandon() {
  for (Send& s : sends_) comm_.free(&s.request);
  sends_.clear();
}

void PendingSends::release(DataMessage& m) {
  if (!m.lent.data) return;
  LentBytes lent = std::move(m.lent);
  m.lent = {};
  if (lent.release && releasing_) lent.release();
}

}  // namespace lightning::comm
