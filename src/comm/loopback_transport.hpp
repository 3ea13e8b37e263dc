// The transport between workers of one process.
#pragma once

#include <mutex>
#include <unordered_map>

#include "comm/transport.hpp"

namespace lightning::comm {

/// Delivers each message by calling the destination's handler directly (handlers only queue
/// the message for their worker's thread, so this never blocks for long). Payloads arrive
/// whole: lent bytes are copied, and released, before send() returns.
class LoopbackTransport final : public Transport {
 public:
  void set_handler(WorkerId w, Handler handler) override;
  void send(DataMessage message) override;

 private:
  std::mutex mutex_;
  std::unordered_map<WorkerId, Handler> handlers_;
};

}  // namespace lightning::comm
