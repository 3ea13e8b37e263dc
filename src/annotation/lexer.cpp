#include "annotation/lexer.hpp"

#include <cstdio>

#include "annotation/diagnostic.hpp"

namespace lightning::annotation {
namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

TokenKind punctuation_kind(char c, bool* ok) {
  *ok = true;
  switch (c) {
    case '[':
      return TokenKind::kLBracket;
    case ']':
      return TokenKind::kRBracket;
    case '(':
      return TokenKind::kLParen;
    case ')':
      return TokenKind::kRParen;
    case ',':
      return TokenKind::kComma;
    case ':':
      return TokenKind::kColon;
    case '+':
      return TokenKind::kPlus;
    case '-':
      return TokenKind::kMinus;
    case '*':
      return TokenKind::kStar;
    case '/':
      return TokenKind::kSlash;
    default:
      *ok = false;
      return TokenKind::kEnd;
  }
}

}  // namespace

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (is_space(c)) {
      ++pos;
      continue;
    }
    Token t;
    t.offset = pos;
    if (is_ident_start(c)) {
      size_t end = pos + 1;
      while (end < text.size() && (is_ident_start(text[end]) || is_digit(text[end]))) ++end;
      t.kind = TokenKind::kIdentifier;
      t.text = text.substr(pos, end - pos);
      pos = end;
    } else if (is_digit(c)) {
      size_t end = pos;
      int64_t value = 0;
      while (end < text.size() && is_digit(text[end])) {
        const int64_t digit = text[end] - '0';
        if (__builtin_mul_overflow(value, int64_t{10}, &value) ||
            __builtin_add_overflow(value, digit, &value))
          throw_annotation_error(text, pos, "integer literal does not fit in 64 bits");
        ++end;
      }
      t.kind = TokenKind::kInteger;
      t.text = text.substr(pos, end - pos);
      t.value = value;
      pos = end;
    } else if (c == '=' && pos + 1 < text.size() && text[pos + 1] == '>') {
      t.kind = TokenKind::kArrow;
      t.text = text.substr(pos, 2);
      pos += 2;
    } else {
      bool ok = false;
      t.kind = punctuation_kind(c, &ok);
      if (!ok) {
        std::string shown;
        if (c >= 0x20 && c < 0x7f) {
          shown = std::string("'") + c + "'";
        } else {
          char buf[8];
          std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned char>(c));
          shown = buf;
        }
        throw_annotation_error(text, pos, "unexpected character " + shown);
      }
      t.text = text.substr(pos, 1);
      ++pos;
    }
    tokens.push_back(t);
  }
  Token end;
  end.kind = TokenKind::kEnd;
  end.offset = text.size();
  tokens.push_back(end);
  return tokens;
}

std::string describe(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "end of annotation";
  return "'" + std::string(token.text) + "'";
}

}  // namespace lightning::annotation
