// Splits annotation text into tokens.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "annotation/token.hpp"

namespace lightning::annotation {

/// The tokens of `text`, ending with one kEnd token. Whitespace (including newlines)
/// separates tokens and is otherwise ignored. Throws Error(kAnnotation) with a caret
/// diagnostic on a character outside the language or an integer that overflows int64.
std::vector<Token> tokenize(std::string_view text);

/// How a token is named in messages: "'foo'", "'=>'" or "end of annotation".
std::string describe(const Token& token);

}  // namespace lightning::annotation
