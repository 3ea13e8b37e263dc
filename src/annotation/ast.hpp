// The syntax tree of one annotation, as parsed, before it meets a kernel signature.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "annotation/access_mode.hpp"

namespace lightning::annotation {

/// Kinds of expression node.
enum class ExprKind : uint8_t { kInteger, kName, kNeg, kAdd, kSub, kMul, kDiv };

/// One node of an index expression. Nodes live in Annotation::exprs and refer to their
/// operands by position there, so an Annotation is a plain copyable value.
struct Expr {
  ExprKind kind = ExprKind::kInteger;
  int64_t value = 0;   ///< kInteger: the (non-negative) literal
  std::string name;    ///< kName: the identifier
  int32_t lhs = -1;    ///< operand (kNeg) or left operand
  int32_t rhs = -1;    ///< right operand
  int32_t height = 1;  ///< 1 for a leaf; bounded by the parser so recursion stays shallow
  size_t offset = 0;   ///< the token that names the node: literal, name, or operator
};

/// One axis of a rule: an expression, or an inclusive slice whose bounds may be omitted.
struct Index {
  bool is_slice = false;
  int32_t expr = -1;  ///< the expression (not a slice)
  int32_t lo = -1;    ///< slice lower bound, -1 when omitted (the array's first element)
  int32_t hi = -1;    ///< slice upper bound (inclusive), -1 when omitted (its last element)
  size_t offset = 0;
};

/// Which thread index a binding names.
enum class BindingKind : uint8_t { kGlobal, kBlock, kLocal };

/// One bound variable; "_" ignores its axis.
struct BoundName {
  std::string name;
  size_t offset = 0;
};

/// `global i` or `block [i, _, k]`: names for the axes of one kind of thread index.
struct Binding {
  BindingKind kind = BindingKind::kGlobal;
  bool bracketed = false;  ///< written as `[...]` (printed the same way)
  std::vector<BoundName> names;
  size_t offset = 0;
};

/// One access rule: `mode array[index, ...]`; no brackets means a rank-0 array.
struct Rule {
  AccessMode mode = AccessMode::kRead;
  ReduceOp op = ReduceOp::kSum;
  std::string array;
  bool has_brackets = false;
  std::vector<Index> indices;
  size_t offset = 0;        ///< the mode keyword
  size_t array_offset = 0;  ///< the array name
};

/// A parsed annotation. `text` is kept for diagnostics raised later (validation, evaluation).
struct Annotation {
  std::string text;
  std::vector<Binding> bindings;
  std::vector<Rule> rules;
  std::vector<Expr> exprs;

  /// Canonical text: one space after commas and around `=>` and binary operators, no
  /// redundant parentheses. parse(a.to_string()).to_string() == a.to_string().
  std::string to_string() const;
  /// Canonical text of one expression node.
  std::string expr_to_string(int32_t expr) const;
  /// Canonical text of one rule, e.g. "read A[i - 1:i + 1]".
  std::string rule_to_string(const Rule& rule) const;
};

/// "global", "block" or "local".
std::string_view name_of(BindingKind kind);

}  // namespace lightning::annotation
