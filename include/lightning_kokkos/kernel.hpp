// LIGHTNING_KERNEL: makes a Kokkos functor a lightning kernel.
//
//   struct Stencil {
//     lightning::View<const float*> in;
//     lightning::View<float*> out;
//     LIGHTNING_KERNEL(Stencil, "global i => read in[i-1:i+1], write out[i]", (in, out),
//       void operator()(const int i) const { out(i) = in(i - 1) + in(i) + in(i + 1); })
//   };
//
// Inside the struct, after the members. It defines the operator and registers the kernel
// once, at static initialisation, under the struct's qualified name. The listed members are
// the kernel's parameters, in order: lightning::Views become array parameters (element type
// and rank from the View), arithmetic members scalar parameters (integer ones may be named
// in the annotation). Their byte offsets are measured on a value-initialised instance, so
// the struct must be default-constructible; it must be a namespace-scope struct or class
// template (local classes cannot have static members).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "lightning_kokkos/bound_call.hpp"
#include "lightning_kokkos/internal/core/error.hpp"
#include "lightning_kokkos/internal/kernel/kernel_registry.hpp"
#include "lightning_kokkos/internal/kernel/native_kernel.hpp"
#include "lightning_kokkos/internal/kernel/reducer_registry.hpp"
#include "lightning_kokkos/subview.hpp"
#include "lightning_kokkos/team_policy.hpp"
#include "lightning_kokkos/view.hpp"

