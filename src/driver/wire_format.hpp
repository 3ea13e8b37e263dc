// How RPC messages (rpc_message.hpp) travel: binary, with cereal, prefixed by a format version
// so that ranks of different builds fail loudly instead of misreading each other.
#pragma once

#include <cstdint>
#include <vector>

#include "driver/rpc_message.hpp"

namespace lightning::driver::rpc {

/// The bytes of one message.
std::vector<uint8_t> encode(const Message& message);

/// The message `bytes` hold. Throws Error(kCommunication) naming `from_rank` when the bytes
/// are truncated, of another format version, or otherwise not a message.
Message decode(const std::vector<uint8_t>& bytes, int from_rank);

/// "OpenSession", "TasksCompleted", ...: for logs and errors.
const char* name_of(const Message& message);

}  // namespace lightning::driver::rpc
