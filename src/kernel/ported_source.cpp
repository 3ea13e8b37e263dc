#include "kernel/ported_source.hpp"

#include <cctype>
#include <cstdlib>
#include <utility>
#include <vector>

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

// Whether `source` (its launch bounds blanked) names blockIdx outside the declarations and
// definitions of `function`: `void function(...)` up to the `;` or the body's closing brace
// (a ported kernel's function returns void, as its __global__ did; a call is not one of them).
// A template's arguments and a namespace in `function` are ignored.
bool names_block_index_elsewhere(const std::string& source, std::string function) {
  function = function.substr(0, function.find('<'));
  if (const size_t colons = function.rfind("::"); colons != std::string::npos)
    function = function.substr(colons + 2);
  std::vector<std::pair<size_t, size_t>> tokens;
  Scanner scan(source);
  for (size_t b = 0, e = 0; scan.next(b, e);) tokens.emplace_back(b, e);
  const auto is = [&](size_t k, const char* text) {
    return source.compare(tokens[k].first, tokens[k].second - tokens[k].first, text) == 0;
  };
  // The index of the token that closes the bracket opened at `k`; tokens.size() if none.
  const auto closing = [&](size_t k, const char* open, const char* close) {
    int depth = 0;
    for (; k < tokens.size(); ++k) {
      if (is(k, open)) ++depth;
      if (is(k, close) && --depth == 0) return k;
    }
    return tokens.size();
  };
  std::vector<bool> inside(tokens.size(), false);
  for (size_t k = 0; k + 1 < tokens.size(); ++k) {
    if (k == 0 || !is(k - 1, "void") || !is(k, function.c_str()) || !is(k + 1, "(")) continue;
    size_t at = closing(k + 1, "(", ")") + 1;
    // Its parameters (also those of a declaration: `dim3 blockIdx` there is a name).
    for (size_t i = k; i < at && i < tokens.size(); ++i) inside[i] = true;
    // Past qualifiers and attributes to the body; a ';' first: a declaration.
    while (at < tokens.size() && !is(at, "{") && !is(at, ";"))
      at = is(at, "(") ? closing(at, "(", ")") + 1 : at + 1;
    if (at >= tokens.size() || is(at, ";")) continue;
    const size_t end = closing(at, "{", "}");
    for (size_t i = k; i <= end && i < tokens.size(); ++i) inside[i] = true;
  }
  for (size_t k = 0; k < tokens.size(); ++k)
    if (!inside[k] && is(k, "blockIdx")) return true;
  return false;
}

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
  out.uses_block_index_elsewhere = names_block_index_elsewhere(out.text, function);
  return out;
}

}  // namespace lightning::kernel
