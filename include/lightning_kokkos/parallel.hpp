// Kokkos dispatch for lightning::Distributed: parallel_for and parallel_reduce over a
// RangePolicy, an MDRangePolicy (rank 2 or 3) or a TeamPolicy, and parallel_scan over a
// RangePolicy, become one runtime launch of the functor's LIGHTNING_KERNEL. Everything that differs
// between Kokkos 3.4 and 4.x is the shape of Impl::ParallelReduce, at the end of this file.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "lightning_kokkos/annotate.hpp"
#include "lightning_kokkos/execution_space.hpp"
#include "lightning_kokkos/internal/core/data_type.hpp"
#include "lightning_kokkos/internal/core/reduction.hpp"
#include "lightning_kokkos/kernel.hpp"
#include "lightning_kokkos/kernel_lambda.hpp"
#include "lightning_kokkos/reducers.hpp"

namespace lightning::detail {

/// Where a parallel_reduce's value goes and how the partial values combine.
struct ReduceTarget {
  void* result = nullptr;  ///< host memory of one value
  Reduction reduction;
};

/// Where a parallel_scan's total goes: host memory of one value, or null when the program
/// does not ask for it.
struct ScanTarget {
  void* total = nullptr;
};

/// Byte ranges [begin, end) of an object.
using ByteRanges = std::vector<std::pair<std::size_t, std::size_t>>;

/// The padding of closure type L: the bytes a copy leaves as it finds them, found once per
/// type by copying `closure` into storage of zeros and into storage of ones (the bytes that
/// differ). Empty for a trivially copyable L, whose copies may copy the padding too, and
/// where the compiler's copy does. The closure check ignores these bytes, whose old contents
/// may look like any address.
template <class L>
const ByteRanges& closure_padding(const L& closure) {
  static const ByteRanges padding = [&] {
    ByteRanges ranges;
    if constexpr (!std::is_trivially_copyable_v<L>) {
      struct alignas(L) Storage {
        unsigned char bytes[sizeof(L)];
      };
      Storage zeros, ones;
      std::memset(zeros.bytes, 0x00, sizeof(L));
      std::memset(ones.bytes, 0xff, sizeof(L));
      L* a = ::new (static_cast<void*>(zeros.bytes)) L(closure);
      L* b = ::new (static_cast<void*>(ones.bytes)) L(closure);
      for (std::size_t i = 0; i < sizeof(L); ++i) {
        if (zeros.bytes[i] == ones.bytes[i]) continue;
        if (!ranges.empty() && ranges.back().second == i)
          ranges.back().second = i + 1;
        else
          ranges.emplace_back(i, i + 1);
      }
      a->~L();
      b->~L();
    }
    return ranges;
  }();
  return padding;
}

/// One Kokkos dispatch on lightning::Distributed, as the specialisations below hand it to the
/// runtime.
struct Dispatch {
  KernelId kernel;
  const void* functor = nullptr;  ///< the bytes the runtime copies (the kernel's functor_size)
  /// The bytes of `functor` that hold the program's values (a lambda's captures, a functor's
  /// members), checked for host addresses that cannot travel.
  std::size_t values_begin = 0, values_end = 0;
  /// Padding among those bytes (ranges from values_begin; null: none known), not checked.
  const ByteRanges* padding = nullptr;
  std::vector<ArrayId> arrays;  ///< per kernel parameter
  int rank = 1;                 ///< of the index box [lower, upper)
  int64_t lower[3] = {}, upper[3] = {};
  Distributed space;
  const ReduceTarget* reduce = nullptr;  ///< null: a parallel_for or a parallel_scan
  const ScanTarget* scan = nullptr;      ///< a parallel_scan's
  /// The annotation and View slots of a kernel that gives them per launch (annotated
  /// lambdas); null for LIGHTNING_KERNEL functors.
  const kernel::KernelDescription* description = nullptr;
  std::string label;  ///< the Kokkos label; empty when the program gave none
  /// A team launch's shape (the bytes at `functor` are then a TeamClosure); null otherwise.
  const kernel::TeamShape* team = nullptr;
};

/// Launches `dispatch` (asynchronously; a reduction waits for its value).
void launch_kernel(Dispatch dispatch);

/// Prints `what` (why a parallel_reduce with several reducers failed) and aborts: Kokkos
/// declares that parallel_reduce noexcept, so an exception would end in std::terminate
/// without saying which launch failed.
[[noreturn]] void stop_in_combined_reduction(const char* what) noexcept;

/// The label Kokkos gave the dispatch in progress on this thread (through its tools
/// interface); empty when there is none.
std::string dispatch_label();

/// `label` unless it is the name Kokkos makes up for a dispatch of F that has none.
template <class F>
std::string program_label(std::string label) {
#ifdef KOKKOS_ENABLE_IMPL_TYPEINFO
  if (label == Kokkos::Impl::TypeInfo<std::remove_const_t<F>>::name()) return {};
#endif
  if (label == typeid(F).name()) return {};
  return label;
}

/// What dispatch needs of a functor: whether it can run distributed, and the shape of its
/// operator() for work tag Tag (void: none; for an annotated lambda, the lambda's).
template <class F, class Tag = void>
struct DistributedKernel {
  static constexpr bool valid = is_kernel_v<F>;
  using Shape = ShapeFor<F, Tag>;
};
template <class L, class Tag>
struct DistributedKernel<AnnotatedLambda<L>, Tag> {
  static constexpr bool valid = true;
  using Shape = ShapeFor<L, Tag>;
};

/// A policy's work tag (void: none).
template <class Policy>
using WorkTagOf = typename Policy::work_tag;

/// The index box of a policy: RangePolicy (rank 1) or MDRangePolicy (rank 2, 3).
template <class Policy>
struct PolicyBox;
template <class... Traits>
struct PolicyBox<Kokkos::RangePolicy<Traits...>> {
  static constexpr int rank = 1;
  static void get(const Kokkos::RangePolicy<Traits...>& p, int64_t* lower, int64_t* upper) {
    lower[0] = static_cast<int64_t>(p.begin());
    upper[0] = static_cast<int64_t>(p.end());
  }
};
template <class... Traits>
struct PolicyBox<Kokkos::MDRangePolicy<Traits...>> {
  static constexpr int rank = static_cast<int>(Kokkos::MDRangePolicy<Traits...>::rank);
  static void get(const Kokkos::MDRangePolicy<Traits...>& p, int64_t* lower, int64_t* upper) {
    for (int a = 0; a < rank; ++a) {
      lower[a] = static_cast<int64_t>(p.m_lower[a]);
      upper[a] = static_cast<int64_t>(p.m_upper[a]);
    }
  }
};

template <class Policy>
struct IsTeamPolicy : std::false_type {};
template <class... Traits>
struct IsTeamPolicy<Kokkos::TeamPolicy<Traits...>> : std::true_type {};

template <class Policy, class = void>
struct IsSupportedPolicy : IsTeamPolicy<Policy> {};
template <class Policy>
struct IsSupportedPolicy<Policy, std::void_t<decltype(PolicyBox<Policy>::rank)>> : std::true_type {
};

/// Fills the part of `d` that differs between the kernels of one launch: the kernel (F's
/// operator() for work tag Tag), its bytes and the places of its values and Views. `f` must
/// outlive the launch call.
template <class F, class Tag = void>
void describe_kernel(const F& f, const void* bytes, Dispatch& d,
                     kernel::KernelDescription& lambda_description) {
  d.functor = bytes;
  const auto* base = static_cast<const unsigned char*>(bytes);
  if constexpr (IsAnnotatedLambda<F>::value) {
    const auto* lambda = reinterpret_cast<const unsigned char*>(std::addressof(f.lambda));
    d.values_begin = static_cast<std::size_t>(lambda - base);
    d.values_end = d.values_begin + sizeof(f.lambda);
    d.padding = &closure_padding(f.lambda);
    lambda_description =
        describe_lambda(f.annotation, lambda, sizeof(f.lambda), d.values_begin, d.arrays);
    d.kernel = LambdaKernel<decltype(f.lambda)>::id;
    d.description = &lambda_description;
  } else {
    d.values_begin = static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(&f) - base);
    d.values_end = d.values_begin + sizeof(F);
    d.kernel = kernel_registration<F, Tag>().id;
    d.arrays = kernel_arrays(f);
  }
}

