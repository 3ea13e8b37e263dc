#include "annotation/region_evaluator.hpp"

#include <algorithm>

#include "annotation/affine_form.hpp"
#include "annotation/checked_int.hpp"
#include "annotation/diagnostic.hpp"
#include "core/error.hpp"

namespace lightning::annotation {
namespace {

// The value of a lowered expression: an affine form while the expression is affine (exact),
// a range summary once a division by a non-trivial value has happened.
struct Value {
  bool affine = true;
  AffineForm form;
  ValueRange range;
};

class Evaluator {
 public:
  Evaluator(const BoundAnnotation& bound, const ThreadBox& sb, const LaunchArguments& args)
      : bound_(bound), sb_(sb), args_(args), space_(checked(bound, sb, args)) {}

  // Region of one rule; `exact` as in AccessRegion.
  void rule_region(const BoundRule& rule, Rect* region, bool* exact) const {
    try {
      compute(rule, region, exact);
    } catch (const IndexOverflow&) {
      throw_annotation_error(bound_.text(), rule.offset,
                             "index arithmetic of this rule overflows 64-bit integers for the "
                             "threads " +
                                 sb_.threads.to_string());
    }
  }

 private:
  // Validates the inputs before ThreadSpace relies on them.
  static ThreadSpace checked(const BoundAnnotation& bound, const ThreadBox& sb,
                             const LaunchArguments& args) {
    const int rank = bound.launch_rank();
    auto bad = [&](const std::string& what) {
      throw Error(ErrorKind::kInvalidArgument,
                  what + " (evaluating annotation '" + bound.canonical() + "')");
    };
    if (sb.threads.rank() != rank || sb.block_size.rank() != rank)
      bad("superblock " + sb.threads.to_string() + " with block size " + sb.block_size.to_string() +
          " does not have the launch rank " + std::to_string(rank));
    if (sb.threads.empty()) bad("superblock " + sb.threads.to_string() + " is empty");
    for (int a = 0; a < rank; ++a) {
      if (sb.block_size[a] < 1) bad("block size " + sb.block_size.to_string() + " is not positive");
      if (sb.threads.lo()[a] < 0)
        bad("superblock " + sb.threads.to_string() + " has negative thread indices");
    }
    const size_t n = bound.signature().params.size();
    if (args.scalars.size() != n || args.extents.size() != n)
      bad("launch arguments have " + std::to_string(args.scalars.size()) + " scalars and " +
          std::to_string(args.extents.size()) + " extents; the kernel has " + std::to_string(n) +
          " parameters");
    for (const BoundArray& arr : bound.arrays()) {
      const Point& e = args.extents[arr.param];
      bool ok = e.rank() == arr.rank;
      for (int a = 0; ok && a < e.rank(); ++a) ok = e[a] >= 0;
      if (!ok)
        bad("extent " + e.to_string() + " of array '" + bound.signature().params[arr.param].name +
            "' does not fit its rank " + std::to_string(arr.rank));
    }
    return ThreadSpace(sb.threads, sb.block_size);
  }

  ValueRange range(const Value& v) const { return v.affine ? range_of(v.form, space_) : v.range; }

  static Value of_range(const ValueRange& r) {
    Value v;
    v.affine = false;
    v.range = r;
    return v;
  }

