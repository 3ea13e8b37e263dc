// Where the MPI transport hands data messages to the workers of its rank.
#pragma once

#include <mutex>
#include <unordered_map>
#include <vector>

#include "comm/transport.hpp"

namespace lightning::comm {

/// The handler of each local worker, and the messages that arrived before their worker's
/// handler was set (a session's first messages may overtake the start of its worker).
/// Thread-safe: callers set handlers while the communication thread delivers.
class HandlerRegistry {
 public:
  /// Sets (or, when `handler` is empty, removes) the handler of worker `w`; messages that
  /// waited for it are handed to it now, in the order they came.
  void set(WorkerId w, Transport::Handler handler);
  /// Hands `message` to the handler of `message.to`, or keeps it until that handler is set.
  /// The handler is called without the lock held: it may take long, or set handlers itself.
  void deliver(DataMessage message);

 private:
  std::mutex mutex_;
  std::unordered_map<WorkerId, Transport::Handler> handlers_;
  std::unordered_map<WorkerId, std::vector<DataMessage>> unclaimed_;
};

}  // namespace lightning::comm
