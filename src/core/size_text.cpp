#include "core/size_text.hpp"

#include <cctype>
#include <cstdio>
#include <limits>

namespace lightning {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<uint64_t> unit_factor(std::string_view unit_text) {
  const std::string u = lower(unit_text);
  constexpr uint64_t kKi = 1024, kK = 1000;
  if (u.empty() || u == "b") return 1;
  if (u == "k" || u == "kib") return kKi;
  if (u == "kb") return kK;
  if (u == "m" || u == "mib") return kKi * kKi;
  if (u == "mb") return kK * kK;
  if (u == "g" || u == "gib") return kKi * kKi * kKi;
  if (u == "gb") return kK * kK * kK;
  if (u == "t" || u == "tib") return kKi * kKi * kKi * kKi;
  if (u == "tb") return kK * kK * kK * kK;
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> parse_size_text(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const size_t digits_begin = i;
  uint64_t value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - d) / 10) return std::nullopt;
    value = value * 10 + d;
  }
  if (i == digits_begin) return std::nullopt;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t end = text.size();
  while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  const auto factor = unit_factor(text.substr(i, end - i));
  if (!factor) return std::nullopt;
  if (value != 0 && *factor > std::numeric_limits<uint64_t>::max() / value) return std::nullopt;
  return value * *factor;
}

std::string format_size(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024.0 && unit < 6) {
    v /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0 || v == static_cast<double>(static_cast<uint64_t>(v)))
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), kUnits[unit]);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

}  // namespace lightning