/// Whether a LIGHTNING_KERNEL functor lists Kokkos::Views (a LIGHTNING_LAMBDA's registration
/// refuses such captures itself, saying what a lambda may capture).
template <class F>
constexpr bool lists_kokkos_views() {
  if constexpr (is_kernel_v<F> && !IsKernelLambda<F>::value)
    return ListsKokkosViews<F>::value;
  else
    return false;
}

/// Whether F is a lambda's closure type, as the compiler names it (GCC: "<lambda(...)>",
/// Clang: "(lambda at file:line)"), for the compile error of an unannotated lambda.
template <class F>
constexpr bool is_closure_type() {
  constexpr std::string_view name = __PRETTY_FUNCTION__;
  return name.find("<lambda") != std::string_view::npos ||
         name.find("(lambda at") != std::string_view::npos;
}

/// Checks at compile time that F can run with the work tag Tag (void: none): a lambda takes
/// none, a functor whose only operator() takes one needs it, and a tagged launch needs an
/// operator() for its tag. Returns whether F passed, so that later checks do not pile
/// errors on that one; true for what is not a distributed kernel (refused for that
/// elsewhere).
template <class F, class Tag>
constexpr bool work_tag_fits() {
  if constexpr (!DistributedKernel<F>::valid) {
    return true;
  } else if constexpr (!std::is_void_v<Tag> && (!is_kernel_v<F> || IsKernelLambda<F>::value)) {
    static_assert(std::is_void_v<Tag>,
                  "lightning::Distributed runs work tags with LIGHTNING_KERNEL functors "
                  "(operator()(Tag, const int i) const, operator()(Tag, const member_type& team) "
                  "const); a lambda takes no tag: write the tagged operators in a functor");
    return false;
  } else if constexpr (std::is_void_v<Tag>) {
    static_assert(!OperatorShape<F>::first_is_tag,
                  "lightning::Distributed: the functor's operator() takes a work tag first: "
                  "launch it with the tag in the policy, RangePolicy<lightning::Distributed, Tag> "
                  "(TeamPolicy<lightning::Distributed, Tag> for a team operator)");
    return !OperatorShape<F>::first_is_tag;
  } else {
    static_assert(ShapeFor<F, Tag>::rank > 0,
                  "lightning::Distributed: the functor has no operator() for the policy's work "
                  "tag: operator()(Tag, i...) const for a RangePolicy or MDRangePolicy (one index "
                  "per axis), operator()(Tag, const member_type& team) const for a TeamPolicy, "
                  "and for parallel_reduce a last Value& update");
    return ShapeFor<F, Tag>::rank > 0;
  }
}

