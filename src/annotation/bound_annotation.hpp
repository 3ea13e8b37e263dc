// An annotation checked against a kernel signature and a launch rank, lowered to a compact
// form that region evaluation walks for every superblock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "annotation/access_mode.hpp"
#include "annotation/ast.hpp"
#include "annotation/diagnostic.hpp"
#include "annotation/kernel_signature.hpp"

namespace lightning::annotation {

/// How a launch numbers its threads: a range of global indices (RangePolicy, MDRangePolicy,
/// ported CUDA grids), or teams (TeamPolicy: block = league rank, local = team rank, and no
/// global index a kernel could see).
enum class LaunchKind : uint8_t { kThreads, kTeams };

/// Operations of a lowered index expression.
enum class LoweredOp : uint8_t {
  kConstant,  ///< value: the constant (literals and named constants, folded)
  kScalar,    ///< value: position of an integer scalar parameter
  kGlobal,    ///< value: launch axis of a global thread index
  kBlock,     ///< value: launch axis of a block index
  kLocal,     ///< value: launch axis of an index within the block
  kAdd,
  kSub,
  kNeg,  ///< operand in lhs
  kMul,  ///< at most one operand is `varying` (checked by bind)
  kDiv,  ///< floor division; rhs is not `varying`
};

/// One node of a lowered expression; operands are positions in BoundAnnotation::exprs().
struct LoweredExpr {
  LoweredOp op = LoweredOp::kConstant;
  bool varying = false;  ///< depends on a thread index
  int32_t lhs = -1;
  int32_t rhs = -1;
  int64_t value = 0;
  size_t offset = 0;  ///< where the node is in the text, for errors raised at evaluation
};

/// One index of a rule; `expr`, `lo`, `hi` are positions in exprs(), -1 when absent
/// (an absent slice bound means the first or last element of the array axis).
struct BoundIndex {
  bool is_slice = false;
  int32_t expr = -1;
  int32_t lo = -1;
  int32_t hi = -1;
};

/// One rule, resolved: its array parameter and its indices (positions first_index ..
/// first_index + rank - 1 of indices()).
struct BoundRule {
  int param = -1;
  AccessMode mode = AccessMode::kRead;
  ReduceOp op = ReduceOp::kSum;
  int rank = 0;
  uint32_t first_index = 0;
  size_t offset = 0;
};

/// One array that the annotation mentions, with the merged mode of its rules: reads only ->
/// kRead; one write (overwrite) alone -> kWrite (kOverwrite); a reduce (always alone) -> kReduce;
/// anything else (a readwrite, or reads with a write) -> kReadWrite over the union of the rules'
/// regions.
struct BoundArray {
  int param = -1;
  AccessMode mode = AccessMode::kRead;
  ReduceOp op = ReduceOp::kSum;
  int rank = 0;
  std::vector<uint32_t> rules;  ///< positions in rules(), in text order
};

/// A validated, lowered annotation. Immutable; build it once per (kernel, launch rank) and
/// evaluate it per superblock with evaluate_regions().
class BoundAnnotation {
 public:
  /// Checks `ast` against `signature` for launches of rank `launch_rank` (1-3) and lowers
  /// it. Throws Error(kAnnotation) with a caret diagnostic on the first problem: unknown
  /// names, arrays used as scalars and the reverse, wrong number of indices, non-affine
  /// indices (`i * j`), non-constant or non-positive divisors, a binding with more axes than
  /// the launch, several write/readwrite/reduce rules (or a reduce next to another rule) on
  /// one array, and reduce patterns that step over elements (`reduce(+) s[2 * i]`).
  /// Throws Error(kInvalidArgument) for a bad signature or launch rank.
  /// Array parameters that no rule mentions are reported in warnings(), not as errors.
  /// A team launch (LaunchKind::kTeams) refuses `global` with a caret on the binding.
  static BoundAnnotation bind(const Annotation& ast, const KernelSignature& signature,
                              int launch_rank, LaunchKind kind = LaunchKind::kThreads);

  const std::string& text() const { return text_; }
  /// The canonical text of the annotation (Annotation::to_string()).
  const std::string& canonical() const { return canonical_; }
  const KernelSignature& signature() const { return signature_; }
  int launch_rank() const { return launch_rank_; }
  LaunchKind launch_kind() const { return launch_kind_; }
  /// Whether a rule's index depends on a block or local index (a `block` or `local` binding
  /// it uses): only then do the regions depend on how the launch's threads form blocks.
  bool uses_blocks() const { return uses_blocks_; }
  /// Non-fatal findings, e.g. array parameters that no rule mentions.
  const std::vector<Diagnostic>& warnings() const { return warnings_; }

  const std::vector<BoundRule>& rules() const { return rules_; }
  /// The arrays the rules mention, in order of first mention: one region each.
  const std::vector<BoundArray>& arrays() const { return arrays_; }
  const std::vector<BoundIndex>& indices() const { return indices_; }
  const std::vector<LoweredExpr>& exprs() const { return exprs_; }

 private:
  friend class Binder;
  std::string text_;
  std::string canonical_;
  KernelSignature signature_;
  int launch_rank_ = 0;
  LaunchKind launch_kind_ = LaunchKind::kThreads;
  bool uses_blocks_ = false;
  std::vector<Diagnostic> warnings_;
  std::vector<BoundRule> rules_;
  std::vector<BoundArray> arrays_;
  std::vector<BoundIndex> indices_;
  std::vector<LoweredExpr> exprs_;
};

}  // namespace lightning::annotation