namespace lightning::detail {

/// What the macro keeps about a kernel: its id, and the operator's source text (for NVRTC).
struct KernelRegistration {
  KernelId id;
  std::string name;
  std::string source;
};

/// The names of `(a, b, c)`: {"a", "b", "c"}.
std::vector<std::string> split_member_list(const char* members);
/// A unique, readable kernel name from the type: the demangled qualified name, plus the file
/// for types in an anonymous namespace.
std::string kernel_name(const std::type_info& type, const char* file);
/// Adds one listed member to `info` (array or scalar parameter and its slot). Throws
/// Error(kInvalidArgument) naming the member when its offset is outside the functor.
void add_array_member(kernel::KernelInfo& info, const std::string& name, std::ptrdiff_t offset,
                      DataType type, int rank, bool axes_reversed);
void add_scalar_member(kernel::KernelInfo& info, const std::string& name, std::ptrdiff_t offset,
                       DataType type);
/// Registers `info` with the runtime's registry; an error here (e.g. two kernels of one name)
/// is printed and ends the program, since it happens during static initialisation.
KernelRegistration register_kernel_info(kernel::KernelInfo info, const char* source);

/// Index rank of a functor whose operator() is overloaded or a template: the number of
/// integer indices it accepts (1 to 3) after `Lead` (a work tag, or nothing); 0 if none.
template <class F, class... Lead>
constexpr int invocable_rank() {
  if constexpr (std::is_invocable_v<const F&, Lead..., int64_t>)
    return 1;
  else if constexpr (std::is_invocable_v<const F&, Lead..., int64_t, int64_t>)
    return 2;
  else if constexpr (std::is_invocable_v<const F&, Lead..., int64_t, int64_t, int64_t>)
    return 3;
  else
    return 0;
}

/// The parameter list of a const member function.
template <class M>
struct ConstMemberArgs {
  static constexpr bool is_const = false;
  using type = std::tuple<>;
};
template <class C, class R, class... A>
struct ConstMemberArgs<R (C::*)(A...) const> {
  static constexpr bool is_const = true;
  using type = std::tuple<A...>;
};
template <class C, class R, class... A>
struct ConstMemberArgs<R (C::*)(A...) const noexcept> : ConstMemberArgs<R (C::*)(A...) const> {};

/// T[] for a pointer T* (lazily: only a pointer has one).
template <class P>
struct ArrayOfPointee {
  using type = std::remove_pointer_t<P>[];
};
template <class T>
struct Identity {
  using type = T;
};

/// Whether a parameter of type P is a reduction update: a non-const lvalue reference to a
/// value that travels as bytes. Kokkos 3.4's ValLocScalar (MinLoc) declares an assignment,
/// so trivially copy-constructible and destructible is what is asked, not trivially copyable.
template <class P, class V = std::remove_reference_t<P>>
inline constexpr bool is_update_v = std::is_lvalue_reference_v<P> && !std::is_const_v<V> &&
                                    std::is_trivially_copy_constructible_v<V> &&
                                    std::is_trivially_destructible_v<V> && !std::is_pointer_v<V>;

/// How many of the first N parameters, counted back from the N-th, are updates.
template <class Args, std::size_t N>
constexpr std::size_t trailing_updates() {
  if constexpr (N == 0)
    return 0;
  else if constexpr (is_update_v<std::tuple_element_t<N - 1, Args>>)
    return 1 + trailing_updates<Args, N - 1>();
  else
    return 0;
}

/// The value of several reducers in one parallel_reduce, as Kokkos passes it to its wrapper
/// of the functor: the updates' values side by side (parameters First, First + 1, ...).
template <class Args, std::size_t First, class Seq>
struct CombinedValueOf;
template <class Args, std::size_t First, std::size_t... I>
struct CombinedValueOf<Args, First, std::index_sequence<I...>> {
  using type = Kokkos::Impl::CombinedReducerValueImpl<
      std::index_sequence<I...>, std::remove_reference_t<std::tuple_element_t<First + I, Args>>...>;
};

/// The reduction of an operator taking the N parameters `Args`: (i..., Value& update),
/// (i..., T* update) for Kokkos' value_type T[], or (i..., V0& u0, V1& u1, ...) for several
/// reducers in one parallel_reduce (the Value: Kokkos' combined value of V0, V1, ...).
template <class Args, std::size_t N = std::tuple_size_v<Args>>
struct ReduceArgs {
  using last = std::tuple_element_t<N - 1, Args>;
  using referee = std::remove_reference_t<last>;
  /// An array reduction: the update is a `T*` to value_count elements.
  static constexpr bool array = std::is_pointer_v<last> &&
                                std::is_arithmetic_v<std::remove_pointer_t<last>> &&
                                !std::is_const_v<std::remove_pointer_t<last>>;
  /// The number of update parameters.
  static constexpr std::size_t updates = array ? 1 : trailing_updates<Args, N>();
  /// Several reducers: one update per reducer.
  static constexpr bool combined = updates >= 2;
  using value = typename std::conditional_t<
      array, ArrayOfPointee<last>,
      std::conditional_t<combined,
                         CombinedValueOf<Args, N - updates, std::make_index_sequence<updates>>,
                         Identity<referee>>>::type;
  static constexpr bool reduces = updates >= 1 && N > updates;
};
template <class Args>
struct ReduceArgs<Args, 0> {
  using value = void;
  static constexpr std::size_t updates = 0;
  static constexpr bool reduces = false;
};

/// (i, Value& update, bool final): a parallel_scan operator (with more indices too, so that
/// its registration can say that a scan takes one).
template <class Args, std::size_t N = std::tuple_size_v<Args>>
struct ScanArgs {
  using flag = std::remove_cv_t<std::remove_reference_t<std::tuple_element_t<N - 1, Args>>>;
  using Update = ReduceArgs<Args, N - 1>;
  using value = typename Update::value;
  static constexpr bool scans = N >= 3 && std::is_same_v<flag, bool> && Update::reduces;
};
template <class Args>
struct ScanArgs<Args, 0> {
  using value = void;
  static constexpr bool scans = false;
};

/// Kokkos' reduction members of a functor F reducing `Value`s: `init(Value&)`,
/// `join(Value& dst, const Value& src)` and `final(Value&)`. Each may be absent (init: a
/// value-initialised Value; join: `dst += src`; final: nothing). An array reduction (Value
/// `T[]`, Kokkos' `using value_type = T[]` with a `value_count` member) reduces value_count
/// elements: its members take `T*`, and the absent ones act element by element. The runtime
/// runs init and join where the kernel is not (on every device's partial results, on the
/// rank that folds them, on the driver), on a copy of the launch's functor: they may read its
/// scalar members (value_count), not its Views. They become a custom Reduction.
template <class F, class Value>
struct FunctorReduction {
  static constexpr bool is_array = std::is_array_v<Value>;
  using Element = std::remove_extent_t<Value>;

  template <class G, class = void>
  struct Init : std::false_type {};
  template <class G>
  struct Init<G, std::void_t<decltype(std::declval<const G&>().init(std::declval<Value&>()))>>
      : std::true_type {};
  template <class G, class = void>
  struct StaticInit : std::false_type {};
  template <class G>
  struct StaticInit<G, std::void_t<decltype(G::init(std::declval<Value&>()))>> : std::true_type {};
  template <class G, class = void>
  struct Join : std::false_type {};
  template <class G>
  struct Join<G, std::void_t<decltype(std::declval<const G&>().join(
                     std::declval<Value&>(), std::declval<const Value&>()))>> : std::true_type {};
  template <class G, class = void>
  struct StaticJoin : std::false_type {};
  template <class G>
  struct StaticJoin<
      G, std::void_t<decltype(G::join(std::declval<Value&>(), std::declval<const Value&>()))>>
      : std::true_type {};
  template <class G, class = void>
  struct Final : std::false_type {};
  template <class G>
  struct Final<G, std::void_t<decltype(std::declval<const G&>().final(std::declval<Value&>()))>>
      : std::true_type {};
  template <class G, class = void>
  struct ValueCount : std::false_type {};
  template <class G>
  struct ValueCount<G, std::void_t<decltype(std::size_t(std::declval<const G&>().value_count))>>
      : std::true_type {};

