#include "annotation/affine_form.hpp"

#include <cassert>

#include "annotation/checked_int.hpp"

namespace lightning::annotation {

bool AffineForm::is_constant() const {
  for (int a = 0; a < kMaxRank; ++a)
    if (block[a] != 0 || local[a] != 0) return false;
  return true;
}

bool AffineForm::same_variables(const AffineForm& other) const {
  for (int a = 0; a < kMaxRank; ++a)
    if (block[a] != other.block[a] || local[a] != other.local[a]) return false;
  return true;
}

AffineForm add(const AffineForm& a, const AffineForm& b) {
  AffineForm r;
  r.constant = checked_add(a.constant, b.constant);
  for (int i = 0; i < kMaxRank; ++i) {
    r.block[i] = checked_add(a.block[i], b.block[i]);
    r.local[i] = checked_add(a.local[i], b.local[i]);
  }
  return r;
}

AffineForm negate(const AffineForm& a) {
  return scale(a, -1);
}

AffineForm scale(const AffineForm& a, int64_t c) {
  AffineForm r;
  r.constant = checked_mul(a.constant, c);
  for (int i = 0; i < kMaxRank; ++i) {
    r.block[i] = checked_mul(a.block[i], c);
    r.local[i] = checked_mul(a.local[i], c);
  }
  return r;
}

ThreadSpace::ThreadSpace(const Rect& superblock, const Point& block_size)
    : rank_(superblock.rank()) {
  assert(!superblock.empty() && block_size.rank() == rank_);
  for (int a = 0; a < rank_; ++a) {
    const int64_t bs = block_size[a];
    const int64_t first = superblock.lo()[a];
    const int64_t last = superblock.hi()[a] - 1;
    const int64_t bf = first / bs, lf = first % bs;
    const int64_t bl = last / bs, ll = last % bs;
    Piece* p = pieces_[a];
    int n = 0;
    if (bf == bl) {
      p[n++] = {bf, bf, lf, ll};
    } else {
      // Partial blocks at either end are folded into the middle when they are in fact full,
      // so an aligned superblock is one piece (and its ranges get the best gap estimate).
      int64_t mid_lo = bf + 1, mid_hi = bl - 1;
      if (lf == 0) {
        mid_lo = bf;
      } else {
        p[n++] = {bf, bf, lf, bs - 1};
      }
      const bool last_full = ll == bs - 1;
      if (last_full) mid_hi = bl;
      if (mid_lo <= mid_hi) p[n++] = {mid_lo, mid_hi, 0, bs - 1};
      if (!last_full) p[n++] = {bl, bl, 0, ll};
    }
    piece_count_[a] = n;
  }
}

ValueRange range_of(const AffineForm& form, const ThreadSpace& space) {
  ValueRange total = ValueRange::point(form.constant);
  for (int a = 0; a < space.rank(); ++a) {
    const int64_t alpha = form.block[a], beta = form.local[a];
    if (alpha == 0 && beta == 0) continue;
    ValueRange axis_range;
    for (int i = 0; i < space.piece_count(a); ++i) {
      const ThreadSpace::Piece& p = space.piece(a, i);
      const ValueRange blocks =
          ValueRange::progression(checked_mul(alpha, p.b0), alpha, p.b1 - p.b0 + 1);
      const ValueRange locals =
          ValueRange::progression(checked_mul(beta, p.l0), beta, p.l1 - p.l0 + 1);
      const ValueRange piece = add_independent(blocks, locals);
      axis_range = i == 0 ? piece : unite(axis_range, piece);
    }
    axis_range.axes = static_cast<uint8_t>(1u << a);
    total = add(total, axis_range);
  }
  return total;
}

}  // namespace lightning::annotation
