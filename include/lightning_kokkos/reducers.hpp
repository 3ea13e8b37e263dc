// Kokkos' reducer classes on lightning::Distributed: Sum, Prod, Min and Max become built-in
// operators on numbers; the others (LAnd, LOr, BAnd, BOr, MinLoc, MaxLoc, MinMax, MinMaxLoc,
// and Kokkos 4's MinFirstLoc and MaxFirstLoc) registered reducers, which fold with the Kokkos
// class's own init and join on host devices and with their twins of device/kokkos_core.hpp in
// GPU code; several of them in one parallel_reduce are one registered reducer of the parts.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "lightning_kokkos/internal/core/data_type.hpp"
#include "lightning_kokkos/internal/core/reduction.hpp"
#include "lightning_kokkos/internal/kernel/reducer_registry.hpp"

namespace lightning::detail {

/// How a Kokkos reducer combines values: + * min max, on arithmetic values.
template <class Reducer>
struct ReducerFold {
  static constexpr bool known = false;
};
template <class T, class S>
struct ReducerFold<Kokkos::Sum<T, S>> {
  static constexpr bool known = true;
  static constexpr ReduceOp op = ReduceOp::kSum;
  static constexpr const char* name = "Sum";
};
template <class T, class S>
struct ReducerFold<Kokkos::Prod<T, S>> {
  static constexpr bool known = true;
  static constexpr ReduceOp op = ReduceOp::kProd;
  static constexpr const char* name = "Prod";
};
template <class T, class S>
struct ReducerFold<Kokkos::Min<T, S>> {
  static constexpr bool known = true;
  static constexpr ReduceOp op = ReduceOp::kMin;
  static constexpr const char* name = "Min";
};
template <class T, class S>
struct ReducerFold<Kokkos::Max<T, S>> {
  static constexpr bool known = true;
  static constexpr ReduceOp op = ReduceOp::kMax;
  static constexpr const char* name = "Max";
};

/// The NVRTC spelling of arithmetic type T.
template <class T>
std::string device_type_name() {
  static_assert(std::is_arithmetic_v<T>, "Kokkos reducers on lightning fold numbers");
  return std::string(name_of(data_type_of<std::remove_const_t<T>>()));
}

/// The other Kokkos reducers: their GPU spelling (known: one of them).
template <class Reducer>
struct ReducerSpelling {
  static constexpr bool known = false;
};
#define LIGHTNING_DETAIL_SCALAR_REDUCER(Name)                                               \
  template <class T, class S>                                                               \
  struct ReducerSpelling<Kokkos::Name<T, S>> {                                              \
    static constexpr bool known = std::is_arithmetic_v<T>;                                  \
    static std::string get() { return "Kokkos::" #Name "<" + device_type_name<T>() + ">"; } \
  };
#define LIGHTNING_DETAIL_LOC_REDUCER(Name)                                                      \
  template <class T, class I, class S>                                                          \
  struct ReducerSpelling<Kokkos::Name<T, I, S>> {                                               \
    static constexpr bool known = std::is_arithmetic_v<T> && std::is_integral_v<I>;             \
    static std::string get() {                                                                  \
      return "Kokkos::" #Name "<" + device_type_name<T>() + ", " + device_type_name<I>() + ">"; \
    }                                                                                           \
  };
LIGHTNING_DETAIL_SCALAR_REDUCER(LAnd)
LIGHTNING_DETAIL_SCALAR_REDUCER(LOr)
LIGHTNING_DETAIL_SCALAR_REDUCER(BAnd)
LIGHTNING_DETAIL_SCALAR_REDUCER(BOr)
LIGHTNING_DETAIL_SCALAR_REDUCER(MinMax)
LIGHTNING_DETAIL_LOC_REDUCER(MinLoc)
LIGHTNING_DETAIL_LOC_REDUCER(MaxLoc)
LIGHTNING_DETAIL_LOC_REDUCER(MinMaxLoc)
#if KOKKOS_VERSION >= 40000
LIGHTNING_DETAIL_LOC_REDUCER(MinFirstLoc)
LIGHTNING_DETAIL_LOC_REDUCER(MaxFirstLoc)
#endif
#undef LIGHTNING_DETAIL_SCALAR_REDUCER
#undef LIGHTNING_DETAIL_LOC_REDUCER

/// Kokkos reducer R as a registered reducer: init and join through an R over a scratch value
/// (Kokkos' reducers hold where their result goes; their init and join do not use it).
template <class R>
struct RegisteredReducer {
  using Value = typename R::value_type;
  static void init_value(Value& v) { R(v).init(v); }
  static void join_value(Value& dst, const Value& src) {
    Value scratch{};
    R(scratch).join(dst, src);
  }
  static void init(const void*, void* value) {
    Value v{};
    init_value(v);
    std::memcpy(value, static_cast<const void*>(&v), sizeof v);
  }
  static void join(const void*, void* dst, const void* src) {
    Value d{}, s{};
    std::memcpy(static_cast<void*>(&d), dst, sizeof d);
    std::memcpy(static_cast<void*>(&s), src, sizeof s);
    join_value(d, s);
    std::memcpy(dst, static_cast<const void*>(&d), sizeof d);
  }
  static uint64_t make() {
    kernel::ReducerInfo info;
    info.device_type = ReducerSpelling<R>::get();
    info.name = info.device_type;
    info.value_size = static_cast<uint32_t>(sizeof(Value));
    info.init = &init;
    info.join = &join;
    return kernel::ReducerRegistry::add(std::move(info));
  }
  /// Registered at static initialisation, so that every rank has it.
  static inline const uint64_t id = make();
};

/// The name of one of the reducers lightning takes: "Kokkos::Sum<double>".
template <class R>
std::string reducer_name() {
  if constexpr (ReducerSpelling<R>::known)
    return ReducerSpelling<R>::get();
  else
    return "Kokkos::" + std::string(ReducerFold<R>::name) + "<" +
           device_type_name<typename R::value_type>() + ">";
}

/// Whether Reducer is several reducers of one parallel_reduce (Kokkos' CombinedReducer) and
/// each is one lightning takes.
template <class Reducer>
struct CombinedReducerParts {
  static constexpr bool combined = false;
  static constexpr bool known = false;
};
template <class Space, class... R>
struct CombinedReducerParts<Kokkos::Impl::CombinedReducer<Space, R...>> {
  static constexpr bool combined = true;
  static constexpr bool known =
      (((ReducerFold<R>::known && std::is_arithmetic_v<typename R::value_type>) ||
        ReducerSpelling<R>::known) &&
       ...);
};

/// Several reducers of one parallel_reduce as one registered reducer: each folds its
/// component of Kokkos' combined value. GPU code folds with lightning::jit::CombinedReducer
/// of the parts' GPU spellings (device/kokkos_core.hpp), whose value has the layout of
/// Kokkos' (one base class of one member per part), and passes each part to its own update.
template <class Space, class... R>
struct RegisteredReducer<Kokkos::Impl::CombinedReducer<Space, R...>> {
  using Value = typename Kokkos::Impl::CombinedReducer<Space, R...>::value_type;
  template <std::size_t... I>
  static void init_each(Value& v, std::index_sequence<I...>) {
    (RegisteredReducer<R>::init_value(v.template get<I, typename R::value_type>()), ...);
  }
  template <std::size_t... I>
  static void join_each(Value& d, const Value& s, std::index_sequence<I...>) {
    (RegisteredReducer<R>::join_value(d.template get<I, typename R::value_type>(),
                                      s.template get<I, typename R::value_type>()),
     ...);
  }
  static void init(const void*, void* value) {
    Value v{};
    init_each(v, std::index_sequence_for<R...>{});
    std::memcpy(value, static_cast<const void*>(&v), sizeof v);
  }
  static void join(const void*, void* dst, const void* src) {
    Value d{}, s{};
    std::memcpy(static_cast<void*>(&d), dst, sizeof d);
    std::memcpy(static_cast<void*>(&s), src, sizeof s);
    join_each(d, s, std::index_sequence_for<R...>{});
    std::memcpy(dst, static_cast<const void*>(&d), sizeof d);
  }
  static uint64_t make() {
    kernel::ReducerInfo info;
    std::string parts;
    ((parts += reducer_name<R>() + ", "), ...);
    parts.resize(parts.size() - 2);
    info.name = "combined(" + parts + ")";
    info.device_type = "lightning::jit::CombinedReducer<" + parts + ">";
    info.updates = static_cast<uint32_t>(sizeof...(R));
    info.value_size = static_cast<uint32_t>(sizeof(Value));
    info.init = &init;
    info.join = &join;
    return kernel::ReducerRegistry::add(std::move(info));
  }
  static inline const uint64_t id = make();
};

}  // namespace lightning::detail