  static constexpr bool has_init = Init<F>::value;
  static constexpr bool has_join = Join<F>::value;
  static constexpr bool has_final = Final<F>::value;
  /// The functor has its own init or join, or reduces arrays: it reduces with its functions,
  /// not with `+`.
  static constexpr bool custom = has_init || has_join || is_array;
  static constexpr bool has_value_count = ValueCount<F>::value;

  /// The functor init and join are called on (null only where no launch is: a static init
  /// or join needs none).
  static const F& functor_at(const void* functor) {
    if (!functor)
      throw Error(ErrorKind::kInternal,
                  "a functor's reduction member was called without the launch's functor");
    return *static_cast<const F*>(functor);
  }
  /// An array reduction's element count: the functor's value_count.
  static std::size_t count(const F& f) {
    if constexpr (is_array && has_value_count)
      return static_cast<std::size_t>(f.value_count);
    else
      return 1;
  }

  // Partials need not be aligned: values are copied in and out of aligned locals.
  static void init(const void* functor, void* value) {
    if constexpr (is_array) {
      const F& f = functor_at(functor);
      std::vector<Element> v(count(f));  // value-initialised, as Kokkos' default init
      if constexpr (has_init) f.init(v.data());
      std::memcpy(value, static_cast<const void*>(v.data()), v.size() * sizeof(Element));
    } else {
      Value v{};
      if constexpr (StaticInit<F>::value)
        F::init(v);
      else if constexpr (has_init)
        functor_at(functor).init(v);
      std::memcpy(value, static_cast<const void*>(&v), sizeof v);
    }
  }
  static void join(const void* functor, void* dst, const void* src) {
    if constexpr (is_array) {
      const F& f = functor_at(functor);
      const std::size_t n = count(f);
      std::vector<Element> d(n), s(n);
      std::memcpy(static_cast<void*>(d.data()), dst, n * sizeof(Element));
      std::memcpy(static_cast<void*>(s.data()), src, n * sizeof(Element));
      if constexpr (has_join) {
        f.join(d.data(), static_cast<const Element*>(s.data()));
      } else {
        for (std::size_t i = 0; i < n; ++i) d[i] += s[i];
      }
      std::memcpy(dst, static_cast<const void*>(d.data()), n * sizeof(Element));
    } else if constexpr (has_join || std::is_arithmetic_v<Value>) {
      Value d, s;
      std::memcpy(static_cast<void*>(&d), dst, sizeof d);
      std::memcpy(static_cast<void*>(&s), src, sizeof s);
      if constexpr (StaticJoin<F>::value)
        F::join(d, s);
      else if constexpr (has_join)
        functor_at(functor).join(d, s);
      else
        d += s;
      std::memcpy(dst, static_cast<const void*>(&d), sizeof d);
    }
  }
  /// The kernel's reduction: the functor's own (an array one sized by each launch: value
  /// size 0), `+` on an arithmetic Value, or, for another Value, none until the launch names
  /// a Kokkos reducer (a custom reduction without functions, which the registry refuses to
  /// run).
  static Reduction reduction() {
    if constexpr (is_array)
      return Reduction::custom(0, &init, &join);
    else if constexpr (custom)
      return Reduction::custom(sizeof(Value), &init, &join);
    else if constexpr (std::is_arithmetic_v<Value>)
      return Reduction::builtin(ReduceOp::kSum, data_type_of<Value>());
    else
      return Reduction::custom(sizeof(Value));
  }
  /// The reduction of a launch of `f`: reduction(), an array one sized by f's value_count.
  static Reduction reduction(const F& f) {
    Reduction r = reduction();
    if constexpr (is_array) r.value_size = static_cast<uint32_t>(count(f) * sizeof(Element));
    return r;
  }
};

/// How the members of a team launch reducing Values fold their values: with the kernel's own
/// init and join (called on `functor`, which outlives the Reduction), or with the launch's
/// built-in operator.
template <class F, class Value>
struct TeamFold {
  static Reduction reduction(ReduceOp op, uint64_t reducer, const F& functor) {
    if constexpr (FunctorReduction<F, Value>::custom) {
      Reduction r = FunctorReduction<F, Value>::reduction();
      r.functor = std::shared_ptr<const void>(std::shared_ptr<const void>(), &functor);
      return r;
    } else {
      if (reducer != 0) return kernel::ReducerRegistry::reduction(reducer);
      if constexpr (std::is_arithmetic_v<Value>)
        return Reduction::builtin(op, data_type_of<Value>());
      else
        return FunctorReduction<F, Value>::reduction();  // unreachable: a reducer is required
    }
  }
};

/// As kernel::run_native_reduce for an array reduction: the functor's update is a T* to its
/// value_count elements (an aligned copy of the partial).
template <class F, int Rank, class T, class Tag>
void run_array_reduce(const void* functor, const Rect& threads, void* partial) {
  const F& f = *static_cast<const F*>(functor);
  std::vector<T> value(FunctorReduction<F, T[]>::count(f));
  std::memcpy(static_cast<void*>(value.data()), partial, value.size() * sizeof(T));
  T* update = value.data();
  kernel::run_native_reduce<F, Rank, T*, Tag>(functor, threads, &update);
  std::memcpy(partial, static_cast<const void*>(value.data()), value.size() * sizeof(T));
}

/// Whether Value is Kokkos' combined value of several reducers (CombinedValueOf).
template <class Value>
struct IsCombinedValue : std::false_type {};
template <std::size_t... I, class... V>
struct IsCombinedValue<Kokkos::Impl::CombinedReducerValueImpl<std::index_sequence<I...>, V...>>
    : std::true_type {};

/// F called as Kokkos' wrapper of it calls it for several reducers: the leading arguments
/// (work tag, indices or team member) and then each component of the combined value.
template <class F, class Value>
struct CombinedCall;
template <class F, std::size_t... I, class... V>
struct CombinedCall<F, Kokkos::Impl::CombinedReducerValueImpl<std::index_sequence<I...>, V...>> {
  using Value = Kokkos::Impl::CombinedReducerValueImpl<std::index_sequence<I...>, V...>;
  const F& f;
  template <class... A>
  void operator()(A&&... a) const {
    auto args = std::forward_as_tuple(std::forward<A>(a)...);
    call(args, std::make_index_sequence<sizeof...(A) - 1>{});
  }
  template <class Args, std::size_t... L>
  void call(Args& args, std::index_sequence<L...>) const {
    Value& value = std::get<sizeof...(L)>(args);
    f(std::get<L>(args)..., value.template get<I, V>()...);
  }
};

/// CombinedCall of any callable for combined value Value (run_teams' `Adapt`).
template <class Value>
struct Combined {
  template <class G>
  using Call = CombinedCall<G, Value>;
};

/// As kernel::run_native_reduce for several reducers: Value is their combined value (an
/// aligned copy of the partial), handed to F component by component, through
/// run_bound_or_checked.
template <class F, int Rank, class Value, class Tag>
LIGHTNING_FLATTEN void run_combined_reduce(const void* functor, const Rect& threads,
                                           void* partial) {
  Value value;
  std::memcpy(static_cast<void*>(&value), partial, sizeof value);
  run_bound_or_checked(*static_cast<const F*>(functor), [&](const auto& f) {
    const CombinedCall<std::decay_t<decltype(f)>, Value> call{f};
    kernel::run_native_reduce<std::decay_t<decltype(call)>, Rank, Value, Tag>(&call, threads,
                                                                              &value);
  });
  std::memcpy(partial, static_cast<const void*>(&value), sizeof value);
}

/// kernel::run_native through run_bound_or_checked.
template <class F, int Rank, class Tag>
LIGHTNING_FLATTEN void run_for(const void* functor, const Rect& threads, void* partial) {
  run_bound_or_checked(*static_cast<const F*>(functor), [&](const auto& call) {
    kernel::run_native<std::decay_t<decltype(call)>, Rank, Tag>(&call, threads, partial);
  });
}

/// kernel::run_native_reduce through run_bound_or_checked.
template <class F, int Rank, class Value, class Tag>
LIGHTNING_FLATTEN void run_reduce(const void* functor, const Rect& threads, void* partial) {
  run_bound_or_checked(*static_cast<const F*>(functor), [&](const auto& call) {
    kernel::run_native_reduce<std::decay_t<decltype(call)>, Rank, Value, Tag>(&call, threads,
                                                                              partial);
  });
}

/// kernel::run_native_scan through run_bound_or_checked.
template <class F, class Value, class Tag>
LIGHTNING_FLATTEN void run_scan(const void* functor, const Rect& threads, void* value, bool final) {
  run_bound_or_checked(*static_cast<const F*>(functor), [&](const auto& call) {
    kernel::run_native_scan<std::decay_t<decltype(call)>, Value, Tag>(&call, threads, value, final);
  });
}

/// The host entry point and bytes of a kernel F: a team kernel runs over a TeamClosure<F>;
/// a scan kernel (`Scans`) has a scan entry point instead.
template <class F, int Rank, class Value, bool Scans = false, class Tag = void>
void set_host_entry(kernel::KernelInfo& info) {
  if constexpr (Scans) {
    info.functor_size = sizeof(F);
    info.run_host_scan = &run_scan<F, Value, Tag>;
  } else if constexpr (takes_team_member_v<F, Tag>) {
    static_assert(!std::is_array_v<Value>,
                  "lightning::Distributed: a TeamPolicy parallel_reduce reduces one value, not "
                  "an array (value_type T[]): launch an array reduction over a RangePolicy or "
                  "MDRangePolicy");
    info.functor_size = sizeof(TeamClosure<F>);
    if constexpr (IsCombinedValue<Value>::value)
      info.run_host = &run_teams<F, Value, TeamFold<F, Value>, Tag, Combined<Value>>;
    else
      info.run_host = &run_teams<F, Value, TeamFold<F, Value>, Tag>;
  } else if constexpr (std::is_void_v<Value>) {
    info.functor_size = sizeof(F);
    info.run_host = &run_for<F, Rank, Tag>;
  } else if constexpr (std::is_array_v<Value>) {
    info.functor_size = sizeof(F);
    info.run_host = &run_array_reduce<F, Rank, std::remove_extent_t<Value>, Tag>;
  } else if constexpr (IsCombinedValue<Value>::value) {
    info.functor_size = sizeof(F);
    info.run_host = &run_combined_reduce<F, Rank, Value, Tag>;
  } else {
    info.functor_size = sizeof(F);
    info.run_host = &run_reduce<F, Rank, Value, Tag>;
  }
}

/// Refuses, at compile time, the reduction forms the runtime cannot honour.
template <class F, class Value>
constexpr void check_functor_reduction() {
  using R = FunctorReduction<F, Value>;
  static_assert(!R::is_array || R::has_value_count,
                "lightning::Distributed parallel_reduce: an array reduction (value_type T[]) "
                "needs the functor's value_count member, as Kokkos does");
}

/// Whether T is what Kokkos takes for a work tag: an empty class, passed value-initialised
/// before the indices.
template <class T>
inline constexpr bool is_work_tag_v =
    std::is_class_v<T>&& std::is_empty_v<T> && !std::is_same_v<T, TeamMember>;

/// The shape of an operator() taking `Args` (after its work tag, if any): its index rank
/// (1 to 3) and, for a parallel_reduce operator `(i[, j[, k]], Value& update)` or a
/// parallel_scan operator `(i, Value& update, const bool final)`, the value type.
template <class Args, bool IsConst>
struct ArgumentShape {
  using Reduce = ReduceArgs<Args>;
  using Scan = ScanArgs<Args>;
  static constexpr bool is_const = IsConst;
  static constexpr bool scans = Scan::scans;
  static constexpr bool reduces = !scans && Reduce::reduces;
  static constexpr int rank =
      static_cast<int>(std::tuple_size_v<Args>) - (scans     ? 2
                                                   : reduces ? static_cast<int>(Reduce::updates)
                                                             : 0);
  using value_type = std::conditional_t<scans, typename Scan::value,
                                        std::conditional_t<reduces, typename Reduce::value, void>>;
  /// The first parameter is a work tag: the operator is for a tagged policy.
  template <class A, class = void>
  struct FirstIsTag : std::false_type {};
  template <class A>
  struct FirstIsTag<A, std::enable_if_t<(std::tuple_size_v<A> > 0)>>
      : std::bool_constant<
            is_work_tag_v<std::remove_cv_t<std::remove_reference_t<std::tuple_element_t<0, A>>>>> {
  };
  static constexpr bool first_is_tag = FirstIsTag<Args>::value;
};

/// The shape of an overloaded or template operator() for untagged policies: the team
/// operator among the overloads (a team kernel with tagged operators beside it), else a
/// parallel_for operator of the rank it accepts (0 if none).
template <class F, class = void>
struct OverloadedOperatorShape {
  static constexpr int rank = invocable_rank<F>();
  static constexpr bool reduces = false;
  static constexpr bool scans = false;
  static constexpr bool is_const = true;
  static constexpr bool first_is_tag = false;
  using value_type = void;
};
template <class F>
struct OverloadedOperatorShape<
    F, std::void_t<decltype(TeamOperatorArgs<F, void>::args(&F::operator()))>>
    : ArgumentShape<decltype(TeamOperatorArgs<F, void>::args(&F::operator())), true> {};

/// The shape of a functor's operator() for untagged policies (see ArgumentShape and
/// OverloadedOperatorShape).
template <class F, class = void>
struct OperatorShape : OverloadedOperatorShape<F> {
  /// Whether the operator is one (its address names one function).
  static constexpr bool single = false;
};
template <class F>
struct OperatorShape<F, std::void_t<decltype(&F::operator())>>
    : ArgumentShape<typename ConstMemberArgs<decltype(&F::operator())>::type,
                    ConstMemberArgs<decltype(&F::operator())>::is_const> {
  static constexpr bool single = true;
};

/// The parameters after the tag of F's `operator()(Tag, ...) const` (by value or const
/// reference), picked out of F's overloads by deduction as Kokkos does.
template <class F, class Tag>
struct TaggedArgs {
  template <class R, class... A>
  static std::tuple<A...> args(R (F::*)(Tag, A...) const);
  template <class R, class... A>
  static std::tuple<A...> args(R (F::*)(const Tag&, A...) const);
};

/// The shape of F's operator() for a policy with work tag Tag: the operator taking a Tag
/// first (a template one: the for-operator of the rank it accepts after a Tag).
template <class F, class Tag, class = void>
struct TaggedOperatorShape {
  static constexpr int rank = invocable_rank<F, Tag>();
  static constexpr bool reduces = false;
  static constexpr bool scans = false;
  static constexpr bool is_const = true;
  using value_type = void;
};
template <class F, class Tag>
struct TaggedOperatorShape<F, Tag, std::void_t<decltype(TaggedArgs<F, Tag>::args(&F::operator()))>>
    : ArgumentShape<decltype(TaggedArgs<F, Tag>::args(&F::operator())), true> {};

/// The shape of F's operator() for a policy with work tag Tag (void: none).
template <class F, class Tag>
struct ShapeFor : TaggedOperatorShape<F, Tag> {};
template <class F>
struct ShapeFor<F, void> : OperatorShape<F> {};

/// Whether F has an operator() for untagged policies, which LIGHTNING_KERNEL registers at
/// once (the tagged ones are registered per tag, when a launch names the tag). A functor
/// whose only operator() is malformed is registered, so that its error shows.
template <class F>
inline constexpr bool has_untagged_operator_v =
    OperatorShape<F>::single ? !OperatorShape<F>::first_is_tag
                             : OperatorShape<F>::rank >= 1 || takes_team_member_v<F>;

/// Whether a LIGHTNING_KERNEL functor lists Kokkos::View members: the same program built for
/// a Kokkos host space (see lightning::ViewOf). Such a functor is not registered: it runs on
/// Kokkos alone.
template <class F>
struct ListsKokkosViews {
  template <class Tuple>
  struct Any;
  template <class... M>
  struct Any<std::tuple<M...>>
      : std::disjunction<Kokkos::is_view<std::remove_cv_t<std::remove_reference_t<M>>>...> {};
  static constexpr bool value =
      Any<decltype(std::declval<const F&>().lightning_kernel_members())>::value;
};

/// Registers the KernelInfo of F's operator() for work tag Tag (void: none), named `name`
/// (members measured on a value-initialised instance).
template <class F, class Tag = void>
KernelRegistration register_distributed_kernel(std::string name, const char* annotation,
                                               const char* members, const char* source);

/// What LIGHTNING_KERNEL calls at static initialisation: registers F's untagged operator().
template <class F>
KernelRegistration register_kernel(const char* annotation, const char* members, const char* source,
                                   const char* file) {
  if constexpr (ListsKokkosViews<F>::value || !has_untagged_operator_v<F>) {
    return KernelRegistration{};
  } else {
    return register_distributed_kernel<F>(kernel_name(typeid(F), file), annotation, members,
                                          source);
  }
}

/// The annotation of F's operator() for work tag Tag: its LIGHTNING_WORK_TAG's, else the
/// kernel's.
template <class F, class Tag, class = void>
struct WorkTagAnnotation {
  static const char* get(const char* kernel_annotation) { return kernel_annotation; }
};
template <class F, class Tag>
struct WorkTagAnnotation<
    F, Tag, std::void_t<decltype(F::lightning_work_tag_annotation(static_cast<Tag*>(nullptr)))>> {
  static const char* get(const char*) {
    return F::lightning_work_tag_annotation(static_cast<Tag*>(nullptr));
  }
};

/// What LIGHTNING_KERNEL's registration for work tag Tag calls, once, when a launch names
/// the tag: registers F's operator() for Tag as the kernel "F [Tag]".
template <class F, class Tag>
KernelRegistration register_tagged_kernel(const char* annotation, const char* members,
                                          const char* source, const char* file) {
  static_assert(is_work_tag_v<Tag> && std::is_default_constructible_v<Tag>,
                "lightning::Distributed: a work tag is an empty, default-constructible class "
                "(Kokkos passes a value-initialised one): struct MyTag {};");
  if constexpr (ListsKokkosViews<F>::value) {
    return KernelRegistration{};  // runs on Kokkos alone, as register_kernel's
  } else {
    const std::string tag = kernel_name(typeid(Tag), nullptr);
    return register_distributed_kernel<F, Tag>(kernel_name(typeid(F), file) + " [" + tag + "]",
                                               WorkTagAnnotation<F, Tag>::get(annotation), members,
                                               source);
  }
}

/// Adds a kernel parameter of type M named `name`, at byte `offset` of the kernel's bytes: a
/// lightning::View is an array parameter (element type and rank from the View), a number a
/// scalar parameter.
template <class M>
void add_kernel_member(kernel::KernelInfo& info, const std::string& name, std::ptrdiff_t offset) {
  if constexpr (is_view_v<M>) {
    add_array_member(info, name, offset, data_type_of<typename M::non_const_value_type>(),
                     static_cast<int>(M::rank), M::impl_axes_reversed);
  } else {
    static_assert(!is_view_subview_v<M>,
                  "LIGHTNING_KERNEL: a subview cannot be a member (the runtime gives a kernel "
                  "chunks of whole arrays): list the View, and take Kokkos::subview of it inside "
                  "operator()");
    static_assert(std::is_arithmetic_v<M>,
                  "LIGHTNING_KERNEL: listed members must be lightning::Views or arithmetic "
                  "scalars");
    add_scalar_member(info, name, offset, data_type_of<M>());
  }
}

/// The KernelInfo of kernel F named `name`, without its parameters: what its operator() for
/// work tag Tag (void: none) makes of it (host entry, bytes, reduction, GPU code kind and
/// index rank).
template <class F, class Tag = void>
kernel::KernelInfo operator_info(std::string name, const char* annotation) {
  using Shape = ShapeFor<F, Tag>;
  static_assert(Shape::is_const, "LIGHTNING_KERNEL: operator() must be const");
  constexpr int rank = Shape::rank;
  static_assert(rank >= 1 && rank <= 3,
                "LIGHTNING_KERNEL: operator() must take 1 to 3 integer indices, e.g. "
                "void operator()(const int i) const, or a team member (const "
                "TeamPolicy<lightning::Distributed>::member_type&), and for parallel_reduce a "
                "last Value& update, e.g. void operator()(const int i, double& sum) const");
  kernel::KernelInfo info;
  info.name = std::move(name);
  info.description.annotation = annotation;
  info.takes_checked_handles = true;  // its arrays are lightning::Views
  if constexpr (Shape::scans) {
    using Value = typename Shape::value_type;
    static_assert(rank == 1 && !takes_team_member_v<F, Tag>,
                  "LIGHTNING_KERNEL: a parallel_scan operator takes one index: "
                  "void operator()(const int i, Value& update, const bool final) const");
    static_assert(!std::is_array_v<Value>,
                  "LIGHTNING_KERNEL: a parallel_scan scans one value, not an array (value_type "
                  "T[])");
    check_functor_reduction<F, Value>();
    set_host_entry<F, rank, Value, true, Tag>(info);
    info.reduction = FunctorReduction<F, Value>::reduction();
  } else if constexpr (Shape::reduces) {
    using Value = typename Shape::value_type;
    check_functor_reduction<F, Value>();
    set_host_entry<F, rank, Value, false, Tag>(info);
    info.reduction = FunctorReduction<F, Value>::reduction();
    info.device.functor_init = FunctorReduction<F, Value>::has_init;
    info.device.functor_join = FunctorReduction<F, Value>::has_join;
    if constexpr (std::is_array_v<Value>)
      info.device.array_element = data_type_of<std::remove_extent_t<Value>>();
  } else {
    set_host_entry<F, rank, void, false, Tag>(info);
  }
  info.device.index_rank = rank;
  if constexpr (takes_team_member_v<F, Tag>) {
    // The bytes are a TeamClosure: GPU code finds the launch's shape after the functor.
    info.device.kind = kernel::DeviceCodeKind::kTeamFunctorBody;
    info.device.launch_offset = team_shape_offset<F>();
  }
  return info;
}

template <class F, class Tag>
KernelRegistration register_distributed_kernel(std::string name, const char* annotation,
                                               const char* members, const char* source) {
  static_assert(std::is_default_constructible_v<F>,
                "LIGHTNING_KERNEL: the functor must be default-constructible (member offsets are "
                "measured on a value-initialised instance)");
  kernel::KernelInfo info = operator_info<F, Tag>(std::move(name), annotation);
  if constexpr (!std::is_void_v<Tag>) {
    info.device.work_tag = kernel_name(typeid(Tag), nullptr);
    info.description.signature.arrays_shared = true;
  }
  const std::vector<std::string> names = split_member_list(members);
  const F probe{};
  const auto* base = reinterpret_cast<const unsigned char*>(std::addressof(probe));
  std::size_t index = 0;
  std::apply(
      [&](const auto&... member) {
        auto add = [&](const auto& m) {
          using M = std::remove_cv_t<std::remove_reference_t<decltype(m)>>;
          add_kernel_member<M>(info, names.at(index++),
                               reinterpret_cast<const unsigned char*>(std::addressof(m)) - base);
        };
        (add(member), ...);
      },
      probe.lightning_kernel_members());
  return register_kernel_info(std::move(info), source);
}

/// Whether F carries its own LIGHTNING_KERNEL (not one inherited from a base).
template <class F, class = void>
struct IsKernel : std::false_type {};
template <class F>
struct IsKernel<F, std::void_t<typename F::lightning_kernel_type>>
    : std::is_same<typename F::lightning_kernel_type, F> {};

/// The array of each listed member (invalid for scalars), in parameter order.
template <class F>
std::vector<ArrayId> kernel_arrays(const F& f) {
  std::vector<ArrayId> ids;
  ids.reserve(std::tuple_size_v<std::decay_t<decltype(f.lightning_kernel_members())>>);
  std::apply(
      [&](const auto&... member) {
        auto add = [&](const auto& m) {
          using M = std::remove_cv_t<std::remove_reference_t<decltype(m)>>;
          if constexpr (is_view_v<M>)
            ids.push_back(m.impl_array_id());
          else
            ids.push_back(ArrayId());
        };
        (add(member), ...);
      },
      f.lightning_kernel_members());
  return ids;
}

}  // namespace lightning::detail

