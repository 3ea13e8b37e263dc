#include "annotation/parser.hpp"

#include <algorithm>
#include <vector>

#include "annotation/diagnostic.hpp"
#include "annotation/lexer.hpp"

namespace lightning::annotation {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), tokens_(tokenize(text)) {
    result_.text = std::string(text);
  }

  Annotation run() {
    if (peek().kind == TokenKind::kEnd) fail(peek(), "empty annotation (expected '=>' and rules)");
    if (peek().kind != TokenKind::kArrow) {
      parse_binding();
      while (accept(TokenKind::kComma)) parse_binding();
      if (peek().kind != TokenKind::kArrow)
        fail(peek(), "expected ',' or '=>' after a binding, found " + describe(peek()));
    }
    next();  // '=>'
    parse_rule();
    while (accept(TokenKind::kComma)) parse_rule();
    if (peek().kind != TokenKind::kEnd)
      fail(peek(), "expected ',' between rules, found " + describe(peek()));
    return std::move(result_);
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& next() {
    const Token& t = tokens_[pos_];
    if (t.kind != TokenKind::kEnd) ++pos_;
    return t;
  }
  bool accept(TokenKind kind) {
    if (peek().kind != kind) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(const Token& at, const std::string& message) const {
    throw_annotation_error(text_, at.offset, message);
  }
  const Token& expect(TokenKind kind, const char* what) {
    if (peek().kind != kind)
      fail(peek(), std::string("expected ") + what + ", found " + describe(peek()));
    return next();
  }

  void parse_binding() {
    const Token& kw = peek();
    Binding b;
    b.offset = kw.offset;
    if (kw.kind == TokenKind::kIdentifier && kw.text == "global") {
      b.kind = BindingKind::kGlobal;
    } else if (kw.kind == TokenKind::kIdentifier && kw.text == "block") {
      b.kind = BindingKind::kBlock;
    } else if (kw.kind == TokenKind::kIdentifier && kw.text == "local") {
      b.kind = BindingKind::kLocal;
    } else {
      fail(kw, "expected a binding ('global', 'block' or 'local') or '=>', found " + describe(kw));
    }
    next();
    if (accept(TokenKind::kLBracket)) {
      b.bracketed = true;
      do {
        const Token& n = expect(TokenKind::kIdentifier, "a variable name or '_'");
        b.names.push_back({std::string(n.text), n.offset});
      } while (accept(TokenKind::kComma));
      expect(TokenKind::kRBracket, "',' or ']' in the binding");
    } else {
      const Token& n = expect(TokenKind::kIdentifier, "a variable name or '['");
      b.names.push_back({std::string(n.text), n.offset});
    }
    result_.bindings.push_back(std::move(b));
  }

  void parse_rule() {
    const Token& kw = peek();
    Rule r;
    r.offset = kw.offset;
    if (kw.kind != TokenKind::kIdentifier)
      fail(kw,
           "expected an access mode ('read', 'write', 'overwrite', 'readwrite' or 'reduce'), "
           "found " +
               describe(kw));
    if (kw.text == "read") {
      r.mode = AccessMode::kRead;
    } else if (kw.text == "write") {
      r.mode = AccessMode::kWrite;
    } else if (kw.text == "overwrite") {
      r.mode = AccessMode::kOverwrite;
    } else if (kw.text == "readwrite") {
      r.mode = AccessMode::kReadWrite;
    } else if (kw.text == "reduce") {
      r.mode = AccessMode::kReduce;
    } else {
      fail(kw, "unknown access mode " + describe(kw) +
                   " (expected 'read', 'write', 'overwrite', 'readwrite' or 'reduce')");
    }
    next();
    if (r.mode == AccessMode::kReduce) {
      expect(TokenKind::kLParen, "'(' and a reduction operator after 'reduce'");
      const Token& op = peek();
      if (op.kind == TokenKind::kPlus) {
        r.op = ReduceOp::kSum;
      } else if (op.kind == TokenKind::kStar) {
        r.op = ReduceOp::kProd;
      } else if (op.kind == TokenKind::kIdentifier && op.text == "min") {
        r.op = ReduceOp::kMin;
      } else if (op.kind == TokenKind::kIdentifier && op.text == "max") {
        r.op = ReduceOp::kMax;
      } else {
        fail(op, "unknown reduction operator " + describe(op) + " (expected +, *, min or max)");
      }
      next();
      expect(TokenKind::kRParen, "')' after the reduction operator");
    }
    const Token& name = expect(TokenKind::kIdentifier, "an array name");
    r.array = std::string(name.text);
    r.array_offset = name.offset;
    if (accept(TokenKind::kLBracket)) {
      r.has_brackets = true;
      do {
        r.indices.push_back(parse_index());
      } while (accept(TokenKind::kComma));
      expect(TokenKind::kRBracket, "',' or ']' after an index");
    }
    result_.rules.push_back(std::move(r));
  }

  bool ends_index() const {
    const TokenKind k = peek().kind;
    return k == TokenKind::kComma || k == TokenKind::kRBracket;
  }

  Index parse_index() {
    Index idx;
    idx.offset = peek().offset;
    if (peek().kind != TokenKind::kColon) idx.lo = parse_expr();
    if (accept(TokenKind::kColon)) {
      idx.is_slice = true;
      if (!ends_index()) idx.hi = parse_expr();
    } else {
      idx.expr = idx.lo;
      idx.lo = -1;
    }
    return idx;
  }

  int32_t add(Expr e) {
    int32_t h = 0;
    if (e.lhs >= 0) h = std::max(h, result_.exprs[e.lhs].height);
    if (e.rhs >= 0) h = std::max(h, result_.exprs[e.rhs].height);
    e.height = h + 1;
    if (e.height > kMaxExprHeight)
      throw_annotation_error(text_, e.offset,
                             "expression is nested too deeply (more than " +
                                 std::to_string(kMaxExprHeight) + " levels)");
    result_.exprs.push_back(std::move(e));
    return static_cast<int32_t>(result_.exprs.size() - 1);
  }

  int32_t parse_expr() {
    int32_t lhs = parse_term();
    for (;;) {
      const Token& op = peek();
      if (op.kind != TokenKind::kPlus && op.kind != TokenKind::kMinus) return lhs;
      next();
      Expr e;
      e.kind = op.kind == TokenKind::kPlus ? ExprKind::kAdd : ExprKind::kSub;
      e.offset = op.offset;
      e.lhs = lhs;
      e.rhs = parse_term();
      lhs = add(std::move(e));
    }
  }

  int32_t parse_term() {
    int32_t lhs = parse_unary();
    for (;;) {
      const Token& op = peek();
      if (op.kind != TokenKind::kStar && op.kind != TokenKind::kSlash) return lhs;
      next();
      Expr e;
      e.kind = op.kind == TokenKind::kStar ? ExprKind::kMul : ExprKind::kDiv;
      e.offset = op.offset;
      e.lhs = lhs;
      e.rhs = parse_unary();
      lhs = add(std::move(e));
    }
  }

  int32_t parse_unary() {
    const Token& t = peek();
    // Nesting is bounded here too: "-(-(-(..." builds height one level at a time, but
    // "((((((" alone builds nothing, so count open parentheses and minus signs directly.
    if (++depth_ > kMaxExprHeight)
      throw_annotation_error(text_, t.offset,
                             "expression is nested too deeply (more than " +
                                 std::to_string(kMaxExprHeight) + " levels)");
    int32_t result = -1;
    Expr e;
    e.offset = t.offset;
    switch (t.kind) {
      case TokenKind::kMinus:
        next();
        e.kind = ExprKind::kNeg;
        e.lhs = parse_unary();
        result = add(std::move(e));
        break;
      case TokenKind::kInteger:
        next();
        e.kind = ExprKind::kInteger;
        e.value = t.value;
        result = add(std::move(e));
        break;
      case TokenKind::kIdentifier:
        next();
        e.kind = ExprKind::kName;
        e.name = std::string(t.text);
        result = add(std::move(e));
        break;
      case TokenKind::kLParen:
        next();
        result = parse_expr();
        expect(TokenKind::kRParen, "')'");
        break;
      default:
        fail(t, "expected an expression, found " + describe(t));
    }
    --depth_;
    return result;
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  Annotation result_;
};

}  // namespace

Annotation parse_annotation(std::string_view text) {
  return Parser(text).run();
}

}  // namespace lightning::annotation
