// The one overflow-checked conversion from element counts to bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace lightning {

/// The most bytes one array, chunk or message may hold: what fits an int64 (a byte offset, a
/// size_t and a ptrdiff_t alike).
inline constexpr uint64_t kMaxBytes = static_cast<uint64_t>(INT64_MAX);

/// `elements` values of `element_size` bytes, in bytes. Throws Error(kInvalidArgument) naming
/// `what` ("array 'x' of extent (2147483648, 2147483648)") when the count is negative or the
/// product exceeds kMaxBytes, instead of wrapping.
uint64_t byte_size(int64_t elements, uint64_t element_size, std::string_view what);

}  // namespace lightning
