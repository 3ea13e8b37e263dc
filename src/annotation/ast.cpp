#include "annotation/ast.hpp"

namespace lightning::annotation {
namespace {

// Binding strength of an operator; leaves bind tightest.
int precedence(ExprKind kind) {
  switch (kind) {
    case ExprKind::kAdd:
    case ExprKind::kSub:
      return 1;
    case ExprKind::kMul:
    case ExprKind::kDiv:
      return 2;
    case ExprKind::kNeg:
      return 3;
    default:
      return 4;
  }
}

void print_expr(const Annotation& a, int32_t e, std::string& out);

void print_operand(const Annotation& a, int32_t e, int min_precedence, std::string& out) {
  const bool parens = precedence(a.exprs[e].kind) < min_precedence;
  if (parens) out += '(';
  print_expr(a, e, out);
  if (parens) out += ')';
}

void print_expr(const Annotation& a, int32_t e, std::string& out) {
  const Expr& x = a.exprs[e];
  switch (x.kind) {
    case ExprKind::kInteger:
      out += std::to_string(x.value);
      return;
    case ExprKind::kName:
      out += x.name;
      return;
    case ExprKind::kNeg:
      out += '-';
      print_operand(a, x.lhs, precedence(ExprKind::kNeg), out);
      return;
    default:
      break;
  }
  const int p = precedence(x.kind);
  const char* op = x.kind == ExprKind::kAdd   ? " + "
                   : x.kind == ExprKind::kSub ? " - "
                   : x.kind == ExprKind::kMul ? " * "
                                              : " / ";
  // Left-associative: the right operand needs parentheses at equal precedence, so that the
  // printed text parses back to the same tree.
  print_operand(a, x.lhs, p, out);
  out += op;
  print_operand(a, x.rhs, p + 1, out);
}

}  // namespace

std::string_view name_of(BindingKind kind) {
  switch (kind) {
    case BindingKind::kGlobal:
      return "global";
    case BindingKind::kBlock:
      return "block";
    case BindingKind::kLocal:
      return "local";
  }
  return "?";
}

std::string Annotation::expr_to_string(int32_t expr) const {
  std::string out;
  print_expr(*this, expr, out);
  return out;
}

std::string Annotation::rule_to_string(const Rule& rule) const {
  std::string out(name_of(rule.mode));
  if (rule.mode == AccessMode::kReduce) {
    out += '(';
    out += name_of(rule.op);
    out += ')';
  }
  out += ' ';
  out += rule.array;
  if (!rule.has_brackets) return out;
  out += '[';
  for (size_t i = 0; i < rule.indices.size(); ++i) {
    if (i) out += ", ";
    const Index& idx = rule.indices[i];
    if (!idx.is_slice) {
      print_expr(*this, idx.expr, out);
      continue;
    }
    if (idx.lo >= 0) print_expr(*this, idx.lo, out);
    out += ':';
    if (idx.hi >= 0) print_expr(*this, idx.hi, out);
  }
  out += ']';
  return out;
}

std::string Annotation::to_string() const {
  std::string out;
  for (size_t b = 0; b < bindings.size(); ++b) {
    if (b) out += ", ";
    const Binding& binding = bindings[b];
    out += name_of(binding.kind);
    out += ' ';
    if (binding.bracketed) out += '[';
    for (size_t n = 0; n < binding.names.size(); ++n) {
      if (n) out += ", ";
      out += binding.names[n].name;
    }
    if (binding.bracketed) out += ']';
  }
  out += bindings.empty() ? "=> " : " => ";
  for (size_t r = 0; r < rules.size(); ++r) {
    if (r) out += ", ";
    out += rule_to_string(rules[r]);
  }
  return out;
}

}  // namespace lightning::annotation
