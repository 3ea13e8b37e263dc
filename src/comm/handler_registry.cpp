#include "comm/handler_registry.hpp"

#include <utility>

namespace lightning::comm {

void HandlerRegistry::set(WorkerId w, Transport::Handler handler) {
  std::vector<DataMessage> waiting;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!handler) {
      handlers_.erase(w);
      return;
    }
    handlers_[w] = handler;
    auto it = unclaimed_.find(w);
    if (it != unclaimed_.end()) {
      waiting = std::move(it->second);
      unclaimed_.erase(it);
    }
  }
  for (DataMessage& m : waiting) handler(std::move(m));
}

void HandlerRegistry::deliver(DataMessage message) {
  Transport::Handler handler;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = handlers_.find(message.to);
    if (it == handlers_.end()) {
      unclaimed_[message.to].push_back(std::move(message));
      return;
    }
    handler = it->second;
  }
  handler(std::move(message));
}

}  // namespace lightning::comm
