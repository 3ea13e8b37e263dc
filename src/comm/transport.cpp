#include "comm/transport.hpp"

#include "core/error.hpp"

namespace lightning::comm {

void copy_lent_bytes(DataMessage& m) {
  if (!m.lent.data) return;
  const auto* bytes = static_cast<const uint8_t*>(m.lent.data);
  m.payload.assign(bytes, bytes + m.lent.size);
  LentBytes lent = std::move(m.lent);
  m.lent = {};
  if (lent.release) lent.release();
}

void Transport::receive(WorkerId to, uint64_t tag, void* /*destination*/, ReceiveDone /*done*/) {
  throw Error(ErrorKind::kInternal, "receive of the message with tag " + std::to_string(tag) +
                                        " for worker " + to.to_string() +
                                        ": this transport delivers payloads whole, it has none "
                                        "pending");
}

}  // namespace lightning::comm