/// Checks what can be checked at compile time, then launches `f` over `policy` (a reduction
/// into `reduce`, a scan with `scan`, or else a parallel_for).
template <class F, class Policy>
void launch_functor(const F& f, const Policy& policy, const ReduceTarget* reduce,
                    const ScanTarget* scan = nullptr) {
  static_assert(IsSupportedPolicy<Policy>::value,
                "lightning::Distributed runs Kokkos::RangePolicy, Kokkos::MDRangePolicy (rank 2 "
                "or 3) and Kokkos::TeamPolicy");
  static_assert(DistributedKernel<F>::valid || !is_closure_type<F>(),
                "lightning::Distributed: this lambda has no annotation: write it with "
                "LIGHTNING_LAMBDA(\"annotation\", (captures), (params) { body }), which runs on "
                "GPUs too, or wrap it in lightning::annotate(\"annotation\", lambda) (host "
                "devices)");
  static_assert(DistributedKernel<F>::valid || is_closure_type<F>(),
                "lightning::Distributed runs only functors annotated with LIGHTNING_KERNEL: add "
                "LIGHTNING_KERNEL(Name, \"annotation\", (members...), operator()...) inside the "
                "functor (or wrap a lambda in lightning::annotate(\"annotation\", lambda))");
  static_assert(!lists_kokkos_views<F>(),
                "lightning::Distributed: the functor's members are Kokkos::Views; distributed "
                "kernels use lightning::View (lightning::ViewOf<lightning::Distributed, T*>)");
  using Tag = WorkTagOf<Policy>;
  constexpr bool checked = DistributedKernel<F>::valid && work_tag_fits<F, Tag>();
  if constexpr (IsTeamPolicy<Policy>::value && checked) {
    static_assert(takes_team_member_v<F, Tag>,
                  "lightning::Distributed: a TeamPolicy kernel's operator() takes the team "
                  "member, after the policy's work tag if it has one: operator()([Tag, ]const "
                  "TeamPolicy<lightning::Distributed>::member_type& team[, Value& update]) const "
                  "(operators that take a work tag run with the tag in the policy, "
                  "TeamPolicy<lightning::Distributed, Tag>)");
    TeamClosure<F> closure{f, policy.impl_shape(), reduce ? reduce->reduction.op : ReduceOp::kSum,
                           reduce ? reduce->reduction.reducer : 0};
    Dispatch d;
    d.rank = 1;  // league × team threads, in blocks of the team size
    d.lower[0] = 0;
    d.upper[0] = closure.shape.league_size * closure.shape.team_size;
    d.team = &closure.shape;
    d.space = policy.space();
    d.reduce = reduce;
    d.label = program_label<F>(dispatch_label());
    kernel::KernelDescription description;
    describe_kernel<F, Tag>(closure.functor, &closure, d, description);
    launch_kernel(std::move(d));
  } else if constexpr (IsSupportedPolicy<Policy>::value && checked) {
    using Box = PolicyBox<Policy>;
    using Shape = typename DistributedKernel<F, Tag>::Shape;
    static_assert(!takes_team_member_v<F, Tag>,
                  "lightning::Distributed: this kernel takes a team member: launch it with a "
                  "Kokkos::TeamPolicy");
    static_assert(Shape::rank == Box::rank,
                  "lightning::Distributed: the functor's operator() takes as many indices as "
                  "the policy has axes (RangePolicy: 1, MDRangePolicy<Rank<N>>: N)");
    Dispatch d;
    d.rank = Box::rank;
    Box::get(policy, d.lower, d.upper);
    d.space = policy.space();
    d.reduce = reduce;
    d.scan = scan;
    d.label = program_label<F>(dispatch_label());
    kernel::KernelDescription description;
    describe_kernel<F, Tag>(f, std::addressof(f), d, description);
    launch_kernel(std::move(d));
  }
}

