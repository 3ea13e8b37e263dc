// The tokens of the annotation language, as the lexer hands them to the parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace lightning::annotation {

/// Kinds of token. Keywords (global, read, min, ...) are plain identifiers: the parser
/// recognises them by position, so an array may be called `max` or `block`.
enum class TokenKind : uint8_t {
  kIdentifier,  ///< [A-Za-z_][A-Za-z0-9_]*
  kInteger,     ///< [0-9]+, fits in int64
  kArrow,       ///< =>
  kLBracket,    ///< [
  kRBracket,    ///< ]
  kLParen,      ///< (
  kRParen,      ///< )
  kComma,       ///< ,
  kColon,       ///< :
  kPlus,        ///< +
  kMinus,       ///< -
  kStar,        ///< *
  kSlash,       ///< /
  kEnd,         ///< end of the annotation (always the last token)
};

/// One token: a view into the annotation text (which must outlive it) and its byte offset,
/// from which diagnostics compute line and column.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;
  size_t offset = 0;
  int64_t value = 0;  ///< the value of a kInteger token
};

}  // namespace lightning::annotation
