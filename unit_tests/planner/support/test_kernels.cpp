#include "test_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace lightning::planner::testing {

namespace {

template <class T>
T from_double(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return 0;
    if (v >= static_cast<double>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

// The names of the parameters, per kind, for annotations and signatures.
std::string axis_list(int rank) {
  static const char* kNames[] = {"i", "j", "k"};
  std::string s;
  for (int a = 0; a < rank; ++a) s += (a ? ", " : "") + std::string(kNames[a]);
  return s;
}
std::string binding(int rank) {
  return rank == 1 ? "global i" : "global [" + axis_list(rank) + "]";
}

}  // namespace

double wrap_value(double v) {
  return std::fmod(v, static_cast<double>(kValueModulus));
}

double load_value(DataType t, const uint8_t* p) {
  return with_number_type(t, [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  });
}

void store_value(DataType t, uint8_t* p, double v) {
  with_number_type(t, [&](auto zero) {
    const auto x = from_double<decltype(zero)>(v);
    std::memcpy(p, &x, sizeof x);
    return 0;
  });
}

std::vector<uint8_t> value_bytes(DataType t, double v) {
  std::vector<uint8_t> b(size_of(t));
  store_value(t, b.data(), v);
  return b;
}

void fold_element(DataType t, ReduceOp op, uint8_t* dst, const uint8_t* src) {
  with_number_type(t, [&](auto zero) {
    using T = decltype(zero);
    T a, b;
    std::memcpy(&a, dst, sizeof a);
    std::memcpy(&b, src, sizeof b);
    T r = a;
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kCustom:
        r = static_cast<T>(a + b);
        break;
      case ReduceOp::kProd:
        r = static_cast<T>(a * b);
        break;
      case ReduceOp::kMin:
        r = std::min(a, b);
        break;
      case ReduceOp::kMax:
        r = std::max(a, b);
        break;
    }
    std::memcpy(dst, &r, sizeof r);
    return 0;
  });
}

std::vector<uint8_t> identity_bytes(DataType t, ReduceOp op) {
  return with_number_type(t, [&](auto zero) {
    using T = decltype(zero);
    T v{};
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kCustom:
        v = T(0);
        break;
      case ReduceOp::kProd:
        v = T(1);
        break;
      case ReduceOp::kMin:
        v = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                 : std::numeric_limits<T>::max();
        break;
      case ReduceOp::kMax:
        v = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                 : std::numeric_limits<T>::lowest();
        break;
    }
    std::vector<uint8_t> b(sizeof v);
    std::memcpy(b.data(), &v, sizeof v);
    return b;
  });
}

const char* name_of(KernelKind kind) {
  switch (kind) {
    case KernelKind::kStencil1D:
      return "stencil1d";
    case KernelKind::kStencil2D:
      return "stencil2d";
    case KernelKind::kCopy:
      return "copy";
    case KernelKind::kSaxpy:
      return "saxpy";
    case KernelKind::kShift:
      return "shift";
    case KernelKind::kMatmul:
      return "matmul";
    case KernelKind::kRowReduce:
      return "row_reduce";
    case KernelKind::kScalarSum:
      return "scalar_sum";
    case KernelKind::kStridedWrite:
      return "strided_write";
    case KernelKind::kPrefixSum:
      return "prefix_sum";
  }
  return "?";
}

int array_param_count(KernelKind kind) {
  switch (kind) {
    case KernelKind::kMatmul:
      return 3;
    case KernelKind::kScalarSum:
      return 1;
    default:
      return 2;
  }
}

