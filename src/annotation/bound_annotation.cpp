#include "annotation/bound_annotation.hpp"

#include <algorithm>

#include <cstdlib>
#include <optional>

#include "annotation/checked_int.hpp"
#include "core/error.hpp"
#include "core/point.hpp"

namespace lightning::annotation {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += names[i];
  }
  return out;
}

std::string binding_text(const Binding& b) {
  std::string out(name_of(b.kind));
  out += b.bracketed ? " [" : " ";
  for (size_t i = 0; i < b.names.size(); ++i) {
    if (i) out += ", ";
    out += b.names[i].name;
  }
  if (b.bracketed) out += ']';
  return out;
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

// Resolves names, checks the rules of the language and lowers expressions. A class (friend of
// BoundAnnotation) so that the checks share the annotation, signature and output.
class Binder {
 public:
  Binder(const Annotation& ast, const KernelSignature& sig, int launch_rank, LaunchKind kind)
      : ast_(ast), sig_(sig) {
    out_.text_ = ast.text;
    out_.canonical_ = ast.to_string();
    out_.signature_ = sig;
    out_.launch_rank_ = launch_rank;
    out_.launch_kind_ = kind;
  }

  BoundAnnotation run() {
    check_signature();
    bind_variables();
    for (const Rule& rule : ast_.rules) bind_rule(rule);
    if (!sig_.arrays_shared) warn_unmentioned();
    for (const LoweredExpr& e : out_.exprs_)
      out_.uses_blocks_ =
          out_.uses_blocks_ || e.op == LoweredOp::kBlock || e.op == LoweredOp::kLocal;
    return std::move(out_);
  }

 private:
  struct Variable {
    std::string name;
    LoweredOp op;
    int axis;
  };

  [[noreturn]] void fail(size_t offset, const std::string& message) const {
    throw_annotation_error(ast_.text, offset, message);
  }

  void check_signature() const {
    const int rank = out_.launch_rank_;
    if (rank < 1 || rank > kMaxRank)
      throw Error(ErrorKind::kInvalidArgument, "launch rank " + std::to_string(rank) +
                                                   " is outside 1-" + std::to_string(kMaxRank) +
                                                   " (annotation '" + ast_.text + "')");
    for (size_t i = 0; i < sig_.params.size(); ++i) {
      const KernelParam& p = sig_.params[i];
      if (p.is_array && (p.rank < 0 || p.rank > kMaxRank))
        throw Error(ErrorKind::kInvalidArgument, "kernel parameter '" + p.name + "' has rank " +
                                                     std::to_string(p.rank) + ", outside 0-" +
                                                     std::to_string(kMaxRank));
      if (sig_.find(p.name) != static_cast<int>(i))
        throw Error(ErrorKind::kInvalidArgument,
                    "kernel parameter name '" + p.name + "' is used twice");
    }
  }

  const NamedConstant* find_constant(std::string_view name) const {
    for (const NamedConstant& c : sig_.constants)
      if (c.name == name) return &c;
    return nullptr;
  }

  void bind_variables() {
    bool seen_kind[3] = {false, false, false};
    for (const Binding& b : ast_.bindings) {
      const int kind = static_cast<int>(b.kind);
      if (seen_kind[kind]) fail(b.offset, "'" + std::string(name_of(b.kind)) + "' is bound twice");
      seen_kind[kind] = true;
      if (b.kind == BindingKind::kGlobal && out_.launch_kind_ == LaunchKind::kTeams)
        fail(b.offset,
             "a team launch (TeamPolicy) has no global thread index: bind 'block' to the league "
             "rank and 'local' to the team rank, e.g. 'block b, local t =>'");
      if (static_cast<int>(b.names.size()) > out_.launch_rank_)
        fail(b.names[out_.launch_rank_].offset,
             "'" + binding_text(b) + "' binds " + plural(b.names.size(), "axis", "axes") +
                 " but the launch has rank " + std::to_string(out_.launch_rank_));
      const LoweredOp op = b.kind == BindingKind::kGlobal  ? LoweredOp::kGlobal
                           : b.kind == BindingKind::kBlock ? LoweredOp::kBlock
                                                           : LoweredOp::kLocal;
      for (size_t axis = 0; axis < b.names.size(); ++axis) {
        const BoundName& n = b.names[axis];
        if (n.name == "_") continue;
        for (const Variable& v : vars_)
          if (v.name == n.name) fail(n.offset, "'" + n.name + "' is bound twice");
        if (sig_.find(n.name) >= 0)
          fail(n.offset, "'" + n.name +
                             "' is bound to a thread index but also names a kernel "
                             "parameter; rename one of them");
        if (find_constant(n.name))
          fail(n.offset, "'" + n.name + "' is bound to a thread index but also names a constant");
        vars_.push_back({n.name, op, static_cast<int>(axis)});
      }
    }
  }

  std::string known_arrays() const {
    std::vector<std::string> names;
    for (const KernelParam& p : sig_.params)
      if (p.is_array) names.push_back(p.name);
    return names.empty() ? "kernel has no arrays" : "kernel has: " + join(names);
  }

  std::string known_names() const {
    std::vector<std::string> parts;
    std::vector<std::string> names;
    for (const Variable& v : vars_) names.push_back(v.name);
    if (!names.empty()) parts.push_back("bound: " + join(names));
    names.clear();
    for (const KernelParam& p : sig_.params)
      if (!p.is_array && is_integral(p.type)) names.push_back(p.name);
    for (const NamedConstant& c : sig_.constants) names.push_back(c.name);
    if (!names.empty()) parts.push_back("integer parameters and constants: " + join(names));
    if (parts.empty()) return "nothing is bound and the kernel has no integer parameters";
    std::string out = parts[0];
    if (parts.size() > 1) out += "; " + parts[1];
    return out;
  }

  int32_t emit(LoweredExpr e) {
    out_.exprs_.push_back(e);
    return static_cast<int32_t>(out_.exprs_.size() - 1);
  }

  const LoweredExpr& node(int32_t e) const { return out_.exprs_[e]; }
  bool is_const(int32_t e) const { return node(e).op == LoweredOp::kConstant; }

  int32_t lower_name(const Expr& x) {
    LoweredExpr e;
    e.offset = x.offset;
    if (x.name == "_") fail(x.offset, "'_' ignores an axis in a binding; it has no value here");
    for (const Variable& v : vars_) {
      if (v.name == x.name) {
        e.op = v.op;
        e.value = v.axis;
        e.varying = true;
        return emit(e);
      }
    }
    const int p = sig_.find(x.name);
    if (p >= 0) {
      const KernelParam& param = sig_.params[p];
      if (param.is_array)
        fail(x.offset, "'" + x.name + "' is an array; an index cannot depend on array contents");
      if (!is_integral(param.type))
        fail(x.offset, "'" + x.name + "' is a " + std::string(name_of(param.type)) +
                           " parameter; indices take integer parameters only");
      e.op = LoweredOp::kScalar;
      e.value = p;
      return emit(e);
    }
    if (const NamedConstant* c = find_constant(x.name)) {
      e.op = LoweredOp::kConstant;
      e.value = c->value;
      return emit(e);
    }
    fail(x.offset, "unknown name '" + x.name + "' (" + known_names() + ")");
  }

  // Lowers AST node `index` of the annotation; folds operations on constants.
  int32_t lower(int32_t index) {
    const Expr& x = ast_.exprs[index];
    LoweredExpr e;
    e.offset = x.offset;
    switch (x.kind) {
      case ExprKind::kInteger:
        e.value = x.value;
        return emit(e);
      case ExprKind::kName:
        return lower_name(x);
      case ExprKind::kNeg: {
        const int32_t a = lower(x.lhs);
        if (is_const(a)) {
          e.value = fold(x.offset, [&] { return checked_neg(node(a).value); });
          return emit(e);
        }
        e.op = LoweredOp::kNeg;
        e.lhs = a;
        e.varying = node(a).varying;
        return emit(e);
      }
      default:
        break;
    }
    const int32_t a = lower(x.lhs);
    const int32_t b = lower(x.rhs);
    e.lhs = a;
    e.rhs = b;
    e.varying = node(a).varying || node(b).varying;
    const bool both_const = is_const(a) && is_const(b);
    const int64_t va = node(a).value, vb = node(b).value;
    switch (x.kind) {
      case ExprKind::kAdd:
        e.op = LoweredOp::kAdd;
        if (both_const) e.value = fold(x.offset, [&] { return checked_add(va, vb); });
        break;
      case ExprKind::kSub:
        e.op = LoweredOp::kSub;
        if (both_const) e.value = fold(x.offset, [&] { return checked_sub(va, vb); });
        break;
      case ExprKind::kMul:
        e.op = LoweredOp::kMul;
        if (node(a).varying && node(b).varying)
          fail(x.offset, "index is not affine: '" + ast_.expr_to_string(index) +
                             "' multiplies two terms that depend on thread indices");
        if (both_const) e.value = fold(x.offset, [&] { return checked_mul(va, vb); });
        break;
      default:  // kDiv
        e.op = LoweredOp::kDiv;
        if (node(b).varying)
          fail(x.offset, "index is not affine: the divisor '" + ast_.expr_to_string(x.rhs) +
                             "' depends on thread indices; divide by constants only");
        if (is_const(b) && vb <= 0)
          fail(x.offset, "division by " + std::to_string(vb) + "; divisors must be positive");
        if (both_const) e.value = floor_div(va, vb);
        break;
    }
    if (both_const) {
      e.op = LoweredOp::kConstant;
      e.lhs = e.rhs = -1;
    }
    return emit(e);
  }

  template <class F>
  int64_t fold(size_t offset, F f) const {
    try {
      return f();
    } catch (const IndexOverflow&) {
      fail(offset, "constant arithmetic overflows 64-bit integers");
    }
  }

  // Coefficients of a lowered expression over the nine variables (kind x axis) when it is a
  // plain linear form with literal coefficients; nullopt when it involves parameters or
  // division (then only evaluation can tell whether it is dense).
  struct Linear {
    int64_t coef[3][kMaxRank] = {};
  };
  std::optional<Linear> linear_terms(int32_t e) const {
    const LoweredExpr& n = node(e);
    Linear l;
    try {
      switch (n.op) {
        case LoweredOp::kConstant:
          return l;
        case LoweredOp::kGlobal:
        case LoweredOp::kBlock:
        case LoweredOp::kLocal:
          l.coef[static_cast<int>(n.op) - static_cast<int>(LoweredOp::kGlobal)][n.value] = 1;
          return l;
        case LoweredOp::kNeg:
        case LoweredOp::kAdd:
        case LoweredOp::kSub: {
          auto a = linear_terms(n.lhs);
          if (!a) return std::nullopt;
          if (n.op == LoweredOp::kNeg) return scaled(*a, -1);
          auto b = linear_terms(n.rhs);
          if (!b) return std::nullopt;
          if (n.op == LoweredOp::kSub) b = scaled(*b, -1);
          for (int k = 0; k < 3; ++k)
            for (int ax = 0; ax < kMaxRank; ++ax)
              l.coef[k][ax] = checked_add(a->coef[k][ax], b->coef[k][ax]);
          return l;
        }
        case LoweredOp::kMul: {
          const bool left_const = is_const(n.lhs);
          if (!left_const && !is_const(n.rhs)) return std::nullopt;
          auto v = linear_terms(left_const ? n.rhs : n.lhs);
          if (!v) return std::nullopt;
          return scaled(*v, node(left_const ? n.lhs : n.rhs).value);
        }
        default:
          return std::nullopt;
      }
    } catch (const IndexOverflow&) {
      return std::nullopt;
    }
  }
  static Linear scaled(Linear l, int64_t c) {
    for (auto& kind : l.coef)
      for (int64_t& v : kind) v = checked_mul(v, c);
    return l;
  }

  // A reduce target must be dense: the planner keeps one partial result per element of the
  // region, initialised to the operator's identity, and folds all of them. An index driven
  // by one thread variable with a step of 2 or more (`s[2 * i]`) can never be dense, so it
  // is rejected; other patterns are judged per superblock (AccessRegion::exact).
  void check_reduce_density(const Rule& rule, const Index& idx, int32_t lowered) const {
    const auto lin = linear_terms(lowered);
    if (!lin) return;
    int used = 0;
    int64_t step = 0;
    for (const auto& kind : lin->coef)
      for (int64_t c : kind)
        if (c != 0) {
          ++used;
          step = c;
        }
    if (used == 1 && std::llabs(step) >= 2)
      fail(idx.offset, "reduce pattern is not dense: '" + ast_.expr_to_string(idx.expr) +
                           "' steps by " + std::to_string(std::llabs(step)) +
                           " from one thread to the next, so '" + rule.array +
                           "' would have elements that no thread reduces into");
  }

  void bind_rule(const Rule& rule) {
    const int p = sig_.find(rule.array);
    if (p < 0)
      fail(rule.array_offset, "unknown array '" + rule.array + "' (" + known_arrays() + ")");
    const KernelParam& param = sig_.params[p];
    if (!param.is_array)
      fail(rule.array_offset,
           "'" + rule.array + "' is a scalar parameter, not an array (" + known_arrays() + ")");
    const size_t given = rule.indices.size();
    if (given != static_cast<size_t>(param.rank)) {
      std::string hint;
      if (param.rank == 0) {
        hint = "; write '" + rule.array + "' without brackets";
      } else if (!rule.has_brackets) {
        hint = "; write '" + rule.array + "[:";
        for (int a = 1; a < param.rank; ++a) hint += ", :";
        hint += "]' for the whole array";
      }
      fail(rule.has_brackets ? rule.indices.front().offset : rule.array_offset,
           "'" + rule.array + "' has rank " + std::to_string(param.rank) + " but the rule gives " +
               plural(given, "index", "indices") + hint);
    }

    // At most one rule that writes; a reduce must be the array's only rule.
    for (const BoundArray& arr : out_.arrays_) {
      if (arr.param != p) continue;
      for (uint32_t r : arr.rules) {
        const BoundRule& earlier = out_.rules_[r];
        const bool earlier_writes = earlier.mode != AccessMode::kRead;
        const bool writes = rule.mode != AccessMode::kRead;
        const std::string where = " (at " + location_of(ast_.text, earlier.offset) + ")";
        if (earlier.mode == AccessMode::kReduce || rule.mode == AccessMode::kReduce)
          fail(rule.offset, "'" + rule.array + "' already has a " +
                                std::string(name_of(earlier.mode)) + " rule" + where +
                                "; a reduce rule must be the only rule of its array");
        if (earlier_writes && writes)
          fail(rule.offset,
               "'" + rule.array + "' already has a " + std::string(name_of(earlier.mode)) +
                   " rule" + where +
                   "; an array takes at most one write, overwrite, readwrite or reduce rule");
      }
    }

    BoundRule bound;
    bound.param = p;
    bound.mode = rule.mode;
    bound.op = rule.op;
    bound.rank = param.rank;
    bound.first_index = static_cast<uint32_t>(out_.indices_.size());
    bound.offset = rule.offset;
    for (const Index& idx : rule.indices) {
      BoundIndex b;
      b.is_slice = idx.is_slice;
      if (idx.is_slice) {
        if (idx.lo >= 0) b.lo = lower(idx.lo);
        if (idx.hi >= 0) b.hi = lower(idx.hi);
      } else {
        b.expr = lower(idx.expr);
        if (rule.mode == AccessMode::kReduce) check_reduce_density(rule, idx, b.expr);
      }
      out_.indices_.push_back(b);
    }
    if (param.axes_reversed)  // storage order: the last index addresses the first axis
      std::reverse(out_.indices_.begin() + bound.first_index, out_.indices_.end());
    const uint32_t rule_id = static_cast<uint32_t>(out_.rules_.size());
    out_.rules_.push_back(bound);

    for (BoundArray& arr : out_.arrays_) {
      if (arr.param != p) continue;
      arr.rules.push_back(rule_id);
      // Several rules: reads only stay reads; anything with a write becomes readwrite.
      if (arr.mode != AccessMode::kRead || rule.mode != AccessMode::kRead)
        arr.mode = AccessMode::kReadWrite;
      return;
    }
    BoundArray arr;
    arr.param = p;
    arr.mode = rule.mode;
    arr.op = rule.op;
    arr.rank = param.rank;
    arr.rules.push_back(rule_id);
    out_.arrays_.push_back(std::move(arr));
  }

  void warn_unmentioned() {
    for (size_t p = 0; p < sig_.params.size(); ++p) {
      if (!sig_.params[p].is_array) continue;
      bool mentioned = false;
      for (const BoundArray& arr : out_.arrays_) mentioned |= arr.param == static_cast<int>(p);
      if (!mentioned)
        out_.warnings_.push_back(
            {Severity::kWarning, ast_.text.size(),
             "no rule mentions array '" + sig_.params[p].name +
                 "'; the kernel must not access it (its data is not moved for this kernel)"});
    }
  }

  const Annotation& ast_;
  const KernelSignature& sig_;
  std::vector<Variable> vars_;
  BoundAnnotation out_;
};

BoundAnnotation BoundAnnotation::bind(const Annotation& ast, const KernelSignature& signature,
                                      int launch_rank, LaunchKind kind) {
  return Binder(ast, signature, launch_rank, kind).run();
}

}  // namespace lightning::annotation
