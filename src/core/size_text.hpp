// Byte sizes written by people: "64MiB", "2GB", "512k", "1024".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lightning {

/// Parses a byte size: an unsigned integer, optionally followed by a unit: B, K/KB (1000),
/// KiB (1024), M/MB, MiB, G/GB, GiB, T/TB, TiB (case-insensitive; K, M, G, T alone are
/// binary, as in `ulimit`). Empty on malformed text or overflow.
std::optional<uint64_t> parse_size_text(std::string_view text);

/// Formats bytes for messages: "64 MiB", "1.5 GiB", "17 B".
std::string format_size(uint64_t bytes);

}  // namespace lightning
