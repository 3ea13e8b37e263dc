#include "core/duration_text.hpp"

#include <cctype>
#include <cstdint>
#include <limits>

namespace lightning {

std::optional<std::chrono::microseconds> parse_duration_text(std::string_view text) {
  size_t digits = 0;
  uint64_t value = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    const uint64_t d = static_cast<uint64_t>(text[digits] - '0');
    if (value > (std::numeric_limits<int64_t>::max() - d) / 10) return std::nullopt;
    value = value * 10 + d;
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  const std::string_view unit = text.substr(digits);
  uint64_t scale = 0;
  if (unit == "us") {
    scale = 1;
  } else if (unit == "ms") {
    scale = 1000;
  } else if (unit == "s") {
    scale = 1000000;
  } else if (unit.empty() && value == 0) {
    scale = 1;
  } else {
    return std::nullopt;
  }
  if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / scale)
    return std::nullopt;
  return std::chrono::microseconds(static_cast<int64_t>(value * scale));
}

std::string format_duration(std::chrono::microseconds d) {
  const int64_t us = d.count();
  if (us != 0 && us % 1000000 == 0) return std::to_string(us / 1000000) + "s";
  if (us != 0 && us % 1000 == 0) return std::to_string(us / 1000) + "ms";
  return std::to_string(us) + "us";
}

}  // namespace lightning
