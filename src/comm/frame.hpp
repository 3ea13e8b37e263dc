// The wire format of the MPI transport: what travels on the control tag, one frame per
// message, and the tags payloads of their own travel on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/transport.hpp"

namespace lightning::comm {

/// The tag of every frame; payloads sent apart from their header use tags from
/// kFirstPayloadTag up (see PendingSends::payload_tag).
constexpr int kControlTag = 1;
constexpr int kFirstPayloadTag = 2;

/// The first byte of every frame: what the rest is.
enum class FrameKind : uint8_t {
  kHeartbeat = 0,  ///< nothing else: "still here"
  kControl = 1,    ///< followed by a control message's bytes
  kData = 2,       ///< followed by a DataHeader
  kGoodbye = 3,    ///< nothing else: the sender stops (and is not lost when it falls silent)
};

/// What precedes a DataMessage's payload, and the payload itself when small.
struct DataHeader {
  uint64_t tag = 0;
  uint64_t from = 0;
  uint64_t to = 0;
  uint64_t size = 0;
  int32_t payload_tag = 0;                  ///< 0: the payload is inline
  uint64_t failed_task = TaskId().value();  ///< see DataMessage::failed_task
  Payload inline_payload;
  template <class Archive>
  void serialize(Archive& a) {
    a(tag, from, to, size, payload_tag, failed_task, inline_payload);
  }
};

/// A frame of one byte (a heartbeat, a goodbye).
std::vector<uint8_t> signal_frame(FrameKind kind);
/// A kControl frame carrying `bytes`.
std::vector<uint8_t> control_frame(const std::vector<uint8_t>& bytes);
/// A kData frame carrying `header` (serialised with cereal's binary archive).
std::vector<uint8_t> data_frame(const DataHeader& header);
/// The header of a kData frame. Throws (cereal's exception) when the bytes are truncated.
DataHeader read_data_frame(const std::vector<uint8_t>& frame);

}  // namespace lightning::comm
