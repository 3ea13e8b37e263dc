// Durations written by people: "500ms", "5s", "200us", "0".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace lightning {

/// Parses a duration: an unsigned integer followed by a unit, us, ms or s ("0" alone is
/// allowed). Empty on malformed text, a missing unit or overflow.
std::optional<std::chrono::microseconds> parse_duration_text(std::string_view text);

/// Formats a duration in the largest unit that keeps it whole: "5s", "500ms", "250us".
std::string format_duration(std::chrono::microseconds d);

}  // namespace lightning
