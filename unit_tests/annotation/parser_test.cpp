#include "annotation/parser.hpp"

#include <gtest/gtest.h>

#include <string>

#include "error_matchers.hpp"

namespace lightning::annotation {
namespace {

using testing::annotation_error;

struct CanonicalCase {
  const char* text;
  const char* canonical;
};

class CanonicalTest : public ::testing::TestWithParam<CanonicalCase> {};

TEST_P(CanonicalTest, PrintsCanonicalTextThatParsesBackToItself) {
  const Annotation a = parse_annotation(GetParam().text);
  EXPECT_EQ(a.to_string(), GetParam().canonical);
  EXPECT_EQ(parse_annotation(a.to_string()).to_string(), GetParam().canonical);
}

INSTANTIATE_TEST_SUITE_P(
    Paper, CanonicalTest,
    ::testing::Values(CanonicalCase{"global i => read A[i-1:i+1], write B[i]",
                                    "global i => read A[i - 1:i + 1], write B[i]"},
                      CanonicalCase{"global [i, j] => read A[i,:], read B[:,j], write C[i,j]",
                                    "global [i, j] => read A[i, :], read B[:, j], write C[i, j]"},
                      CanonicalCase{"global [i,j] => read A[i,j], reduce(+) sum[i]",
                                    "global [i, j] => read A[i, j], reduce(+) sum[i]"},
                      CanonicalCase{
                          "global i=>read points[i,:],read centers[:,:],write label[i],"
                          "reduce(+) sums[:,:],reduce(+)counts[:]",
                          "global i => read points[i, :], read centers[:, :], write label[i], "
                          "reduce(+) sums[:, :], reduce(+) counts[:]"}));

INSTANTIATE_TEST_SUITE_P(
    Grammar, CanonicalTest,
    ::testing::Values(
        CanonicalCase{"=> read A[:]", "=> read A[:]"},
        CanonicalCase{"block b, local [l, _] => readwrite A[b*64+l]",
                      "block b, local [l, _] => readwrite A[b * 64 + l]"},
        CanonicalCase{"global [_, j, k] => write T[k, j, 0]",
                      "global [_, j, k] => write T[k, j, 0]"},
        CanonicalCase{"global i => reduce(*) p, reduce(min) lo, reduce(max) hi",
                      "global i => reduce(*) p, reduce(min) lo, reduce(max) hi"},
        CanonicalCase{"global i => read A[ : i ], read B[i: ], read C[(i)]",
                      "global i => read A[:i], read B[i:], read C[i]"},
        // Parentheses survive only where they change the tree.
        CanonicalCase{"global i => read A[(i + 1) * 2 - (3 - i) / 4]",
                      "global i => read A[(i + 1) * 2 - (3 - i) / 4]"},
        CanonicalCase{"global i => read A[((i * 2)) + (1)]", "global i => read A[i * 2 + 1]"},
        CanonicalCase{"global i => read A[i - (1 + 2)]", "global i => read A[i - (1 + 2)]"},
        CanonicalCase{"global i => read A[i + (1 + 2)]", "global i => read A[i + (1 + 2)]"},
        CanonicalCase{"global i => read A[-i], read B[- -i], read C[-(i+1)], read D[2 * -i]",
                      "global i => read A[-i], read B[--i], read C[-(i + 1)], read D[2 * -i]"},
        CanonicalCase{"global i => read A[i / 2 / 3], read B[i / (2 / 3)]",
                      "global i => read A[i / 2 / 3], read B[i / (2 / 3)]"},
        // Keywords are contextual: arrays may be named like them.
        CanonicalCase{"global i => read max[i], write block[i], read read[i]",
                      "global i => read max[i], write block[i], read read[i]"},
        CanonicalCase{"global\ti\n=>\n  read A[i]", "global i => read A[i]"}));

TEST(Parser, RecordsStructure) {
  const Annotation a = parse_annotation("global [i, j] => read A[i-1:i+1, :], reduce(max) m");
  ASSERT_EQ(a.bindings.size(), 1u);
  EXPECT_EQ(a.bindings[0].kind, BindingKind::kGlobal);
  ASSERT_EQ(a.bindings[0].names.size(), 2u);
  EXPECT_EQ(a.bindings[0].names[1].name, "j");
  EXPECT_EQ(a.bindings[0].names[1].offset, 11u);
  ASSERT_EQ(a.rules.size(), 2u);
  const Rule& r = a.rules[0];
  EXPECT_EQ(r.mode, AccessMode::kRead);
  EXPECT_EQ(r.array, "A");
  EXPECT_EQ(r.array_offset, 22u);
  ASSERT_EQ(r.indices.size(), 2u);
  EXPECT_TRUE(r.indices[0].is_slice);
  EXPECT_EQ(a.expr_to_string(r.indices[0].lo), "i - 1");
  EXPECT_EQ(a.expr_to_string(r.indices[0].hi), "i + 1");
  EXPECT_TRUE(r.indices[1].is_slice);
  EXPECT_EQ(r.indices[1].lo, -1);
  EXPECT_EQ(r.indices[1].hi, -1);
  EXPECT_EQ(a.rules[1].mode, AccessMode::kReduce);
  EXPECT_EQ(a.rules[1].op, ReduceOp::kMax);
  EXPECT_FALSE(a.rules[1].has_brackets);
}

TEST(Parser, MultiplicationBindsTighterThanAdditionAndIsLeftAssociative) {
  const Annotation a = parse_annotation("global i => read A[1 - 2 - 3 * 4 / 5]");
  const Expr& root = a.exprs[a.rules[0].indices[0].expr];
  ASSERT_EQ(root.kind, ExprKind::kSub);
  EXPECT_EQ(a.expr_to_string(root.lhs), "1 - 2");
  EXPECT_EQ(a.expr_to_string(root.rhs), "3 * 4 / 5");
  EXPECT_EQ(a.exprs[root.rhs].kind, ExprKind::kDiv);
}

struct ErrorCase {
  const char* text;
  const char* message;  // the full golden message, caret line included
};

class SyntaxErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SyntaxErrorTest, GivesGoldenMessage) {
  EXPECT_EQ(annotation_error([] { parse_annotation(GetParam().text); }), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Golden, SyntaxErrorTest,
    ::testing::Values(
        ErrorCase{"", "annotation:1:1: empty annotation (expected '=>' and rules)\n\n^"},
        ErrorCase{"global i read A[i]",
                  "annotation:1:10: expected ',' or '=>' after a binding, found 'read'\n"
                  "global i read A[i]\n"
                  "         ^"},
        ErrorCase{"thread i => read A[i]",
                  "annotation:1:1: expected a binding ('global', 'block' or 'local') or '=>', "
                  "found 'thread'\n"
                  "thread i => read A[i]\n"
                  "^"},
        ErrorCase{"global [i, 2] => read A[i]",
                  "annotation:1:12: expected a variable name or '_', found '2'\n"
                  "global [i, 2] => read A[i]\n"
                  "           ^"},
        ErrorCase{"global i => fetch A[i]",
                  "annotation:1:13: unknown access mode 'fetch' (expected 'read', 'write', "
                  "'overwrite', 'readwrite' or 'reduce')\n"
                  "global i => fetch A[i]\n"
                  "            ^"},
        ErrorCase{"global i => reduce(avg) s",
                  "annotation:1:20: unknown reduction operator 'avg' (expected +, *, min or max)\n"
                  "global i => reduce(avg) s\n"
                  "                   ^"},
        ErrorCase{"global i => reduce s",
                  "annotation:1:20: expected '(' and a reduction operator after 'reduce', found "
                  "'s'\n"
                  "global i => reduce s\n"
                  "                   ^"},
        ErrorCase{"global i => read A[i",
                  "annotation:1:21: expected ',' or ']' after an index, "
                  "found end of annotation\n"
                  "global i => read A[i\n"
                  "                    ^"},
        ErrorCase{"global i => read A[i+]",
                  "annotation:1:22: expected an expression, found ']'\n"
                  "global i => read A[i+]\n"
                  "                     ^"},
        ErrorCase{"global i => read A[i] write B[i]",
                  "annotation:1:23: expected ',' between rules, found 'write'\n"
                  "global i => read A[i] write B[i]\n"
                  "                      ^"},
        ErrorCase{"global i => read A[i],",
                  "annotation:1:23: expected an access mode ('read', 'write', 'overwrite', "
                  "'readwrite' or 'reduce'), found end of annotation\n"
                  "global i => read A[i],\n"
                  "                      ^"},
        ErrorCase{"global i => read A[i % 2]",
                  "annotation:1:22: unexpected character '%'\n"
                  "global i => read A[i % 2]\n"
                  "                     ^"},
        ErrorCase{"global i => read A[99999999999999999999]",
                  "annotation:1:20: integer literal does not fit in 64 bits\n"
                  "global i => read A[99999999999999999999]\n"
                  "                   ^"},
        ErrorCase{"global i = read A[i]",
                  "annotation:1:10: unexpected character '='\n"
                  "global i = read A[i]\n"
                  "         ^"},
        // Multi-line annotations: the line number counts, the caret follows tabs.
        ErrorCase{"global i =>\n\tread A[i],\n\twrite B[)]",
                  "annotation:3:10: expected an expression, found ')'\n"
                  "\twrite B[)]\n"
                  "\t        ^"}));

TEST(Parser, RejectsDeepNestingInsteadOfOverflowingTheStack) {
  std::string deep =
      "global i => read A[" + std::string(100, '(') + "i" + std::string(100, ')') + "]";
  EXPECT_NE(annotation_error([&] { parse_annotation(deep); }).find("nested too deeply"),
            std::string::npos);
  std::string chain = "global i => read A[i";
  for (int k = 0; k < 100; ++k) chain += " + i";
  chain += "]";
  EXPECT_NE(annotation_error([&] { parse_annotation(chain); }).find("nested too deeply"),
            std::string::npos);
  std::string ok = "global i => read A[i";
  for (int k = 0; k < kMaxExprHeight / 2 - 1; ++k) ok += " + i";
  EXPECT_NO_THROW(parse_annotation(ok + "]"));
}

}  // namespace
}  // namespace lightning::annotation
