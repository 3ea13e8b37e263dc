// Recursive-descent parser of the annotation language.
//
//   annotation := [binding {"," binding}] "=>" rule {"," rule}
//   binding    := ("global" | "block" | "local") (name | "[" name {"," name} "]")
//   rule       := mode array ["[" index {"," index} "]"]
//   mode       := "read" | "write" | "readwrite" | "reduce" "(" ("+" | "*" | "min" | "max") ")"
//   index      := expr | [expr] ":" [expr]          (slice bounds are inclusive)
//   expr       := term {("+" | "-") term}
//   term       := unary {("*" | "/") unary}
//   unary      := "-" unary | integer | name | "(" expr ")"
#pragma once

#include <string_view>

#include "annotation/ast.hpp"

namespace lightning::annotation {

/// Deepest expression tree the parser accepts. Bounds the recursion of every later pass
/// (printing, lowering, evaluation), so a hostile annotation cannot exhaust the stack.
inline constexpr int kMaxExprHeight = 64;

/// Parses `text` (syntax only: names are resolved by BoundAnnotation::bind). Throws
/// Error(kAnnotation) with a caret diagnostic at the first syntax error.
Annotation parse_annotation(std::string_view text);

}  // namespace lightning::annotation
