#include "comm/loopback_transport.hpp"

#include "core/error.hpp"

namespace lightning::comm {

void LoopbackTransport::set_handler(WorkerId w, Handler handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  handlers_[w] = std::move(handler);
}

void LoopbackTransport::send(DataMessage message) {
  Handler handler;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = handlers_.find(message.to);
    if (it == handlers_.end())
      throw Error(ErrorKind::kCommunication, "message with tag " + std::to_string(message.tag) +
                                                 " for worker " + message.to.to_string() +
                                                 ", which does not exist in this process");
    handler = it->second;
  }
  copy_lent_bytes(message);
  handler(std::move(message));
}

}  // namespace lightning::comm