/// Whether F has reduction members for work tag Tag (`init(Tag, v)`, `join(Tag, dst, src)`,
/// `final(Tag, v)`), which Kokkos would call for a tagged launch: the runtime uses the
/// untagged ones only, so such a launch is refused rather than folded differently.
template <class F, class Tag, class Value, class = void>
struct TaggedInit : std::false_type {};
template <class F, class Tag, class Value>
struct TaggedInit<
    F, Tag, Value,
    std::void_t<decltype(std::declval<F&>().init(std::declval<Tag>(), std::declval<Value&>()))>>
    : std::true_type {};
template <class F, class Tag, class Value, class = void>
struct TaggedJoin : std::false_type {};
template <class F, class Tag, class Value>
struct TaggedJoin<F, Tag, Value,
                  std::void_t<decltype(std::declval<F&>().join(
                      std::declval<Tag>(), std::declval<Value&>(), std::declval<const Value&>()))>>
    : std::true_type {};
template <class F, class Tag, class Value, class = void>
struct TaggedFinal : std::false_type {};
template <class F, class Tag, class Value>
struct TaggedFinal<
    F, Tag, Value,
    std::void_t<decltype(std::declval<F&>().final(std::declval<Tag>(), std::declval<Value&>()))>>
    : std::true_type {};
template <class F, class Tag, class Value>
constexpr bool has_tagged_reduction_members() {
  if constexpr (std::is_void_v<Tag>)
    return false;
  else
    return TaggedInit<F, Tag, Value>::value || TaggedJoin<F, Tag, Value>::value ||
           TaggedFinal<F, Tag, Value>::value;
}

