// Index expressions lowered to affine forms in the block and local thread indices, and their
// exact value ranges over a superblock.
#pragma once

#include <cstdint>

#include "annotation/value_range.hpp"
#include "core/point.hpp"
#include "core/rect.hpp"

namespace lightning::annotation {

/// constant + sum over axes a of (block[a] * b_a + local[a] * l_a), where b_a is a thread's
/// block index and l_a its index within the block. A global index g_a = b_a * bs_a + l_a is
/// lowered to coefficients (bs_a, 1), which keeps the coupling between block and local
/// exact. All arithmetic is overflow-checked (throws IndexOverflow).
struct AffineForm {
  int64_t constant = 0;
  int64_t block[kMaxRank] = {};
  int64_t local[kMaxRank] = {};

  static AffineForm of_constant(int64_t c) {
    AffineForm f;
    f.constant = c;
    return f;
  }
  /// True when no thread index appears with a non-zero coefficient.
  bool is_constant() const;
  /// True when both forms have the same coefficients (they may differ in the constant).
  bool same_variables(const AffineForm& other) const;
};

AffineForm add(const AffineForm& a, const AffineForm& b);
AffineForm negate(const AffineForm& a);
AffineForm scale(const AffineForm& a, int64_t c);

/// The threads of a superblock, per launch axis, as at most three products of a block-index
/// interval and a local-index interval: a partial first block, the full blocks in between
/// and a partial last block. Within one piece the two indices vary independently, which is
/// what makes interval arithmetic over (block, local) exact.
class ThreadSpace {
 public:
  /// One piece of one axis: blocks [b0, b1] (inclusive) x locals [l0, l1] (inclusive).
  struct Piece {
    int64_t b0, b1, l0, l1;
  };

  /// `superblock`: a non-empty half-open box of global thread indices >= 0; `block_size`:
  /// positive, same rank. The caller checks both (see evaluate_regions()).
  ThreadSpace(const Rect& superblock, const Point& block_size);

  int rank() const { return rank_; }
  int piece_count(int axis) const { return piece_count_[axis]; }
  const Piece& piece(int axis, int i) const { return pieces_[axis][i]; }

 private:
  int rank_ = 0;
  int piece_count_[kMaxRank] = {};
  Piece pieces_[kMaxRank][3] = {};
};

/// The exact bounds, and a sound gap, of the values of `form` over the threads of `space`.
ValueRange range_of(const AffineForm& form, const ThreadSpace& space);

}  // namespace lightning::annotation
