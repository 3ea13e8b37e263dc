#include "annotation/bound_annotation.hpp"

#include <gtest/gtest.h>

#include "annotation/parser.hpp"
#include "error_matchers.hpp"

namespace lightning::annotation {
namespace {

using testing::annotation_error;

// A: float[1], B: float[2], s: double (rank-0 array), n: int64, alpha: float, K = 40.
KernelSignature test_signature() {
  KernelSignature sig;
  sig.add_array("A", DataType::kFloat32, 1)
      .add_array("B", DataType::kFloat32, 2)
      .add_array("s", DataType::kFloat64, 0)
      .add_scalar("n", DataType::kInt64)
      .add_scalar("alpha", DataType::kFloat32)
      .add_constant("K", 40);
  return sig;
}

BoundAnnotation bind(const char* text, int launch_rank = 2) {
  return BoundAnnotation::bind(parse_annotation(text), test_signature(), launch_rank);
}

struct ErrorCase {
  const char* text;
  const char* message;
};

class ValidationErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ValidationErrorTest, GivesGoldenMessage) {
  EXPECT_EQ(annotation_error([] { bind(GetParam().text); }), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Golden, ValidationErrorTest,
    ::testing::Values(
        ErrorCase{"global i => read A[i], write C[i]",
                  "annotation:1:30: unknown array 'C' (kernel has: A, B, s)\n"
                  "global i => read A[i], write C[i]\n"
                  "                             ^"},
        ErrorCase{"global i => read n",
                  "annotation:1:18: 'n' is a scalar parameter, not an array (kernel has: A, B, s)\n"
                  "global i => read n\n"
                  "                 ^"},
        ErrorCase{"global i => read B[i]",
                  "annotation:1:20: 'B' has rank 2 but the rule gives 1 index\n"
                  "global i => read B[i]\n"
                  "                   ^"},
        ErrorCase{"global i => read B",
                  "annotation:1:18: 'B' has rank 2 but the rule gives 0 indices; write "
                  "'B[:, :]' for the whole array\n"
                  "global i => read B\n"
                  "                 ^"},
        ErrorCase{"global i => reduce(+) s[i]",
                  "annotation:1:25: 's' has rank 0 but the rule gives 1 index; write 's' "
                  "without brackets\n"
                  "global i => reduce(+) s[i]\n"
                  "                        ^"},
        ErrorCase{"global [i, j] => read A[i * j]",
                  "annotation:1:27: index is not affine: 'i * j' multiplies two terms that "
                  "depend on thread indices\n"
                  "global [i, j] => read A[i * j]\n"
                  "                          ^"},
        ErrorCase{"global [i, j] => read A[n / (j + 1)]",
                  "annotation:1:27: index is not affine: the divisor 'j + 1' depends on thread "
                  "indices; divide by constants only\n"
                  "global [i, j] => read A[n / (j + 1)]\n"
                  "                          ^"},
        ErrorCase{"global i => read A[i / (2 - 2)]",
                  "annotation:1:22: division by 0; divisors must be positive\n"
                  "global i => read A[i / (2 - 2)]\n"
                  "                     ^"},
        ErrorCase{"global i => read A[i / -2]",
                  "annotation:1:22: division by -2; divisors must be positive\n"
                  "global i => read A[i / -2]\n"
                  "                     ^"},
        ErrorCase{"global [i, j, k] => read A[i]",
                  "annotation:1:15: 'global [i, j, k]' binds 3 axes but the launch has rank 2\n"
                  "global [i, j, k] => read A[i]\n"
                  "              ^"},
        ErrorCase{"global i, global j => read A[i]",
                  "annotation:1:11: 'global' is bound twice\n"
                  "global i, global j => read A[i]\n"
                  "          ^"},
        ErrorCase{"global [i, _], block [_, i] => read A[i]",
                  "annotation:1:26: 'i' is bound twice\n"
                  "global [i, _], block [_, i] => read A[i]\n"
                  "                         ^"},
        ErrorCase{"global n => read A[n]",
                  "annotation:1:8: 'n' is bound to a thread index but also names a kernel "
                  "parameter; rename one of them\n"
                  "global n => read A[n]\n"
                  "       ^"},
        ErrorCase{"global i => read A[x]",
                  "annotation:1:20: unknown name 'x' (bound: i; integer parameters and "
                  "constants: n, K)\n"
                  "global i => read A[x]\n"
                  "                   ^"},
        ErrorCase{"global [i, _] => read A[_]",
                  "annotation:1:25: '_' ignores an axis in a binding; it has no value here\n"
                  "global [i, _] => read A[_]\n"
                  "                        ^"},
        ErrorCase{"global i => read A[i * alpha]",
                  "annotation:1:24: 'alpha' is a float parameter; indices take integer "
                  "parameters only\n"
                  "global i => read A[i * alpha]\n"
                  "                       ^"},
        ErrorCase{"global i => read A[B]",
                  "annotation:1:20: 'B' is an array; an index cannot depend on array contents\n"
                  "global i => read A[B]\n"
                  "                   ^"},
        ErrorCase{"global i => write A[i], readwrite A[i + 1]",
                  "annotation:1:25: 'A' already has a write rule (at 1:13); an array takes at "
                  "most one write, overwrite, readwrite or reduce rule\n"
                  "global i => write A[i], readwrite A[i + 1]\n"
                  "                        ^"},
        ErrorCase{"global i => reduce(+) A[i], read A[:]",
                  "annotation:1:29: 'A' already has a reduce rule (at 1:13); a reduce rule must "
                  "be the only rule of its array\n"
                  "global i => reduce(+) A[i], read A[:]\n"
                  "                            ^"},
        ErrorCase{"global i => read A[:], reduce(max) A[i]",
                  "annotation:1:24: 'A' already has a read rule (at 1:13); a reduce rule must "
                  "be the only rule of its array\n"
                  "global i => read A[:], reduce(max) A[i]\n"
                  "                       ^"},
        ErrorCase{"global [i, j] => reduce(+) A[2 * j + 1]",
                  "annotation:1:30: reduce pattern is not dense: '2 * j + 1' steps by 2 from "
                  "one thread to the next, so 'A' would have elements that no thread reduces "
                  "into\n"
                  "global [i, j] => reduce(+) A[2 * j + 1]\n"
                  "                             ^"},
        ErrorCase{"global i => read A[i + 4611686018427387904 * 4]",
                  "annotation:1:44: constant arithmetic overflows 64-bit integers\n"
                  "global i => read A[i + 4611686018427387904 * 4]\n"
                  "                                           ^"}));

TEST(BoundAnnotation, ResolvesNamesAndFoldsConstants) {
  const BoundAnnotation b = bind("global [i, j] => read A[K * 2 + i / 2 - n], write B[j, i]");
  ASSERT_EQ(b.rules().size(), 2u);
  EXPECT_EQ(b.rules()[0].param, 0);
  EXPECT_EQ(b.rules()[1].param, 1);
  EXPECT_EQ(b.rules()[1].rank, 2);
  const LoweredExpr& root = b.exprs()[b.indices()[b.rules()[0].first_index].expr];
  ASSERT_EQ(root.op, LoweredOp::kSub);
  const LoweredExpr& sum = b.exprs()[root.lhs];
  ASSERT_EQ(sum.op, LoweredOp::kAdd);
  EXPECT_EQ(b.exprs()[sum.lhs].op, LoweredOp::kConstant);
  EXPECT_EQ(b.exprs()[sum.lhs].value, 80);  // K * 2 folded
  EXPECT_EQ(b.exprs()[root.rhs].op, LoweredOp::kScalar);
  EXPECT_EQ(b.exprs()[root.rhs].value, 3);  // parameter n
  EXPECT_EQ(b.canonical(), "global [i, j] => read A[K * 2 + i / 2 - n], write B[j, i]");
}

TEST(BoundAnnotation, MergesRulesPerArray) {
  const BoundAnnotation b =
      bind("global [i, j] => read B[i, :], read B[:, j], write A[i], read A[i + 1]");
  ASSERT_EQ(b.arrays().size(), 2u);
  EXPECT_EQ(b.arrays()[0].param, 1);
  EXPECT_EQ(b.arrays()[0].mode, AccessMode::kRead);
  EXPECT_EQ(b.arrays()[0].rules, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(b.arrays()[1].param, 0);
  EXPECT_EQ(b.arrays()[1].mode, AccessMode::kReadWrite);  // read + write: readwrite of the union
  EXPECT_EQ(b.arrays()[1].rules, (std::vector<uint32_t>{2, 3}));
}

TEST(BoundAnnotation, KeepsModesOfSingleRules) {
  const BoundAnnotation b = bind("global [i, j] => write A[i], readwrite B[i, j], reduce(min) s");
  ASSERT_EQ(b.arrays().size(), 3u);
  EXPECT_EQ(b.arrays()[0].mode, AccessMode::kWrite);
  EXPECT_EQ(b.arrays()[1].mode, AccessMode::kReadWrite);
  EXPECT_EQ(b.arrays()[2].mode, AccessMode::kReduce);
  EXPECT_EQ(b.arrays()[2].op, ReduceOp::kMin);
}

TEST(BoundAnnotation, KeepsOverwriteAloneAndMergesItWithReadsIntoReadwrite) {
  const BoundAnnotation alone = bind("global [i, j] => read B[i, j], overwrite A[i]");
  EXPECT_EQ(alone.arrays()[1].mode, AccessMode::kOverwrite);
  // Reading what it overwrites needs the old contents: readwrite over the union.
  const BoundAnnotation merged = bind("global i => read A[i - 1 : i + 1], overwrite A[i]", 1);
  ASSERT_EQ(merged.arrays().size(), 1u);
  EXPECT_EQ(merged.arrays()[0].mode, AccessMode::kReadWrite);
}

TEST(BoundAnnotation, KnowsWhetherItsRegionsDependOnBlocks) {
  EXPECT_FALSE(bind("global [i, j] => read B[i, :], write A[j]").uses_blocks());
  EXPECT_FALSE(bind("global i, block b => write A[i]").uses_blocks());  // b unused
  EXPECT_TRUE(bind("block [b, c] => write A[b * 16]").uses_blocks());
  EXPECT_TRUE(bind("global i, local l => write A[i - l]").uses_blocks());
}

TEST(BoundAnnotation, WarnsAboutArraysNoRuleMentions) {
  const BoundAnnotation b = bind("global i => read A[i]");
  ASSERT_EQ(b.warnings().size(), 2u);
  EXPECT_EQ(b.warnings()[0].severity, Severity::kWarning);
  EXPECT_EQ(b.warnings()[0].format(b.text()),
            "annotation:1:22: warning: no rule mentions array 'B'; the kernel must not access "
            "it (its data is not moved for this kernel)\n"
            "global i => read A[i]\n"
            "                     ^");
  EXPECT_NE(b.warnings()[1].message.find("'s'"), std::string::npos);
  EXPECT_TRUE(bind("global [i, j] => read A[i], write B[i, j], reduce(+) s").warnings().empty());
  // The arrays of a functor's work tags are shared by its operators: one need not use all.
  KernelSignature shared = test_signature();
  shared.arrays_shared = true;
  EXPECT_TRUE(BoundAnnotation::bind(parse_annotation("global i => read A[i]"), shared, 2)
                  .warnings()
                  .empty());
}

TEST(BoundAnnotation, AcceptsDenseAndParameterDependentReducePatterns) {
  // Dense by construction, or only decidable per superblock: accepted.
  EXPECT_NO_THROW(bind("global [i, j] => reduce(+) A[i]"));
  EXPECT_NO_THROW(bind("global [i, j] => reduce(+) A[i / 2]"));
  EXPECT_NO_THROW(bind("global [i, j] => reduce(+) A[i + 2 * j]"));
  EXPECT_NO_THROW(bind("global [i, j] => reduce(+) A[n * i]"));
  EXPECT_NO_THROW(bind("global [i, j] => reduce(+) A[:], reduce(*) B[0:K, j]"));
}

TEST(BoundAnnotation, ChecksLaunchRankAndSignature) {
  const Annotation a = parse_annotation("global i => read A[i]");
  EXPECT_THROW(BoundAnnotation::bind(a, test_signature(), 0), Error);
  EXPECT_THROW(BoundAnnotation::bind(a, test_signature(), 4), Error);
  KernelSignature dup = test_signature();
  dup.add_array("A", DataType::kInt32, 1);
  try {
    BoundAnnotation::bind(a, dup, 1);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
  }
}

TEST(BoundAnnotation, ATeamLaunchBindsBlockAndLocalButNeverGlobal) {
  const Annotation teams = parse_annotation("block j, local t => read B[j, t], write A[j]");
  const BoundAnnotation b = BoundAnnotation::bind(teams, test_signature(), 1, LaunchKind::kTeams);
  EXPECT_EQ(b.launch_kind(), LaunchKind::kTeams);
  EXPECT_EQ(b.arrays().size(), 2u);
  EXPECT_EQ(annotation_error([] {
              BoundAnnotation::bind(parse_annotation("block j, global i => write A[i]"),
                                    test_signature(), 1, LaunchKind::kTeams);
            }),
            "annotation:1:10: a team launch (TeamPolicy) has no global thread index: bind "
            "'block' to the league rank and 'local' to the team rank, e.g. 'block b, local t "
            "=>'\nblock j, global i => write A[i]\n         ^");
  // The same text binds on a launch of global indices.
  EXPECT_NO_THROW(BoundAnnotation::bind(parse_annotation("block j, global i => write A[i]"),
                                        test_signature(), 1));
}

TEST(BoundAnnotation, AllowsFewerBoundAxesThanTheLaunch) {
  const BoundAnnotation b = bind("global i => write A[i]", 3);
  EXPECT_EQ(b.launch_rank(), 3);
}

}  // namespace
}  // namespace lightning::annotation