/// The functor of a parallel_reduce as Kokkos hands it to the back end: for several reducers
/// in one parallel_reduce, Kokkos wraps the user's functor (CombinedReductionFunctorWrapper),
/// which lightning runs itself (its kernel is the user's LIGHTNING_KERNEL).
template <class F>
struct KokkosReduceFunctor {
  using type = F;
  static const F& unwrap(const F& f) { return f; }
};
template <class Inner, class Space, class... R>
struct KokkosReduceFunctor<Kokkos::Impl::CombinedReductionFunctorWrapper<Inner, Space, R...>> {
  using Wrapper = Kokkos::Impl::CombinedReductionFunctorWrapper<Inner, Space, R...>;
  using type = Inner;
  // The wrapper's one member is the functor (Kokkos 3.4 to 4.x): its bytes are the functor's.
  static_assert(sizeof(Wrapper) == sizeof(Inner) && !std::is_polymorphic_v<Wrapper>,
                "lightning::Distributed: this Kokkos wraps the functor of several reducers in a "
                "way lightning does not know");
  static const Inner& unwrap(const Wrapper& w) { return *reinterpret_cast<const Inner*>(&w); }
};

/// Runs a parallel_reduce of `f` over `policy` into `result` (host memory of one value,
/// `result_bytes` long), combining with Reducer (F itself: a sum, as Kokkos does without a
/// reducer).
template <class F, class Policy, class Reducer>
void reduce_functor(const F& f, const Policy& policy, void* result, std::size_t result_bytes) {
  using Shape = typename DistributedKernel<F, WorkTagOf<Policy>>::Shape;
  constexpr bool tag_fits = work_tag_fits<F, WorkTagOf<Policy>>();
  static_assert(!tag_fits || (DistributedKernel<F>::valid && Shape::reduces),
                "lightning::Distributed parallel_reduce: the LIGHTNING_KERNEL functor (or "
                "annotated lambda) needs an operator()(i[, j[, k]], Value& update) const "
                "(TeamPolicy: operator()(const member_type& team, Value& update) const), after "
                "the policy's work tag if it has one");
  if constexpr (tag_fits && DistributedKernel<F>::valid && Shape::reduces) {
    using Value = typename Shape::value_type;
    using Members = FunctorReduction<F, Value>;
    static_assert(!has_tagged_reduction_members<F, WorkTagOf<Policy>, Value>(),
                  "lightning::Distributed: the functor has an init, join or final taking the "
                  "work tag; the runtime runs the untagged ones for every tag: write them "
                  "without the tag");
    ReduceTarget target;
    target.result = result;
    if constexpr (std::is_same_v<Reducer, F>) {
      static_assert(Members::custom || std::is_arithmetic_v<Value>,
                    "lightning::Distributed parallel_reduce: a reduction value that is not a "
                    "number needs a Kokkos reducer (Kokkos::MinLoc<T, I>(result), MaxLoc, "
                    "MinMax, MinMaxLoc, ...) or the functor's own init and join");
      target.reduction = Members::reduction(f);
      if constexpr (Members::is_array) {
        // What the errors call the launch: its Kokkos label, else the functor's type.
        auto launch_name = [] {
          const std::string label = program_label<F>(dispatch_label());
          return "parallel_reduce '" + (label.empty() ? kernel_name(typeid(F), nullptr) : label) +
                 "'";
        };
        if (target.reduction.value_size == 0)
          throw Error(ErrorKind::kInvalidArgument,
                      launch_name() + ": an array reduction (value_type T[]) with value_count 0");
        // Kokkos writes value_count elements wherever the result points; a shorter result
        // View would be overrun silently.
        if (target.reduction.value_size > result_bytes) {
          const std::size_t element = sizeof(typename Members::Element);
          throw Error(ErrorKind::kInvalidArgument,
                      launch_name() + ": an array reduction of value_count " +
                          std::to_string(target.reduction.value_size / element) +
                          " into a result of " + std::to_string(result_bytes / element) +
                          " elements: the result View needs value_count elements");
        }
      }
    } else {
      static_assert(!Members::custom,
                    "lightning::Distributed parallel_reduce: the functor has its own init or "
                    "join; launch it without a Kokkos reducer (or drop its init and join)");
      static_assert(ReducerFold<Reducer>::known || ReducerSpelling<Reducer>::known ||
                        CombinedReducerParts<Reducer>::known,
                    "lightning::Distributed parallel_reduce supports Kokkos' Sum, Prod, Min, Max, "
                    "LAnd, LOr, BAnd, BOr, MinLoc, MaxLoc, MinMax, MinMaxLoc (Kokkos 4: also "
                    "MinFirstLoc, MaxFirstLoc) on arithmetic values and integer locations, "
                    "several of them in one parallel_reduce, and a plain sum without a reducer");
      static_assert(std::is_same_v<typename Reducer::value_type, Value>,
                    "lightning::Distributed parallel_reduce: the reducer's value type must be "
                    "the functor's update type");
      if constexpr (ReducerFold<Reducer>::known)
        target.reduction = Reduction::builtin(ReducerFold<Reducer>::op, data_type_of<Value>());
      else if constexpr (ReducerSpelling<Reducer>::known || CombinedReducerParts<Reducer>::known)
        target.reduction = kernel::ReducerRegistry::reduction(RegisteredReducer<Reducer>::id);
    }
    if constexpr (CombinedReducerParts<Reducer>::combined) {
      try {
        launch_functor(f, policy, &target);
      } catch (const std::exception& e) {
        stop_in_combined_reduction(e.what());
      }
    } else {
      launch_functor(f, policy, &target);
    }
    if constexpr (Members::has_final) {
      if constexpr (Members::is_array)
        f.final(static_cast<typename Members::Element*>(result));
      else
        f.final(*static_cast<Value*>(result));
    }
  }
}