const TestKernel& KernelRegistry::get(const KernelVariant& v) {
  if (static_cast<int>(v.types.size()) != array_param_count(v.kind))
    throw std::invalid_argument("KernelVariant: wrong number of types");
  std::string key = std::string(name_of(v.kind)) + "/r" + std::to_string(v.rank) + "/op" +
                    std::to_string(static_cast<int>(v.op)) + "/s" +
                    std::string(lightning::name_of(v.scalar_type));
  for (DataType t : v.types) key += "/" + std::string(lightning::name_of(t));
  if (auto it = by_key_.find(key); it != by_key_.end()) return *it->second;

  auto k = std::make_unique<TestKernel>();
  k->id = KernelId(by_id_.size());
  k->kind = v.kind;
  k->name = key;
  const auto& t = v.types;
  auto& sig = k->signature;
  switch (v.kind) {
    case KernelKind::kStencil1D:
      sig.add_array("in", t[0], 1).add_array("out", t[1], 1);
      k->annotation = "global i => read in[i-1:i+1], write out[i]";
      k->launch_rank = 1;
      k->body = [](const Point& p, KernelAccess& a) {
        const int64_t i = p[0];
        a.set(1, p, wrap_value(a.get(0, {i - 1}) + a.get(0, {i}) + a.get(0, {i + 1})));
      };
      break;
    case KernelKind::kStencil2D:
      sig.add_array("in", t[0], 2).add_array("out", t[1], 2);
      k->annotation = "global [i, j] => read in[i-1:i+1, j-1:j+1], write out[i, j]";
      k->launch_rank = 2;
      k->body = [](const Point& p, KernelAccess& a) {
        const int64_t i = p[0], j = p[1];
        a.set(1, p,
              wrap_value(a.get(0, {i - 1, j}) + a.get(0, {i + 1, j}) + a.get(0, {i, j}) +
                         a.get(0, {i, j - 1}) + a.get(0, {i, j + 1})));
      };
      break;
    case KernelKind::kCopy: {
      sig.add_array("a", t[0], v.rank).add_array("b", t[1], v.rank);
      const std::string idx = axis_list(v.rank);
      k->annotation = binding(v.rank) + " => read a[" + idx + "], overwrite b[" + idx + "]";
      k->launch_rank = v.rank;
      k->body = [](const Point& p, KernelAccess& a) {
        a.set(1, p, wrap_value(2 * wrap_value(a.get(0, p)) + 1));
      };
      break;
    }
    case KernelKind::kSaxpy: {
      sig.add_array("x", t[0], v.rank).add_array("y", t[1], v.rank);
      const std::string idx = axis_list(v.rank);
      k->annotation = binding(v.rank) + " => read x[" + idx + "], readwrite y[" + idx + "]";
      k->launch_rank = v.rank;
      k->body = [](const Point& p, KernelAccess& a) {
        a.set(1, p, wrap_value(a.get(1, p) + 3 * wrap_value(a.get(0, p))));
      };
      break;
    }
    case KernelKind::kShift:
      sig.add_array("a", t[0], 1).add_array("b", t[1], 1).add_scalar("k", DataType::kInt64);
      k->annotation = "global i => read a[i + k], write b[i]";
      k->launch_rank = 1;
      k->body = [](const Point& p, KernelAccess& a) {
        a.set(1, p, a.get(0, {p[0] + a.scalar(2)}));
      };
      break;
    case KernelKind::kMatmul:
      sig.add_array("A", t[0], 2).add_array("B", t[1], 2).add_array("C", t[2], 2);
      sig.add_scalar("p", DataType::kInt64);
      k->annotation = "global [i, j] => read A[i, :], read B[:, j], write C[i, j]";
      k->launch_rank = 2;
      k->body = [](const Point& p, KernelAccess& a) {
        const int64_t inner = a.scalar(3);
        double sum = 0;
        for (int64_t x = 0; x < inner; ++x)
          sum += wrap_value(a.get(0, {p[0], x})) * wrap_value(a.get(1, {x, p[1]}));
        a.set(2, p, wrap_value(sum));
      };
      break;
    case KernelKind::kRowReduce:
      sig.add_array("A", t[0], 2).add_array("s", t[1], 1);
      k->annotation =
          "global [i, j] => read A[i, j], reduce(" + std::string(name_of(v.op)) + ") s[i]";
      k->launch_rank = 2;
      k->body = [](const Point& p, KernelAccess& a) {
        a.reduce(1, {p[0]}, wrap_value(a.get(0, p)));
      };
      break;
    case KernelKind::kScalarSum: {
      sig.add_array("a", t[0], v.rank);
      k->annotation = binding(v.rank) + " => read a[" + axis_list(v.rank) + "]";
      k->launch_rank = v.rank;
      k->has_scalar_result = true;
      k->scalar_type = v.scalar_type;
      k->body = [](const Point& p, KernelAccess& a) { a.add_partial(wrap_value(a.get(0, p))); };
      break;
    }
    case KernelKind::kStridedWrite:
      sig.add_array("a", t[0], 1).add_array("b", t[1], 1);
      // `overwrite` where the pattern is not dense: the planner keeps the elements between.
      k->annotation = "global i => read a[i], overwrite b[2 * i]";
      k->launch_rank = 1;
      k->body = [](const Point& p, KernelAccess& a) {
        a.set(1, {2 * p[0]}, wrap_value(a.get(0, p) + 7));
      };
      break;
    case KernelKind::kPrefixSum:
      sig.add_array("a", t[0], 1).add_array("b", t[1], 1);
      k->annotation = "global i => read a[i], write b[i]";
      k->launch_rank = 1;
      k->scans = true;
      k->scalar_type = v.scalar_type;
      k->body = [](const Point& p, KernelAccess& a) {
        const double x = wrap_value(a.get(0, p));
        if (a.scan_final) a.set(1, p, wrap_value(a.scan_value));
        a.scan_value += x;
      };
      break;
  }
  k->reduce_ops.assign(sig.params.size(), ReduceOp::kSum);
  if (v.kind == KernelKind::kRowReduce) k->reduce_ops[1] = v.op;
  // Bind now: a test kernel whose annotation does not bind is a bug of this file.
  cache_->bind(k->annotation, k->signature, k->launch_rank);
  by_id_.push_back(k.get());
  return *by_key_.emplace(key, std::move(k)).first->second;
}

const annotation::BoundAnnotation& KernelRegistry::bound(const TestKernel& kernel) {
  return cache_->bind(kernel.annotation, kernel.signature, kernel.launch_rank);
}

const TestKernel* KernelRegistry::find(KernelId id) const {
  return id.valid() && id.value() < by_id_.size() ? by_id_[id.value()] : nullptr;
}

}  // namespace lightning::planner::testing