  Value eval(int32_t index) const {
    const LoweredExpr& e = bound_.exprs()[index];
    Value v;
    switch (e.op) {
      case LoweredOp::kConstant:
        v.form.constant = e.value;
        return v;
      case LoweredOp::kScalar:
        v.form.constant = args_.scalars[e.value];
        return v;
      case LoweredOp::kGlobal:
        v.form.block[e.value] = sb_.block_size[static_cast<int>(e.value)];
        v.form.local[e.value] = 1;
        return v;
      case LoweredOp::kBlock:
        v.form.block[e.value] = 1;
        return v;
      case LoweredOp::kLocal:
        v.form.local[e.value] = 1;
        return v;
      case LoweredOp::kNeg: {
        const Value a = eval(e.lhs);
        return a.affine ? Value{true, negate(a.form), {}} : of_range(scale(a.range, -1));
      }
      case LoweredOp::kAdd:
      case LoweredOp::kSub: {
        const Value a = eval(e.lhs);
        Value b = eval(e.rhs);
        if (a.affine && b.affine) {
          v.form = add(a.form, e.op == LoweredOp::kSub ? negate(b.form) : b.form);
          return v;
        }
        const ValueRange rb = range(b);
        return of_range(add(range(a), e.op == LoweredOp::kSub ? scale(rb, -1) : rb));
      }
      case LoweredOp::kMul: {
        const Value a = eval(e.lhs);
        const Value b = eval(e.rhs);
        // bind() guarantees that one side does not vary; it evaluates to a constant form.
        const bool a_const = a.affine && a.form.is_constant();
        const int64_t c = a_const ? a.form.constant : b.form.constant;
        const Value& other = a_const ? b : a;
        return other.affine ? Value{true, scale(other.form, c), {}}
                            : of_range(scale(other.range, c));
      }
      case LoweredOp::kDiv: {
        const Value a = eval(e.lhs);
        const int64_t d = eval(e.rhs).form.constant;
        if (d <= 0)
          throw_annotation_error(
              bound_.text(), e.offset,
              "divisor evaluates to " + std::to_string(d) + "; divisors must be positive");
        if (a.affine && a.form.is_constant()) {
          v.form.constant = floor_div(a.form.constant, d);
          return v;
        }
        return of_range(divide(range(a), d));
      }
    }
    return v;
  }

  // The values one index takes over the superblock, before clamping; `empty` when every
  // thread's slice is empty.
  struct IndexSet {
    bool empty = false;
    ValueRange values;
  };

  IndexSet index_set(const BoundIndex& idx, int64_t extent) const {
    IndexSet s;
    if (!idx.is_slice) {
      s.values = range(eval(idx.expr));
      return s;
    }
    Value lo, hi;
    if (idx.lo >= 0) lo = eval(idx.lo);
    hi.form.constant = extent - 1;
    if (idx.hi >= 0) hi = eval(idx.hi);
    if (lo.affine && hi.affine && lo.form.same_variables(hi.form)) {
      // Every thread touches [lo, lo + width]: a translate of one interval.
      const int64_t width = checked_sub(hi.form.constant, lo.form.constant);
      if (width < 0) {
        s.empty = true;
        return s;
      }
      s.values = add_independent(range(lo), ValueRange::progression(0, 1, checked_add(width, 1)));
      return s;
    }
    // Bounds that move differently: the union of the slices lies within [min lo, max hi];
    // nothing is known about holes.
    const ValueRange rl = range(lo), rh = range(hi);
    if (rl.min > rh.max) {
      s.empty = true;
      return s;
    }
    s.values = {rl.min, rh.max, kUnknownGap, static_cast<uint8_t>(rl.axes | rh.axes)};
    return s;
  }

  void compute(const BoundRule& rule, Rect* region, bool* exact) const {
    const Point& extent = args_.extents[rule.param];
    Point lo = Point::filled(rule.rank, 0), hi = Point::filled(rule.rank, 0);
    ValueRange sets[kMaxRank];
    bool dense = true;
    for (int a = 0; a < rule.rank; ++a) {
      const IndexSet s = index_set(bound_.indices()[rule.first_index + a], extent[a]);
      const int64_t first = s.empty ? 0 : std::max<int64_t>(s.values.min, 0);
      const int64_t last = s.empty ? -1 : std::min<int64_t>(s.values.max, extent[a] - 1);
      if (first > last) {
        *region = Rect::empty_of_rank(rule.rank);
        *exact = true;
        return;
      }
      lo[a] = first;
      hi[a] = last + 1;
      sets[a] = s.values;
      dense = dense && s.values.dense();
    }
    // The touched set is the product of the per-index sets when no two varying indices
    // depend on the same launch axis; a dense product fills its box.
    for (int a = 0; dense && a < rule.rank; ++a)
      for (int b = a + 1; dense && b < rule.rank; ++b)
        if ((sets[a].axes & sets[b].axes) != 0 && !sets[a].single() && !sets[b].single())
          dense = false;
    *region = Rect(lo, hi);
    *exact = dense;
  }

