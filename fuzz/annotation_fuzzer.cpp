// libFuzzer target: parse + validate + evaluate annotations, and check evaluated regions
// against a brute-force enumeration of every thread's accesses.
//
// Input: annotation text, optionally followed by a NUL byte and configuration bytes (launch
// rank, superblock, block size, scalar values, extents). Seeds are plain annotations.
//
// Properties checked (a violation aborts, which libFuzzer reports as a crash):
//  - only Error(kAnnotation) escapes parse/bind/evaluate for any text;
//  - the canonical text parses back to itself;
//  - every region lies inside its array, the per-array region holds its rules' regions;
//  - every in-bounds element a thread touches lies inside its rule's region;
//  - a region flagged exact is touched everywhere.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "annotation/parser.hpp"
#include "annotation/region_evaluator.hpp"
#include "core/error.hpp"

namespace la = lightning::annotation;
using lightning::DataType;
using lightning::Error;
using lightning::ErrorKind;
using lightning::Point;
using lightning::Rect;

namespace {

[[noreturn]] void fail(const std::string& what, std::string_view text) {
  std::fprintf(stderr, "annotation_fuzzer: %s\n  annotation: %.*s\n", what.c_str(),
               static_cast<int>(text.size()), text.data());
  std::abort();
}

const la::KernelSignature& signature() {
  static const la::KernelSignature sig = [] {
    la::KernelSignature s;
    s.add_array("A", DataType::kFloat32, 1)
        .add_array("B", DataType::kFloat64, 2)
        .add_array("C", DataType::kInt32, 3)
        .add_array("s", DataType::kFloat64, 0)
        .add_scalar("n", DataType::kInt64)
        .add_scalar("m", DataType::kInt32)
        .add_scalar("d", DataType::kInt64)
        .add_scalar("alpha", DataType::kFloat32)
        .add_constant("K", 4);
    return s;
  }();
  return sig;
}

// Reads configuration bytes, with fixed defaults once they run out.
class Config {
 public:
  Config(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte(uint8_t fallback) { return pos_ < size_ ? data_[pos_++] : fallback; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A thread's values of the bound variables, looked up by name.
struct Thread {
  int64_t v[3][3];  // [global, block, local][axis]
};

// Evaluates an AST expression for one thread, independently of the module's lowering.
// Returns false on overflow or a non-positive divisor (the module reports those itself).
bool eval(const la::Annotation& a, int32_t e, const Thread& t, const la::LaunchArguments& args,
          int64_t* out) {
  const la::Expr& x = a.exprs[e];
  int64_t l = 0, r = 0;
  switch (x.kind) {
    case la::ExprKind::kInteger:
      *out = x.value;
      return true;
    case la::ExprKind::kName: {
      for (const la::Binding& b : a.bindings)
        for (size_t axis = 0; axis < b.names.size(); ++axis)
          if (b.names[axis].name == x.name) {
            *out = t.v[static_cast<int>(b.kind)][axis];
            return true;
          }
      const int p = signature().find(x.name);
      if (p >= 0) {
        *out = args.scalars[p];
        return true;
      }
      for (const la::NamedConstant& c : signature().constants)
        if (c.name == x.name) {
          *out = c.value;
          return true;
        }
      return false;
    }
    case la::ExprKind::kNeg:
      return eval(a, x.lhs, t, args, &l) && !__builtin_sub_overflow(int64_t{0}, l, out);
    default:
      break;
  }
  if (!eval(a, x.lhs, t, args, &l) || !eval(a, x.rhs, t, args, &r)) return false;
  switch (x.kind) {
    case la::ExprKind::kAdd:
      return !__builtin_add_overflow(l, r, out);
    case la::ExprKind::kSub:
      return !__builtin_sub_overflow(l, r, out);
    case la::ExprKind::kMul:
      return !__builtin_mul_overflow(l, r, out);
    default:
      if (r <= 0) return false;
      *out = l / r - ((l % r != 0 && l < 0) ? 1 : 0);
      return true;
  }
}

size_t linear(const Point& p, const Point& extent) {
  size_t i = 0;
  for (int k = 0; k < extent.rank(); ++k) i = i * static_cast<size_t>(extent[k]) + p[k];
  return i;
}

// Brute force over every thread: checks soundness and exactness of the rules' regions.
void check_brute_force(const la::Annotation& ast, const la::BoundAnnotation& bound,
                       const la::ThreadBox& sb, const la::LaunchArguments& args,
                       const std::vector<la::AccessRegion>& rules) {
  for (size_t r = 0; r < ast.rules.size(); ++r) {
    const la::Rule& rule = ast.rules[r];
    const la::AccessRegion& got = rules[r];
    const Point& extent = args.extents[got.param];
    const int rank = bound.rules()[r].rank;
    std::vector<char> touched(static_cast<size_t>(Rect::from_extent(extent).volume()), 0);
    bool evaluable = true;
    sb.threads.for_each_point([&](const Point& p) {
      if (!evaluable) return;
      Thread t{};
      for (int k = 0; k < sb.threads.rank(); ++k) {
        t.v[0][k] = p[k];
        t.v[1][k] = p[k] / sb.block_size[k];
        t.v[2][k] = p[k] % sb.block_size[k];
      }
      Point lo = Point::filled(rank, 0), hi = Point::filled(rank, 0);
      for (int k = 0; k < rank; ++k) {
        const la::Index& idx = rule.indices[k];
        int64_t first = 0, last = extent[k] - 1;
        if (!idx.is_slice) {
          evaluable = eval(ast, idx.expr, t, args, &first);
          last = first;
        } else {
          if (idx.lo >= 0) evaluable = eval(ast, idx.lo, t, args, &first);
          if (evaluable && idx.hi >= 0) evaluable = eval(ast, idx.hi, t, args, &last);
        }
        if (!evaluable) return;
        if (first > last) return;  // nothing through this rule
        lo[k] = first < 0 ? 0 : first;
        hi[k] = last >= extent[k] ? extent[k] : last + 1;
      }
      Rect(lo, hi).for_each_point([&](const Point& q) {
        if (!got.region.contains(q))
          fail("element " + q.to_string() + " touched by thread " + p.to_string() +
                   " lies outside region " + got.region.to_string() + " of rule " +
                   std::to_string(r) + " (threads " + sb.threads.to_string() + ")",
               ast.text);
        touched[linear(q, extent)] = 1;
      });
    });
    if (!evaluable || !got.exact) continue;
    got.region.for_each_point([&](const Point& q) {
      if (!touched[linear(q, extent)])
        fail("region " + got.region.to_string() + " of rule " + std::to_string(r) +
                 " is flagged exact but " + q.to_string() + " is not touched (threads " +
                 sb.threads.to_string() + ")",
             ast.text);
    });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t text_size = 0;
  while (text_size < size && data[text_size] != 0) ++text_size;
  const std::string_view text(reinterpret_cast<const char*>(data), text_size);
  Config cfg(data + text_size + (text_size < size ? 1 : 0),
             text_size < size ? size - text_size - 1 : 0);

  la::Annotation ast;
  try {
    ast = la::parse_annotation(text);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kAnnotation) fail("parse threw a non-annotation error", text);
    return 0;
  }
  const std::string canonical = ast.to_string();
  try {
    if (la::parse_annotation(canonical).to_string() != canonical)
      fail("canonical text does not print back to itself: " + canonical, text);
  } catch (const Error& e) {
    fail("canonical text does not parse: " + canonical + "\n" + e.what(), text);
  }

  const int launch_rank = 1 + cfg.byte(2) % 3;
  la::BoundAnnotation bound;
  try {
    bound = la::BoundAnnotation::bind(ast, signature(), launch_rank);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kAnnotation) fail("bind threw a non-annotation error", text);
    return 0;
  }

  la::LaunchArguments args;
  const size_t nparams = signature().params.size();
  args.scalars.assign(nparams, 0);
  args.extents.assign(nparams, Point());
  for (size_t p = 0; p < nparams; ++p) {
    const la::KernelParam& param = signature().params[p];
    if (param.is_array) {
      Point e = Point::filled(param.rank, 0);
      for (int k = 0; k < param.rank; ++k) e[k] = cfg.byte(static_cast<uint8_t>(7 + 3 * k)) % 13;
      args.extents[p] = e;
    } else {
      args.scalars[p] = static_cast<int8_t>(cfg.byte(static_cast<uint8_t>(3 + p)));
    }
  }
  Point lo = Point::filled(launch_rank, 0), hi = lo, block = lo;
  for (int k = 0; k < launch_rank; ++k) {
    block[k] = 1 + cfg.byte(4) % 8;
    lo[k] = cfg.byte(static_cast<uint8_t>(5 + k)) % 40;
    hi[k] = lo[k] + 1 + cfg.byte(6) % 8;
  }
  const la::ThreadBox sb{Rect(lo, hi), block};

  std::vector<la::AccessRegion> per_array, per_rule;
  try {
    per_array = la::evaluate_regions(bound, sb, args);
    per_rule = la::evaluate_rule_regions(bound, sb, args);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kAnnotation) fail(std::string("evaluate threw ") + e.what(), text);
    return 0;
  }
  for (size_t a = 0; a < per_array.size(); ++a) {
    const la::AccessRegion& region = per_array[a];
    if (!Rect::from_extent(args.extents[region.param]).contains(region.region))
      fail("region " + region.region.to_string() + " leaves its array", text);
    for (uint32_t r : bound.arrays()[a].rules)
      if (!region.region.contains(per_rule[r].region))
        fail("array region does not hold the region of rule " + std::to_string(r), text);
  }
  check_brute_force(ast, bound, sb, args, per_rule);
  return 0;
}
