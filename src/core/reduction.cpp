#include "core/reduction.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/error.hpp"

namespace lightning {

namespace {

template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void store(unsigned char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

template <class T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return a + b;
}
template <class T>
T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return a * b;
}
// IEEE 754-2019 minimum/maximum for floating point; the usual order for integers.
template <class T>
T minimum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    if (a == b) return std::signbit(a) ? a : b;
  }
  return b < a ? b : a;
}
template <class T>
T maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    if (a == b) return std::signbit(a) ? b : a;
  }
  return a < b ? b : a;
}

template <class T, class Op>
void join_run(unsigned char* dst, const unsigned char* src, size_t n, Op op) {
  for (size_t i = 0; i < n; ++i)
    store<T>(dst + i * sizeof(T), op(load<T>(dst + i * sizeof(T)), load<T>(src + i * sizeof(T))));
}

template <class T>
void join_typed(ReduceOp op, unsigned char* dst, const unsigned char* src, size_t n) {
  switch (op) {
    case ReduceOp::kSum:
      return join_run<T>(dst, src, n, [](T a, T b) { return wrapping_add(a, b); });
    case ReduceOp::kProd:
      return join_run<T>(dst, src, n, [](T a, T b) { return wrapping_mul(a, b); });
    case ReduceOp::kMin:
      return join_run<T>(dst, src, n, [](T a, T b) { return minimum(a, b); });
    case ReduceOp::kMax:
      return join_run<T>(dst, src, n, [](T a, T b) { return maximum(a, b); });
    case ReduceOp::kCustom:
      break;
  }
  throw Error(ErrorKind::kInternal, "a custom reduction has no element-wise join");
}

template <class T>
std::vector<uint8_t> identity_typed(ReduceOp op) {
  using L = std::numeric_limits<T>;
  T v{};
  switch (op) {
    case ReduceOp::kSum:
      v = T(0);
      break;
    case ReduceOp::kProd:
      v = T(1);
      break;
    case ReduceOp::kMin:
      v = L::has_infinity ? L::infinity() : L::max();
      break;
    case ReduceOp::kMax:
      v = L::has_infinity ? -L::infinity() : L::lowest();
      break;
    case ReduceOp::kCustom:
      throw Error(ErrorKind::kInternal, "a custom reduction has no built-in identity");
  }
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

}  // namespace

std::string_view name_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "+";
    case ReduceOp::kProd:
      return "*";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kCustom:
      return "reducer";
  }
  return "?";
}

Reduction Reduction::builtin(ReduceOp op, DataType type) {
  if (op == ReduceOp::kCustom)
    throw Error(ErrorKind::kInternal, "Reduction::builtin: kCustom is not a built-in operator");
  if (is_vector(type))
    throw Error(ErrorKind::kInvalidArgument, "a built-in reduction (" + std::string(name_of(op)) +
                                                 ") combines numbers, not " +
                                                 std::string(name_of(type)) +
                                                 " values: reduce with a functor's own init and "
                                                 "join");
  Reduction r;
  r.op = op;
  r.type = type;
  r.value_size = static_cast<uint32_t>(size_of(type));
  return r;
}

Reduction Reduction::custom(size_t value_size, void (*init)(const void*, void*),
                            void (*join)(const void*, void*, const void*)) {
  Reduction r;
  r.op = ReduceOp::kCustom;
  r.type = DataType::kUInt8;
  r.value_size = static_cast<uint32_t>(value_size);
  r.custom_init = init;
  r.custom_join = join;
  return r;
}

std::vector<uint8_t> Reduction::identity() const {
  return with_number_type(type, [&](auto t) { return identity_typed<decltype(t)>(op); });
}

void Reduction::init(void* value) const {
  if (is_custom()) {
    if (!custom_init)
      throw Error(ErrorKind::kInternal, "a custom reduction without its init function");
    custom_init(functor.get(), value);
    return;
  }
  const std::vector<uint8_t> id = identity();
  std::memcpy(value, id.data(), id.size());
}

void Reduction::join(void* dst, const void* src) const {
  if (is_custom()) {
    if (!custom_join)
      throw Error(ErrorKind::kInternal, "a custom reduction without its join function");
    custom_join(functor.get(), dst, src);
    return;
  }
  join_n(dst, src, 1);
}

void Reduction::join_n(void* dst, const void* src, size_t count) const {
  with_number_type(type, [&](auto t) {
    join_typed<decltype(t)>(op, static_cast<unsigned char*>(dst),
                            static_cast<const unsigned char*>(src), count);
  });
}

std::string Reduction::key() const {
  if (is_custom()) {
    if (reducer == 0) return "reducer/" + std::to_string(value_size);
    char id[17];
    std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(reducer));
    return "reducer:" + std::string(id) + "/" + std::to_string(value_size);
  }
  return std::string(name_of(op)) + "/" + std::string(name_of(type));
}

}  // namespace lightning
