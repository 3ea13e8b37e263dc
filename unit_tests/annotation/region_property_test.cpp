// Property test: random affine annotations evaluated on random superblocks agree with a brute
// force enumeration of every thread's accesses. The region is never smaller than what the
// threads touch; it equals the (clamped) bounding box whenever the pattern is one the
// evaluator claims to bound tightly; and a region flagged exact is fully touched.
//
// LIGHTNING_PROPERTY_CASES sets the number of annotations (default sized for CI);
// LIGHTNING_PROPERTY_SEED replays one run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "annotation/parser.hpp"
#include "annotation/region_evaluator.hpp"

namespace lightning::annotation {
namespace {

int64_t env_or(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

int64_t floor_div_ref(int64_t a, int64_t d) {
  int64_t q = a / d;
  if (a % d != 0 && a < 0) --q;
  return q;
}

// The test's own expression tree: generated, printed as annotation text, and evaluated by
// brute force independently of the module's lowering.
struct TExpr {
  enum Kind { kLit, kVar, kParam, kNeg, kAdd, kSub, kMul, kDiv } kind = kLit;
  int64_t value = 0;  // literal; variable id (kind * 3 + axis); parameter position
  std::shared_ptr<TExpr> a, b;
};
using TExprPtr = std::shared_ptr<TExpr>;

// Thread coordinates of one thread: global, block and local index per axis.
struct Thread {
  int64_t v[3][3];  // [kind][axis]
};

constexpr int kParamN = 3, kParamM = 4, kParamD = 5;  // positions in the signature

int64_t eval(const TExpr& e, const Thread& t, const std::vector<int64_t>& scalars) {
  switch (e.kind) {
    case TExpr::kLit:
      return e.value;
    case TExpr::kVar:
      return t.v[e.value / 3][e.value % 3];
    case TExpr::kParam:
      return scalars[e.value];
    case TExpr::kNeg:
      return -eval(*e.a, t, scalars);
    case TExpr::kAdd:
      return eval(*e.a, t, scalars) + eval(*e.b, t, scalars);
    case TExpr::kSub:
      return eval(*e.a, t, scalars) - eval(*e.b, t, scalars);
    case TExpr::kMul:
      return eval(*e.a, t, scalars) * eval(*e.b, t, scalars);
    case TExpr::kDiv:
      return floor_div_ref(eval(*e.a, t, scalars), eval(*e.b, t, scalars));
  }
  return 0;
}

const char* const kVarNames[3][3] = {{"gx", "gy", "gz"}, {"bx", "by", "bz"}, {"lx", "ly", "lz"}};
const char* const kParamNames[6] = {"R1", "R2", "R3", "n", "m", "d"};

std::string print(const TExpr& e) {
  switch (e.kind) {
    case TExpr::kLit:
      return std::to_string(e.value);
    case TExpr::kVar:
      return kVarNames[e.value / 3][e.value % 3];
    case TExpr::kParam:
      return kParamNames[e.value];
    case TExpr::kNeg:
      return "-(" + print(*e.a) + ")";
    case TExpr::kAdd:
      return "(" + print(*e.a) + " + " + print(*e.b) + ")";
    case TExpr::kSub:
      return "(" + print(*e.a) + " - " + print(*e.b) + ")";
    case TExpr::kMul:
      return "(" + print(*e.a) + ")*(" + print(*e.b) + ")";
    case TExpr::kDiv:
      return "(" + print(*e.a) + ")/(" + print(*e.b) + ")";
  }
  return {};
}

TExprPtr node(TExpr::Kind kind, int64_t value = 0, TExprPtr a = nullptr, TExprPtr b = nullptr) {
  auto e = std::make_shared<TExpr>();
  e->kind = kind;
  e->value = value;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}

class Generator {
 public:
  Generator(std::mt19937_64& rng, int launch_rank) : rng_(rng), rank_(launch_rank) {}

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(int percent) { return uniform(0, 99) < percent; }

  TExprPtr leaf() {
    const int64_t r = uniform(0, 99);
    if (r < 60) return node(TExpr::kVar, uniform(0, 2) * 3 + uniform(0, rank_ - 1));
    if (r < 85) return node(TExpr::kLit, uniform(0, 12));
    return node(TExpr::kParam, chance(50) ? kParamN : kParamM);
  }

  TExprPtr constant_factor() {
    if (chance(25)) return node(TExpr::kParam, chance(50) ? kParamN : kParamM);
    const int64_t c = uniform(-3, 3);
    return c < 0 ? node(TExpr::kNeg, 0, node(TExpr::kLit, -c)) : node(TExpr::kLit, c);
  }

  TExprPtr divisor() {
    return chance(30) ? node(TExpr::kParam, kParamD) : node(TExpr::kLit, uniform(1, 4));
  }

  // An expression affine in the thread indices; with `inner_division`, divisions may appear
  // anywhere (then the evaluator only promises a superset).
  TExprPtr expr(int depth, bool inner_division) {
    if (depth == 0 || chance(30)) return leaf();
    switch (uniform(0, inner_division ? 5 : 4)) {
      case 0:
        return node(TExpr::kAdd, 0, expr(depth - 1, inner_division),
                    expr(depth - 1, inner_division));
      case 1:
        return node(TExpr::kSub, 0, expr(depth - 1, inner_division),
                    expr(depth - 1, inner_division));
      case 2:
        return chance(50)
                   ? node(TExpr::kMul, 0, constant_factor(), expr(depth - 1, inner_division))
                   : node(TExpr::kMul, 0, expr(depth - 1, inner_division), constant_factor());
      case 3:
        return node(TExpr::kNeg, 0, expr(depth - 1, inner_division));
      case 4:
        return expr(depth - 1, inner_division);
      default:
        return node(TExpr::kDiv, 0, expr(depth - 1, inner_division), divisor());
    }
  }

 private:
  std::mt19937_64& rng_;
  int rank_;
};

// One index of a generated rule, as the brute force sees it.
struct TIndex {
  bool slice = false;
  TExprPtr lo, hi;  // expression in lo; an absent slice bound is null
  bool tight = false;
  bool uniform_emptiness = true;  // every thread's slice is empty, or none is
};

struct TRule {
  int param = 0;
  int rank = 0;
  std::vector<TIndex> indices;
};

struct Case {
  std::string text;
  int launch_rank = 1;
  std::vector<TRule> rules;
};

Case generate(std::mt19937_64& rng) {
  Case c;
  Generator g(rng, 1);
  c.launch_rank = static_cast<int>(g.uniform(1, 3));
  Generator gen(rng, c.launch_rank);
  // Bind every kind on every axis (sometimes ignoring one), in a random order of kinds.
  std::vector<int> kinds = {0, 1, 2};
  std::shuffle(kinds.begin(), kinds.end(), rng);
  std::string bindings;
  for (int kind : kinds) {
    if (!bindings.empty()) bindings += ", ";
    bindings += kind == 0 ? "global [" : kind == 1 ? "block [" : "local [";
    for (int a = 0; a < c.launch_rank; ++a) {
      if (a) bindings += ", ";
      bindings += kVarNames[kind][a];
    }
    bindings += "]";
  }
  c.text = bindings + " => ";
  std::vector<int> arrays = {0, 1, 2};
  std::shuffle(arrays.begin(), arrays.end(), rng);
  const int rule_count = static_cast<int>(gen.uniform(1, 3));
  const char* modes[] = {"read", "write", "readwrite"};
  for (int r = 0; r < rule_count; ++r) {
    TRule rule;
    rule.param = arrays[r];
    rule.rank = rule.param + 1;
    if (r) c.text += ", ";
    c.text += std::string(modes[gen.uniform(0, 2)]) + " " + kParamNames[rule.param] + "[";
    for (int k = 0; k < rule.rank; ++k) {
      TIndex idx;
      const int64_t shape = gen.uniform(0, 99);
      std::string text;
      if (shape < 35) {  // affine expression, sometimes under one top-level division
        idx.lo = gen.expr(3, false);
        if (gen.chance(25)) idx.lo = node(TExpr::kDiv, 0, idx.lo, gen.divisor());
        idx.tight = true;
        text = print(*idx.lo);
      } else if (shape < 50) {  // divisions anywhere: a superset only
        idx.lo = gen.expr(3, true);
        text = print(*idx.lo);
      } else if (shape < 70) {  // lo:lo+w, the same thread part on both ends
        idx.slice = true;
        idx.lo = gen.expr(3, false);
        const int64_t w = gen.uniform(-1, 5);
        idx.hi = node(TExpr::kAdd, 0, idx.lo, node(TExpr::kLit, 0));
        idx.hi->b = w < 0 ? node(TExpr::kNeg, 0, node(TExpr::kLit, -w)) : node(TExpr::kLit, w);
        idx.tight = true;
        text = print(*idx.lo) + ":" + print(*idx.hi);
      } else if (shape < 85) {  // one bound omitted
        idx.slice = true;
        const bool keep_lo = gen.chance(50);
        (keep_lo ? idx.lo : idx.hi) = gen.expr(3, false);
        idx.tight = true;
        idx.uniform_emptiness = false;
        text = keep_lo ? print(*idx.lo) + ":" : ":" + print(*idx.hi);
      } else {  // independent bounds
        idx.slice = true;
        idx.lo = gen.expr(2, false);
        idx.hi = gen.expr(2, true);
        idx.uniform_emptiness = false;
        text = print(*idx.lo) + ":" + print(*idx.hi);
      }
      if (k) c.text += ", ";
      c.text += text;
      rule.indices.push_back(idx);
    }
    c.text += "]";
    c.rules.push_back(rule);
  }
  return c;
}

KernelSignature signature() {
  KernelSignature sig;
  sig.add_array("R1", DataType::kFloat32, 1)
      .add_array("R2", DataType::kFloat64, 2)
      .add_array("R3", DataType::kInt32, 3)
      .add_scalar("n", DataType::kInt64)
      .add_scalar("m", DataType::kInt32)
      .add_scalar("d", DataType::kInt64);
  return sig;
}

// Brute force over one rule: the bounding box of all accesses (not clamped) and the set of
// in-bounds elements touched (as a bitmap over the array).
struct BruteRule {
  bool any = false;
  int64_t lo[3], hi[3];  // inclusive bounds of all accesses
  std::vector<char> touched;
};

size_t linear(const Point& p, const Point& extent) {
  size_t i = 0;
  for (int a = 0; a < extent.rank(); ++a) i = i * static_cast<size_t>(extent[a]) + p[a];
  return i;
}

BruteRule brute(const TRule& rule, const ThreadBox& sb, const LaunchArguments& args) {
  BruteRule out;
  const Point& extent = args.extents[rule.param];
  out.touched.assign(static_cast<size_t>(extent.product()), 0);
  sb.threads.for_each_point([&](const Point& p) {
    Thread t{};
    for (int a = 0; a < sb.threads.rank(); ++a) {
      t.v[0][a] = p[a];
      t.v[1][a] = p[a] / sb.block_size[a];
      t.v[2][a] = p[a] % sb.block_size[a];
    }
    int64_t lo[3], hi[3];
    for (int k = 0; k < rule.rank; ++k) {
      const TIndex& idx = rule.indices[k];
      if (!idx.slice) {
        lo[k] = hi[k] = eval(*idx.lo, t, args.scalars);
      } else {
        lo[k] = idx.lo ? eval(*idx.lo, t, args.scalars) : 0;
        hi[k] = idx.hi ? eval(*idx.hi, t, args.scalars) : extent[k] - 1;
      }
      if (lo[k] > hi[k]) return;  // this thread touches nothing through this rule
    }
    for (int k = 0; k < rule.rank; ++k) {
      out.lo[k] = out.any ? std::min(out.lo[k], lo[k]) : lo[k];
      out.hi[k] = out.any ? std::max(out.hi[k], hi[k]) : hi[k];
    }
    out.any = true;
    Point clo = Point::filled(rule.rank, 0), chi = Point::filled(rule.rank, 0);
    for (int k = 0; k < rule.rank; ++k) {
      clo[k] = std::max<int64_t>(lo[k], 0);
      chi[k] = std::min<int64_t>(hi[k] + 1, extent[k]);
    }
    Rect(clo, chi).for_each_point([&](const Point& q) { out.touched[linear(q, extent)] = 1; });
  });
  return out;
}

Rect clamped_bounding_box(const BruteRule& b, int rank, const Point& extent) {
  if (!b.any) return Rect::empty_of_rank(rank);
  Point lo = Point::filled(rank, 0), hi = Point::filled(rank, 0);
  for (int k = 0; k < rank; ++k) {
    lo[k] = std::max<int64_t>(b.lo[k], 0);
    hi[k] = std::min<int64_t>(b.hi[k] + 1, extent[k]);
  }
  return Rect(lo, hi);
}

Rect touched_bounding_box(const std::vector<char>& touched, int rank, const Point& extent) {
  Rect box = Rect::empty_of_rank(rank);
  Rect::from_extent(extent).for_each_point([&](const Point& p) {
    if (touched[linear(p, extent)]) box = box.bounding_union(Rect(p, p + Point::filled(rank, 1)));
  });
  return box;
}

bool all_touched(const Rect& region, const std::vector<char>& touched, const Point& extent) {
  bool all = true;
  region.for_each_point([&](const Point& p) { all = all && touched[linear(p, extent)]; });
  return all;
}

TEST(RegionProperty, MatchesBruteForceEnumeration) {
  const int64_t cases = env_or("LIGHTNING_PROPERTY_CASES", 1500);
  const uint64_t seed = static_cast<uint64_t>(env_or("LIGHTNING_PROPERTY_SEED", 20220530));
  std::mt19937_64 rng(seed);
  const KernelSignature sig = signature();
  int64_t tight_checks = 0, exact_claims = 0, evaluations = 0;

  for (int64_t c = 0; c < cases; ++c) {
    const Case tc = generate(rng);
    SCOPED_TRACE("seed " + std::to_string(seed) + " case " + std::to_string(c) + ": " + tc.text);
    const BoundAnnotation bound =
        BoundAnnotation::bind(parse_annotation(tc.text), sig, tc.launch_rank);
    Generator g(rng, tc.launch_rank);
    for (int s = 0; s < 4; ++s) {
      LaunchArguments args;
      args.scalars = {0, 0, 0, g.uniform(-3, 6), g.uniform(-3, 6), g.uniform(1, 5)};
      args.extents = {Point{g.uniform(0, 60)},
                      Point{g.uniform(0, 16), g.uniform(0, 16)},
                      Point{g.uniform(0, 9), g.uniform(0, 9), g.uniform(0, 9)},
                      Point(),
                      Point(),
                      Point()};
      Point lo = Point::filled(tc.launch_rank, 0), hi = lo, block = lo;
      for (int a = 0; a < tc.launch_rank; ++a) {
        block[a] = g.uniform(1, 6);
        lo[a] = g.chance(30) ? block[a] * g.uniform(0, 4) : g.uniform(0, 24);
        hi[a] = lo[a] + g.uniform(1, tc.launch_rank == 3 ? 6 : 12);
      }
      const ThreadBox sb{Rect(lo, hi), block};
      SCOPED_TRACE("threads " + sb.threads.to_string() + " block " + block.to_string() +
                   " n=" + std::to_string(args.scalars[kParamN]) +
                   " m=" + std::to_string(args.scalars[kParamM]) +
                   " d=" + std::to_string(args.scalars[kParamD]));
      const auto per_rule = evaluate_rule_regions(bound, sb, args);
      const auto per_array = evaluate_regions(bound, sb, args);
      ++evaluations;
      ASSERT_EQ(per_rule.size(), tc.rules.size());
      ASSERT_EQ(per_array.size(), tc.rules.size());  // one rule per array here
      for (size_t r = 0; r < tc.rules.size(); ++r) {
        const TRule& rule = tc.rules[r];
        const Point& extent = args.extents[rule.param];
        const AccessRegion& got = per_rule[r];
        SCOPED_TRACE("rule " + std::to_string(r) + " region " + got.region.to_string() +
                     " extent " + extent.to_string());
        ASSERT_EQ(got.param, rule.param);
        EXPECT_EQ(per_array[r].region, got.region);
        EXPECT_EQ(per_array[r].exact, got.exact);
        const BruteRule b = brute(rule, sb, args);

        // Never smaller.
        const Rect touched = touched_bounding_box(b.touched, rule.rank, extent);
        ASSERT_TRUE(got.region.contains(touched)) << "touched " << touched.to_string();
        ASSERT_TRUE(Rect::from_extent(extent).contains(got.region));

        // Tight where promised.
        bool tight = true;
        for (const TIndex& idx : rule.indices)
          tight = tight && idx.tight && (idx.uniform_emptiness || rule.rank == 1);
        if (tight) {
          tight_checks += got.region.empty() ? 0 : 1;
          ASSERT_EQ(got.region, clamped_bounding_box(b, rule.rank, extent));
        }
        // Exact means every element is touched.
        if (got.exact) {
          exact_claims += got.region.empty() ? 0 : 1;
          ASSERT_TRUE(all_touched(got.region, b.touched, extent));
        }
      }
    }
  }
  RecordProperty("evaluations", std::to_string(evaluations));
  RecordProperty("tight_checks", std::to_string(tight_checks));
  RecordProperty("exact_claims", std::to_string(exact_claims));
  // The generator must exercise both the tight and the exact paths on non-empty regions, or
  // the test proves little.
  EXPECT_GT(tight_checks, evaluations / 4);
  EXPECT_GT(exact_claims, evaluations / 10);
}

}  // namespace
}  // namespace lightning::annotation
