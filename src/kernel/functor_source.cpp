#include "kernel/functor_source.hpp"

#include <algorithm>
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

// The spelling of one parameter's type: without `const`, `typename`, `&` and its name.
std::string spelling_of(std::string param) {
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

// The names GPU code knows without a declaration: the fundamental types and <cstdint>'s.
const std::regex& known_types() {
  static const std::regex known(
      "(bool|char|short|int|long|signed|unsigned|float|double|size_t|ptrdiff_t|u?int(8|16|32|"
      "64)_t|auto)( (int|long|char|short))*");
  return known;
}

}  // namespace

std::vector<std::vector<std::string>> operator_parameter_types(const std::string& source) {
  std::vector<std::vector<std::string>> operators;
  const std::string keyword = "operator()";
  for (size_t op = source.find(keyword); op != std::string::npos;
       op = source.find(keyword, op + keyword.size())) {
    size_t begin = source.find_first_not_of(" \t\n", op + keyword.size());
    if (begin == std::string::npos || source[begin] != '(') continue;
    ++begin;
    // A parameter ends at a ',' or ')' outside template arguments and parentheses.
    std::vector<std::string> params;
    int depth = 0;
    for (size_t end = begin; end < source.size(); ++end) {
      const char c = source[end];
      if (c == '<' || c == '(') ++depth;
      if ((c == '>' || c == ')') && depth > 0) {
        --depth;
        continue;
      }
      if (depth == 0 && (c == ',' || c == ')')) {
        const std::string spelling = spelling_of(source.substr(begin, end - begin));
        if (!spelling.empty()) params.push_back(spelling);
        begin = end + 1;
        if (c == ')') break;
      }
    }
    operators.push_back(std::move(params));
  }
  return operators;
}

std::string parameter_type(const std::string& source, int index) {
  const auto operators = operator_parameter_types(source);
  if (operators.empty() || index < 0 || static_cast<size_t>(index) >= operators[0].size())
    return {};
  return operators[0][static_cast<size_t>(index)];
}

namespace {

// A spelling without its leading "::" (rooted at the global namespace).
std::string unrooted(const std::string& spelling) {
  return spelling.rfind("::", 0) == 0 ? spelling.substr(2) : spelling;
}

// Whether the parameter type `spelling` names the tag whose qualified name is `name`: it is
// the name, or a tail of it after a "::".
bool spells(const std::string& spelling, const std::string& name) {
  return name == spelling ||
         (name.size() > spelling.size() + 2 &&
          name.compare(name.size() - spelling.size(), spelling.size(), spelling) == 0 &&
          name.compare(name.size() - spelling.size() - 2, 2, "::") == 0);
}

// The operator taking the tag `name` first: the one whose spelling of it is longest; -1 if
// none.
int operator_taking(const std::vector<std::vector<std::string>>& operators,
                    const std::string& name) {
  int found = -1;
  size_t matched = 0;
  for (size_t op = 0; op < operators.size(); ++op) {
    if (operators[op].empty()) continue;
    const std::string spelling = unrooted(operators[op][0]);
    if (!name.empty() && spells(spelling, name) && spelling.size() > matched) {
      matched = spelling.size();
      found = static_cast<int>(op);
    }
  }
  return found;
}

// A team kernel's member type as its operators spell it: the parameter after the launched
// tag (`name`); untagged, a first parameter that a tagged operator takes second, else the
// first operator's first parameter (no operator takes a tag).
std::string team_member_spelling(const std::vector<std::vector<std::string>>& operators,
                                 const std::string& name) {
  if (!name.empty()) {
    const int op = operator_taking(operators, name);
    if (op < 0 || operators[static_cast<size_t>(op)].size() < 2) return {};
    return operators[static_cast<size_t>(op)][1];
  }
  for (const auto& untagged : operators)
    for (const auto& tagged : operators)
      if (!untagged.empty() && tagged.size() >= 2 && tagged[1] == untagged[0]) return untagged[0];
  return operators.empty() || operators[0].empty() ? std::string() : operators[0][0];
}

// A tag's qualified name without the anonymous namespaces the demangler writes.
std::string name_of_tag(const std::string& tag) {
  return std::regex_replace(tag, std::regex("\\(anonymous namespace\\)::"), "");
}

}  // namespace

WorkTagCode work_tag_code(const std::string& source, const std::string& tag, bool team) {
  const std::string name = name_of_tag(tag);
  WorkTagCode code;
  const auto operators = operator_parameter_types(source);
  const std::string member = team ? team_member_spelling(operators, name) : std::string();
  std::vector<std::string> declared;
  for (size_t op = 0; op < operators.size(); ++op) {
    if (operators[op].empty()) continue;
    // A team operator without a tag takes the member first.
    if (team && operators[op][0] == member) {
      if (name.empty() && code.operator_index < 0) code.operator_index = static_cast<int>(op);
      continue;
    }
    const std::string spelling = unrooted(operators[op][0]);
    const bool qualified = spelling.find("::") != std::string::npos;
    const bool plain = std::regex_match(spelling, std::regex("[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-"
                                                             "Za-z0-9_]*)*"));
    if (!plain || std::regex_match(spelling, known_types()) || declares(source, spelling) ||
        spelling.rfind("Kokkos::", 0) == 0 || spelling.rfind("lightning::", 0) == 0)
      continue;  // an index type, or a name GPU code knows
    if (std::find(declared.begin(), declared.end(), spelling) != declared.end()) continue;
    declared.push_back(spelling);
    if (qualified) {
      // a::b::C: nested namespaces are enough for GPU code to find a::b::C.
      std::string opened, closed;
      size_t from = 0;
      for (size_t at = spelling.find("::"); at != std::string::npos;
           from = at + 2, at = spelling.find("::", from)) {
        opened += "namespace " + spelling.substr(from, at - from) + " { ";
        closed += " }";
      }
      code.global_declarations +=
          opened + "struct " + spelling.substr(from) + " {};" + closed + "\n";
    } else {
      code.member_declarations += "  struct " + spelling + " {};  // a work tag\n";
    }
  }
  const int launched = operator_taking(operators, name);
  if (launched >= 0) {
    const std::string spelling = unrooted(operators[static_cast<size_t>(launched)][0]);
    code.operator_index = launched;
    code.value =
        (spelling.find("::") != std::string::npos ? "::" + spelling
                                                  : "lightning_generated::Functor::" + spelling) +
        "()";
  }
  return code;
}

std::string team_member_declaration(const std::string& source, const std::string& tag) {
  const std::string type = team_member_spelling(operator_parameter_types(source), name_of_tag(tag));
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
                                   const std::string& value_type, int operator_index) {
  const auto operators = operator_parameter_types(source);
  if (operator_index < 0 || static_cast<size_t>(operator_index) >= operators.size()) return {};
  const auto& params = operators[static_cast<size_t>(operator_index)];
  if (index < 0 || static_cast<size_t>(index) >= params.size()) return {};
  std::string type = params[static_cast<size_t>(index)];
  std::string declared = value_type;
  // An array reduction's update spelt as a pointer to its element (`T* update`).
  const std::string array = "[]";
  if (!type.empty() && type.back() == '*' && declared.size() > array.size() &&
      declared.compare(declared.size() - array.size(), array.size(), array) == 0) {
    type = trim(type.substr(0, type.size() - 1));
    declared.resize(declared.size() - array.size());
  }
  if (!is_identifier(type) || std::regex_match(type, known_types()) || declares(source, type))
    return {};
  return "using " + type + " = " + declared + ";";
}

}  // namespace lightning::kernel
