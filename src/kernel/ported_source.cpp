#include "kernel/ported_source.hpp"

#include <cctype>
#include <cstdlib>

namespace lightning::kernel {

namespace {

bool starts_identifier(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool continues_identifier(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Walks C++ text token by token, skipping comments and literals.
class Scanner {
 public:
  explicit Scanner(const std::string& text) : text_(text) {}

  // The next identifier or punctuation character at or after `at`, as [begin, end);
  // false at the end of the text.
  bool next(size_t& begin, size_t& end) {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '/' && at_ + 1 < text_.size() && text_[at_ + 1] == '/') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (c == '/' && at_ + 1 < text_.size() && text_[at_ + 1] == '*') {
        const size_t close = text_.find("*/", at_ + 2);
        at_ = close == std::string::npos ? text_.size() : close + 2;
      } else if (c == '"' || c == '\'') {
        for (++at_; at_ < text_.size() && text_[at_] != c; ++at_)
          if (text_[at_] == '\\') ++at_;
        ++at_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++at_;
      } else {
        begin = at_;
        if (starts_identifier(c) || std::isdigit(static_cast<unsigned char>(c))) {
          while (at_ < text_.size() && continues_identifier(text_[at_])) ++at_;
        } else {
          ++at_;
        }
        end = at_;
        return true;
      }
    }
    return false;
  }

 private:
  const std::string& text_;
  size_t at_ = 0;
};

}  // namespace

PortedSource read_ported_source(const std::string& source, const std::string& function) {
  PortedSource out;
  out.text = source;
  Scanner scan(source);
  size_t b = 0, e = 0;
  while (scan.next(b, e)) {
    const std::string token = source.substr(b, e - b);
    if (token == "gridDim") out.uses_grid_dim = true;
    if (token == "__constant__") out.uses_constant_memory = true;
    if (token != "__launch_bounds__") continue;
    const size_t start = b;
    if (!scan.next(b, e) || source[b] != '(') continue;
    const size_t open = b;
    int depth = 1;
    while (depth > 0 && scan.next(b, e)) {
      if (source[b] == '(') ++depth;
      if (source[b] == ')') --depth;
    }
    if (depth > 0) break;
    const size_t close = b;
    const std::string arguments = source.substr(open + 1, close - open - 1);
    for (size_t i = start; i <= close; ++i)
      if (out.text[i] != '\n') out.text[i] = ' ';
    // The function these bounds belong to: the last identifier before the next '('.
    std::string name;
    while (scan.next(b, e) && source[b] != '(')
      if (starts_identifier(source[b])) name = source.substr(b, e - b);
    if (name == "gridDim") out.uses_grid_dim = true;
    if (name != function || !out.launch_bounds.empty()) continue;
    out.launch_bounds = arguments;
    const size_t first = arguments.find_first_not_of(" \t\n");
    if (first == std::string::npos) continue;
    char* stop = nullptr;
    const long long threads = std::strtoll(arguments.c_str() + first, &stop, 0);
    while (stop && (*stop == 'u' || *stop == 'U' || *stop == 'l' || *stop == 'L')) ++stop;
    while (stop && (*stop == ' ' || *stop == '\t' || *stop == '\n')) ++stop;
    if (stop && (*stop == ',' || *stop == '\0') && threads > 0) out.max_threads = threads;
  }
  return out;
}

}  // namespace lightning::kernel