namespace lightning {
template <class F>
inline constexpr bool is_kernel_v = detail::IsKernel<F>::value;

/// The registered name and operator source of a LIGHTNING_KERNEL functor's operator() for
/// work tag Tag (void: the untagged one).
template <class F, class Tag = void>
const detail::KernelRegistration& kernel_registration() {
  static_assert(is_kernel_v<F>, "not a LIGHTNING_KERNEL functor");
  if constexpr (std::is_void_v<Tag>)
    return F::lightning_kernel_registration_;
  else
    return F::template lightning_tagged_registration_<Tag>;
}
}  // namespace lightning

#define LIGHTNING_KERNEL(Name, Annotation, Members, ...)                                        \
  __VA_ARGS__                                                                                   \
  auto lightning_kernel_members() const {                                                       \
    return std::forward_as_tuple Members;                                                       \
  }                                                                                             \
  using lightning_kernel_type = Name;                                                           \
  static inline const ::lightning::detail::KernelRegistration lightning_kernel_registration_ =  \
      ::lightning::detail::register_kernel<Name>(Annotation, #Members, #__VA_ARGS__, __FILE__); \
  template <class LightningWorkTag>                                                             \
  static inline const ::lightning::detail::KernelRegistration lightning_tagged_registration_ =  \
      ::lightning::detail::register_tagged_kernel<Name, LightningWorkTag>(Annotation, #Members, \
                                                                          #__VA_ARGS__, __FILE__);

/// Inside a LIGHTNING_KERNEL functor: the annotation of its operator() for work tag Tag
/// (`operator()(Tag, const int i) const`), where it differs from the kernel's.
#define LIGHTNING_WORK_TAG(Tag, Annotation)                          \
  static constexpr const char* lightning_work_tag_annotation(Tag*) { \
    return Annotation;                                               \
  }
