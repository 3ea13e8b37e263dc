#include "comm/transport.hpp"

#include "core/error.hpp"

namespace lightning::comm {

void Transport::receive(WorkerId to, uint64_t tag, void* /*destination*/, ReceiveDone /*done*/) {
  throw Error(ErrorKind::kInternal, "receive of the message with tag " + std::to_string(tag) +
                                        " for worker " + to.to_string() +
                                        ": this transport delivers payloads whole, it has none "
                                        "pending");
}

}  // namespace lightning::comm
