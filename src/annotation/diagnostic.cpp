#include "annotation/diagnostic.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace lightning::annotation {

std::string format_diagnostic(std::string_view text, size_t offset, std::string_view message) {
  offset = std::min(offset, text.size());
  size_t line_start = 0;
  int line = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t line_end = text.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = text.size();
  const size_t column = offset - line_start + 1;

  std::string out = "annotation:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  out += message;
  out += '\n';
  out += text.substr(line_start, line_end - line_start);
  out += '\n';
  for (size_t i = line_start; i < offset; ++i) out += text[i] == '\t' ? '\t' : ' ';
  out += '^';
  return out;
}

std::string location_of(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line_start = 0;
  int line = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return std::to_string(line) + ":" + std::to_string(offset - line_start + 1);
}

std::string Diagnostic::format(std::string_view text) const {
  if (severity == Severity::kWarning) return format_diagnostic(text, offset, "warning: " + message);
  return format_diagnostic(text, offset, message);
}

void throw_annotation_error(std::string_view text, size_t offset, std::string_view message) {
  throw Error(ErrorKind::kAnnotation, format_diagnostic(text, offset, message));
}

}  // namespace lightning::annotation