/// Runs a parallel_scan of `f` over `policy`; its total goes to `total` (host memory of one
/// value) unless that is null.
template <class F, class Policy>
void scan_functor(const F& f, const Policy& policy, void* total) {
  using Shape = typename DistributedKernel<F, WorkTagOf<Policy>>::Shape;
  static_assert(!IsTeamPolicy<Policy>::value && PolicyBox<Policy>::rank == 1,
                "lightning::Distributed parallel_scan runs over a Kokkos::RangePolicy");
  constexpr bool tag_fits = work_tag_fits<F, WorkTagOf<Policy>>();
  static_assert(!tag_fits || (DistributedKernel<F>::valid && Shape::scans),
                "lightning::Distributed parallel_scan: the LIGHTNING_KERNEL functor (or "
                "annotated lambda) needs an operator()(const int i, Value& update, const bool "
                "final) const");
  if constexpr (tag_fits && DistributedKernel<F>::valid && Shape::scans) {
    using Value = typename Shape::value_type;
    static_assert(!has_tagged_reduction_members<F, WorkTagOf<Policy>, Value>(),
                  "lightning::Distributed: the functor has an init, join or final taking the "
                  "work tag; the runtime runs the untagged ones for every tag: write them "
                  "without the tag");
    static_assert(FunctorReduction<F, Value>::custom || std::is_arithmetic_v<Value>,
                  "lightning::Distributed parallel_scan: a scanned value that is not a number "
                  "needs the functor's own static init and join");
    const ScanTarget target{total};
    launch_functor(f, policy, nullptr, &target);
  }
}

}  // namespace lightning::detail

namespace Kokkos::Impl {

template <class F, class Policy>
class ParallelFor<F, Policy, lightning::Distributed> {
  F m_functor;
  Policy m_policy;

 public:
  ParallelFor(const F& functor, const Policy& policy) : m_functor(functor), m_policy(policy) {}

  void execute() const {
    using Shape =
        typename lightning::detail::DistributedKernel<F,
                                                      lightning::detail::WorkTagOf<Policy>>::Shape;
    static_assert(!Shape::reduces,
                  "lightning::Distributed: this functor reduces (its operator() takes a Value& "
                  "update): launch it with parallel_reduce");
    static_assert(!Shape::scans,
                  "lightning::Distributed: this functor scans (its operator() takes a Value& "
                  "update and a bool final): launch it with parallel_scan");
    lightning::detail::launch_functor(m_functor, m_policy, nullptr);
  }
};

template <class F, class Policy>
class ParallelScan<F, Policy, lightning::Distributed> {
  F m_functor;
  Policy m_policy;

 public:
  ParallelScan(const F& functor, const Policy& policy) : m_functor(functor), m_policy(policy) {}

