// How workers exchange bulk data: messages matched by tag.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/ids.hpp"

namespace lightning::comm {

/// The bytes of one Send, for the Recv with the same tag. A Send that failed (or was skipped
/// because something before it failed) still sends a message, carrying the error, so that its
/// Recv fails instead of waiting forever.
struct DataMessage {
  WorkerId from;
  WorkerId to;
  uint64_t tag = 0;
  std::vector<uint8_t> payload;
  std::string error;
};

/// Moves DataMessages between workers. send() does not block; the receiving worker's handler
/// is called, from a thread of the transport, once per message.
class Transport {
 public:
  using Handler = std::function<void(DataMessage)>;
  virtual ~Transport() = default;
  /// Where messages for local worker `w` go. Set before any message for it is sent.
  virtual void set_handler(WorkerId w, Handler handler) = 0;
  virtual void send(DataMessage message) = 0;
};

}  // namespace lightning::comm