  const BoundAnnotation& bound_;
  const ThreadBox& sb_;
  const LaunchArguments& args_;
  ThreadSpace space_;
};

// Whether the bounding union of two boxes is covered by them (given whether each box is
// itself covered by the accesses).
bool union_exact(const Rect& a, bool exact_a, const Rect& b, bool exact_b) {
  if (a.empty()) return exact_b;
  if (b.empty()) return exact_a;
  if (a.contains(b)) return exact_a;
  if (b.contains(a)) return exact_b;
  if (!exact_a || !exact_b) return false;
  int differing = 0;
  for (int ax = 0; ax < a.rank(); ++ax) {
    if (a.lo()[ax] == b.lo()[ax] && a.hi()[ax] == b.hi()[ax]) continue;
    ++differing;
    if (a.lo()[ax] > b.hi()[ax] || b.lo()[ax] > a.hi()[ax]) return false;  // a hole between
  }
  return differing <= 1;
}

}  // namespace

ThreadBox ThreadBox::from_blocks(const Rect& blocks, const Point& block_size, const Rect& domain) {
  if (blocks.rank() != block_size.rank() || blocks.rank() != domain.rank())
    throw Error(ErrorKind::kInvalidArgument, "blocks " + blocks.to_string() + ", block size " +
                                                 block_size.to_string() + " and domain " +
                                                 domain.to_string() + " differ in rank");
  Point lo = blocks.lo(), hi = blocks.hi();
  for (int a = 0; a < blocks.rank(); ++a) {
    if (__builtin_mul_overflow(lo[a], block_size[a], &lo[a]) ||
        __builtin_mul_overflow(hi[a], block_size[a], &hi[a]))
      throw Error(ErrorKind::kInvalidArgument,
                  "blocks " + blocks.to_string() + " overflow 64-bit thread indices");
  }
  return {Rect(lo, hi).intersection(domain), block_size};
}

void evaluate_rule_regions(const BoundAnnotation& bound, const ThreadBox& superblock,
                           const LaunchArguments& args, AccessRegion* out) {
  const Evaluator ev(bound, superblock, args);
  for (const BoundRule& rule : bound.rules()) {
    AccessRegion& r = *out++;
    r.param = rule.param;
    r.mode = rule.mode;
    r.op = rule.op;
    ev.rule_region(rule, &r.region, &r.exact);
  }
}

void evaluate_regions(const BoundAnnotation& bound, const ThreadBox& superblock,
                      const LaunchArguments& args, AccessRegion* out) {
  const Evaluator ev(bound, superblock, args);
  for (const BoundArray& arr : bound.arrays()) {
    AccessRegion& r = *out++;
    r.param = arr.param;
    r.mode = arr.mode;
    r.op = arr.op;
    for (size_t i = 0; i < arr.rules.size(); ++i) {
      Rect region;
      bool exact = false;
      ev.rule_region(bound.rules()[arr.rules[i]], &region, &exact);
      if (i == 0) {
        r.region = region;
        r.exact = exact;
      } else {
        r.exact = union_exact(r.region, r.exact, region, exact);
        r.region = r.region.bounding_union(region);
      }
    }
  }
}

std::vector<AccessRegion> evaluate_regions(const BoundAnnotation& bound,
                                           const ThreadBox& superblock,
                                           const LaunchArguments& args) {
  std::vector<AccessRegion> out(bound.arrays().size());
  evaluate_regions(bound, superblock, args, out.data());
  return out;
}

std::vector<AccessRegion> evaluate_rule_regions(const BoundAnnotation& bound,
                                                const ThreadBox& superblock,
                                                const LaunchArguments& args) {
  std::vector<AccessRegion> out(bound.rules().size());
  evaluate_rule_regions(bound, superblock, args, out.data());
  return out;
}

}  // namespace lightning::annotation