  void execute() const { lightning::detail::scan_functor(m_functor, m_policy, nullptr); }
};

/// A parallel_scan that returns its total: Kokkos 3.4 passes the value, Kokkos 4 a View of it.
template <class F, class Policy, class ReturnType>
class ParallelScanWithTotal<F, Policy, ReturnType, lightning::Distributed> {
  F m_functor;
  Policy m_policy;
  void* m_total;

 public:
  template <class ViewType, std::enable_if_t<Kokkos::is_view<ViewType>::value, int> = 0>
  ParallelScanWithTotal(const F& functor, const Policy& policy, const ViewType& total)
      : m_functor(functor), m_policy(policy), m_total(total.data()) {
    static_assert(
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ViewType::memory_space>::accessible,
        "lightning::Distributed parallel_scan: the total must be host-accessible");
  }
  template <class T, std::enable_if_t<!Kokkos::is_view<T>::value, int> = 0>
  ParallelScanWithTotal(const F& functor, const Policy& policy, T& total)
      : m_functor(functor), m_policy(policy), m_total(&total) {}

  void execute() const { lightning::detail::scan_functor(m_functor, m_policy, m_total); }
};

#if KOKKOS_VERSION >= 40000
template <class CombinedFunctorReducer, class Policy>
class ParallelReduce<CombinedFunctorReducer, Policy, lightning::Distributed> {
  using F = typename CombinedFunctorReducer::functor_type;
  using Reducer = std::decay_t<
      decltype(std::declval<const CombinedFunctorReducer&>().get_reducer().get_functor())>;

  CombinedFunctorReducer m_functor_reducer;
  Policy m_policy;
  void* m_result;
  std::size_t m_result_bytes;

 public:
  template <class ViewType>
  ParallelReduce(const CombinedFunctorReducer& functor_reducer, const Policy& policy,
                 const ViewType& result)
      : m_functor_reducer(functor_reducer),
        m_policy(policy),
        m_result(result.data()),
        m_result_bytes(result.span() * sizeof(typename ViewType::value_type)) {
    static_assert(
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ViewType::memory_space>::accessible,
        "lightning::Distributed parallel_reduce: the result must be host-accessible");
  }

  void execute() const {
    using Functor = lightning::detail::KokkosReduceFunctor<F>;
    lightning::detail::reduce_functor<typename Functor::type, Policy, Reducer>(
        Functor::unwrap(m_functor_reducer.get_functor()), m_policy, m_result, m_result_bytes);
  }
};
#else
template <class F, class Policy, class ReducerType>
class ParallelReduce<F, Policy, ReducerType, lightning::Distributed> {
  using Reducer = std::conditional_t<std::is_same_v<ReducerType, InvalidType>, F, ReducerType>;

  F m_functor;
  Policy m_policy;
  void* m_result;
  std::size_t m_result_bytes;

 public:
  template <class ViewType>
  ParallelReduce(const F& functor, const Policy& policy, const ViewType& result,
                 std::enable_if_t<Kokkos::is_view<ViewType>::value &&
                                      !Kokkos::is_reducer_type<ReducerType>::value,
                                  void*> = nullptr)
      : m_functor(functor),
        m_policy(policy),
        m_result(result.data()),
        m_result_bytes(result.span() * sizeof(typename ViewType::value_type)) {
    static_assert(Kokkos::Impl::MemorySpaceAccess<typename ViewType::memory_space,
                                                  Kokkos::HostSpace>::accessible,
                  "lightning::Distributed parallel_reduce: the result must be host-accessible");
  }
  ParallelReduce(const F& functor, const Policy& policy, const ReducerType& reducer)
      : m_functor(functor),
        m_policy(policy),
        m_result(reducer.view().data()),
        m_result_bytes(reducer.view().span() *
                       sizeof(typename ReducerType::result_view_type::value_type)) {}

  void execute() const {
    using Functor = lightning::detail::KokkosReduceFunctor<F>;
    lightning::detail::reduce_functor<typename Functor::type, Policy, Reducer>(
        Functor::unwrap(m_functor), m_policy, m_result, m_result_bytes);
  }
};
#endif

}  // namespace Kokkos::Impl
