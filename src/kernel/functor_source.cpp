#include "kernel/functor_source.hpp"

#include <cctype>
#include <regex>

namespace lightning::kernel {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

// Removes `word` where it stands alone in `s`.
std::string drop_word(const std::string& s, const std::string& word) {
  return std::regex_replace(s, std::regex("\\b" + word + "\\b"), " ");
}

// Whether `source` declares `name` as a type itself (a using-alias or a typedef).
bool declares(const std::string& source, const std::string& name) {
  return std::regex_search(source, std::regex("\\busing\\s+" + name + "\\s*=")) ||
         std::regex_search(source, std::regex("\\btypedef\\b[^;]*\\b" + name + "\\s*;"));
}

}  // namespace

std::string parameter_type(const std::string& source, int index) {
  const size_t op = source.find("operator()");
  if (op == std::string::npos) return {};
  size_t begin = source.find('(', op + std::string("operator()").size());
  if (begin == std::string::npos) return {};
  ++begin;
  // A parameter ends at a ',' or ')' outside template arguments and parentheses.
  int depth = 0;
  size_t end = begin;
  for (int p = 0;; ++end) {
    if (end >= source.size()) return {};
    const char c = source[end];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) {
      --depth;
      continue;
    }
    if (depth == 0 && (c == ',' || c == ')')) {
      if (p == index) break;
      if (c == ')') return {};
      ++p;
      begin = end + 1;
    }
  }
  std::string param = source.substr(begin, end - begin);
  param = drop_word(drop_word(param, "const"), "typename");
  // The parameter's name follows the last & (or the type, when passed by value).
  const size_t amp = param.find_last_of('&');
  if (amp != std::string::npos) {
    param = param.substr(0, amp);
  } else {
    param = trim(param);
    const size_t space = param.find_last_of(" \t");
    if (space != std::string::npos && is_identifier(param.substr(space + 1)))
      param = param.substr(0, space);
  }
  param = trim(param);
  // Spaces around :: and <> are not part of the spelling.
  return std::regex_replace(param, std::regex("\\s*(::|<|>|,)\\s*"), "$1");
}

std::string team_member_declaration(const std::string& source) {
  const std::string type = parameter_type(source, 0);
  if (type.empty() || type.rfind("Kokkos::", 0) == 0 || type.rfind("lightning::", 0) == 0 ||
      type.rfind("::", 0) == 0)
    return {};
  if (is_identifier(type))
    return declares(source, type) ? "" : "using " + type + " = lightning::TeamMember;";
  const std::string suffix = "::member_type";
  if (type.size() > suffix.size() &&
      type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string policy = type.substr(0, type.size() - suffix.size());
    if (is_identifier(policy) && !declares(source, policy))
      return "using " + policy + " = Kokkos::TeamPolicy<>;";
  }
  return {};
}

std::string value_type_declaration(const std::string& source, int index,
                                   const std::string& value_type) {
  // The names GPU code knows without a declaration: the fundamental types and <cstdint>'s.
  static const std::regex known(
      "(bool|char|short|int|long|signed|unsigned|float|double|size_t|ptrdiff_t|u?int(8|16|32|"
      "64)_t|auto)");
  const std::string type = parameter_type(source, index);
  if (!is_identifier(type) || std::regex_match(type, known) || declares(source, type)) return {};
  return "using " + type + " = " + value_type + ";";
}

}  // namespace lightning::kernel
