// Kokkos::TeamPolicy<lightning::Distributed>: leagues of teams across every device, and the
// team member type its kernels receive. A team launch is a launch of league × team threads
// in blocks of the team size: superblocks are ranges of whole teams, an annotation binds
// `block` to the league rank and `local` to the team rank.
//
// On host devices each member of a team runs on its own thread (the launch's one thread for
// teams of one), so barriers, broadcasts, team reductions and scans behave as on a GPU.
// Nested TeamThreadRange, TeamVectorRange, ThreadVectorRange, parallel_for/reduce/scan over
// them and Kokkos::single are Kokkos' own host implementations, which the member type opts
// into; vector lanes run one after the other, as on every Kokkos host back-end.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

#include "lightning_kokkos/bound_call.hpp"
#include "lightning_kokkos/execution_space.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"
#include "lightning_kokkos/internal/core/reduction.hpp"
#include "lightning_kokkos/internal/kernel/host_team.hpp"
#include "lightning_kokkos/internal/kernel/native_kernel.hpp"
#include "lightning_kokkos/internal/kernel/team_shape.hpp"

namespace lightning {

template <class Lambda>
struct AnnotatedLambda;

/// One thread of a team, as a team kernel's operator() receives it
/// (`TeamPolicy<lightning::Distributed>::member_type`): Kokkos' team member interface.
class TeamMember {
 public:
  using execution_space = Distributed;
  using scratch_memory_space = Kokkos::ScratchMemorySpace<Distributed>;
  // Kokkos' nested ranges and their host implementations accept this member type.
  using thread_team_member = TeamMember;
  using host_thread_team_member = TeamMember;

  TeamMember(kernel::HostTeam& team, int team_rank, int64_t league_size)
      : team_(&team), team_rank_(team_rank), league_size_(static_cast<int>(league_size)) {}

  /// Starts the team `league_rank`: its scratch memory is allocated afresh.
  void impl_start(int64_t league_rank, const kernel::TeamShape& shape) {
    league_rank_ = static_cast<int>(league_rank);
    scratch_ = scratch_memory_space(team_->scratch(0), shape.scratch_bytes(0), team_->scratch(1),
                                    shape.scratch_bytes(1));
  }

  int league_rank() const { return league_rank_; }
  int league_size() const { return league_size_; }
  int team_rank() const { return team_rank_; }
  int team_size() const { return team_->size(); }

  const scratch_memory_space& team_shmem() const { return scratch_.set_team_thread_mode(0, 1, 0); }
  const scratch_memory_space& team_scratch(int level) const {
    return scratch_.set_team_thread_mode(level, 1, 0);
  }
  const scratch_memory_space& thread_scratch(int level) const {
    return scratch_.set_team_thread_mode(level, team_size(), team_rank_);
  }

  void team_barrier() const { team_->barrier(); }

  /// Every member gets the value of member `root`.
  template <class T>
  void team_broadcast(T& value, const int root) const {
    check_exchanged<T>();
    if (team_size() == 1) return;
    if (team_rank_ == root) std::memcpy(team_->shared_slot(), &value, sizeof(T));
    team_->barrier();
    if (team_rank_ != root) std::memcpy(&value, team_->shared_slot(), sizeof(T));
    team_->barrier();
  }
  /// Member `root` applies `f` to its value, then every member gets the result.
  template <class Closure, class T>
  void team_broadcast(const Closure& f, T& value, const int root) const {
    if (team_rank_ == root) f(value);
    team_broadcast(value, root);
  }

  /// Every member's `reducer.reference()` becomes the join of all members' values.
  template <class Reducer>
  std::enable_if_t<Kokkos::is_reducer<Reducer>::value> team_reduce(const Reducer& reducer) const {
    team_reduce(reducer, reducer.reference());
  }
  /// Every member's `reducer.reference()` becomes the join of all members' contributions,
  /// joined in rank order (the same result on every member and every run).
  template <class Reducer>
  std::enable_if_t<Kokkos::is_reducer<Reducer>::value> team_reduce(
      const Reducer& reducer, const typename Reducer::value_type contribution) const {
    using V = typename Reducer::value_type;
    reducer.reference() =
        join_members(contribution, [&](V& dst, const V& src) { reducer.join(dst, src); });
  }
  /// Kokkos 4's nested reductions: `contribution` becomes the join of all members' values,
  /// through a reducer wrapped by Kokkos (which joins through pointers).
  template <class Wrapped>
  std::enable_if_t<Kokkos::is_reducer<Wrapped>::value> impl_team_reduce(
      const Wrapped& reducer, typename Wrapped::value_type& contribution) const {
    using V = typename Wrapped::value_type;
    contribution =
        join_members(contribution, [&](V& dst, const V& src) { reducer.join(&dst, &src); });
  }

  /// The exclusive prefix sum of the members' values in rank order; with `global`, the team's
  /// total is added to `*global` atomically and its old value to every member's prefix.
  template <class T>
  T team_scan(const T& value, T* const global = nullptr) const {
    if (team_size() == 1) return global ? Kokkos::atomic_fetch_add(global, value) : T();
    T prefix = T();
    T total = T();
    gather_members(value, [&](int m, const T& v) {
      if (m < team_rank_) prefix += v;
      total += v;
    });
    if (!global) return prefix;
    T base;
    if (team_rank_ == 0) {
      base = Kokkos::atomic_fetch_add(global, total);
      std::memcpy(team_->shared_slot(), &base, sizeof(T));
    }
    team_->barrier();
    std::memcpy(&base, team_->shared_slot(), sizeof(T));
    team_->barrier();  // every member has read the slot: it may be reused
    return base + prefix;
  }

 private:
  // The join of every member's `contribution` in rank order, on every member.
  template <class V, class Join>
  V join_members(const V& contribution, const Join& join) const {
    if (team_size() == 1) return contribution;
    V total = contribution;  // replaced by member 0's
    gather_members(contribution, [&](int m, const V& v) {
      if (m == 0)
        total = v;
      else
        join(total, v);
    });
    return total;
  }

  // Every member's `value` to every member: `visit(m, value of member m)` for m in rank
  // order, between two barriers (the slots may be reused afterwards).
  template <class V, class Visit>
  void gather_members(const V& value, const Visit& visit) const {
    check_exchanged<V>();
    std::memcpy(team_->slot(team_rank_), &value, sizeof(V));
    team_->barrier();
    for (int m = 0; m < team_size(); ++m) {
      V v;
      std::memcpy(&v, team_->slot(m), sizeof(V));
      visit(m, v);
    }
    team_->barrier();
  }

  template <class T>
  static constexpr void check_exchanged() {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kernel::HostTeam::kExchangeBytes,
                  "lightning::Distributed: a team broadcast, reduction or scan moves trivially "
                  "copyable values of at most 1024 bytes");
  }

  kernel::HostTeam* team_;
  int team_rank_;
  int league_size_;
  int league_rank_ = 0;
  scratch_memory_space scratch_;
};

namespace detail {

/// The team size Kokkos::AUTO gives `shape` on the runtime's devices
/// (kernel::recommended_team_size); without a runtime, host devices'.
int recommended_team_size(const kernel::TeamShape& shape);

/// What a team launch copies to the devices: the kernel, the launch's shape, and for a
/// reduction its operator (the kernel's own init and join when kCustom). The kernel comes
/// first, so its parameters sit where its registration measured them.
template <class F>
struct TeamClosure {
  F functor;
  kernel::TeamShape shape;
  ReduceOp op = ReduceOp::kSum;
  uint64_t reducer = 0;  ///< the launch's registered reducer (Reduction::reducer), if any
};

/// The byte offset of TeamClosure<F>::shape (for GPU code), measured on a closure of bytes
/// with F's size and alignment, since F need not be default-constructible.
template <class F>
std::size_t team_shape_offset() {
  struct alignas(F) Bytes {
    unsigned char bytes[sizeof(F)];
  };
  static_assert(sizeof(TeamClosure<Bytes>) == sizeof(TeamClosure<F>));
  const TeamClosure<Bytes> twin{};
  return static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(&twin.shape) -
                                  reinterpret_cast<const unsigned char*>(&twin));
}

/// The parameters of F's team operator for work tag Tag (void: none), from the member on:
/// `operator()([Tag,] const member_type& team[, Value& update]) const` (the tag by value or
/// const reference, the member by const reference or value), picked out of F's overloads by
/// deduction as Kokkos does.
template <class F, class Tag>
struct TeamOperatorArgs {
  template <class R, class... A>
  static std::tuple<const TeamMember&, A...> args(R (F::*)(Tag, const TeamMember&, A...) const);
  template <class R, class... A>
  static std::tuple<const TeamMember&, A...> args(R (F::*)(Tag, TeamMember, A...) const);
  template <class R, class... A>
  static std::tuple<const TeamMember&, A...> args(R (F::*)(const Tag&, const TeamMember&, A...)
                                                      const);
  template <class R, class... A>
  static std::tuple<const TeamMember&, A...> args(R (F::*)(const Tag&, TeamMember, A...) const);
};
template <class F>
struct TeamOperatorArgs<F, void> {
  template <class R, class... A>
  static std::tuple<const TeamMember&, A...> args(R (F::*)(const TeamMember&, A...) const);
  template <class R, class... A>
  static std::tuple<const TeamMember&, A...> args(R (F::*)(TeamMember, A...) const);
};

/// Whether F's operator() for work tag Tag (void: none) takes a team member: a team kernel.
template <class F, class Tag = void, class = void>
struct TakesTeamMember : std::false_type {};
template <class F, class Tag>
struct TakesTeamMember<F, Tag,
                       std::void_t<decltype(TeamOperatorArgs<F, Tag>::args(&F::operator()))>>
    : std::true_type {};
template <class L, class Tag>
struct TakesTeamMember<AnnotatedLambda<L>, Tag> : TakesTeamMember<L, Tag> {};
template <class F, class Tag = void>
inline constexpr bool takes_team_member_v = TakesTeamMember<F, Tag>::value;

/// The teams [first, end) of a launch run by one team of threads, each member calling
/// `call` (F, or how it is called: BoundCall, several reducers) for work tag Tag (void:
/// none); a reduction (Value not void) folds each member's value into `values[rank]`.
template <class Tag, class Value, class Call, class Slot>
void run_team_range(const Call& call, const kernel::TeamShape& shape, int64_t first, int64_t end,
                    std::vector<Slot>& values) {
  kernel::run_host_team(shape.team_size, shape.scratch_bytes(0), shape.scratch_bytes(1),
                        // Flattened: the kernel's nested loops see what BoundCall tells.
                        [&](int rank, kernel::HostTeam& team) LIGHTNING_FLATTEN {
                          TeamMember member(team, rank, shape.league_size);
                          for (int64_t l = first; l < end; ++l) {
                            member.impl_start(l, shape);
                            if constexpr (!std::is_void_v<Value>)
                              kernel::invoke<Tag>(call, member,
                                                  values[static_cast<std::size_t>(rank)]);
                            else
                              kernel::invoke<Tag>(call, member);
                            // Every member is done with the team (and its scratch).
                            team.barrier(kernel::HostTeam::Barrier::kTeamEnd);
                          }
                        });
}

/// The host entry point of a team kernel F (kernel::HostEntry over a TeamClosure<F>): the
/// teams of `threads` (whole teams of the launch's league × team threads), one after the
/// other, by one team of threads, each member calling F's operator for work tag Tag (void:
/// none), without element checks where F's Views are bound (run_bound_or_checked). `Adapt`
/// is void (F called as it is) or a type whose `Call<G>` calls a callable G as Kokkos calls
/// F (kernel.hpp's Combined: several reducers). A reduction (Value not void) folds each
/// member's value into `partial` in rank order.
template <class F, class Value, class Fold, class Tag = void, class Adapt = void>
void run_teams(const void* bytes, const Rect& threads, void* partial) {
  const auto& closure = *static_cast<const TeamClosure<F>*>(bytes);
  const kernel::TeamShape& shape = closure.shape;
  const int64_t first = threads.lo()[0] / shape.team_size;
  const int64_t end = threads.hi()[0] / shape.team_size;
  if (first >= end) return;
  constexpr bool reduces = !std::is_void_v<Value>;
  using Slot = std::conditional_t<reduces, Value, char>;
  std::vector<Slot> values;
  if constexpr (reduces)
    values.assign(static_cast<std::size_t>(shape.team_size), *static_cast<Value*>(partial));
  run_bound_or_checked(closure.functor, [&](const auto& f) {
    if constexpr (std::is_void_v<Adapt>)
      run_team_range<Tag, Value>(f, shape, first, end, values);
    else
      run_team_range<Tag, Value>(typename Adapt::template Call<std::decay_t<decltype(f)>>{f}, shape,
                                 first, end, values);
  });
  if constexpr (reduces) {
    Value* result = static_cast<Value*>(partial);
    const Reduction reduction = Fold::reduction(closure.op, closure.reducer, closure.functor);
    *result = values[0];
    for (std::size_t m = 1; m < values.size(); ++m) reduction.join(result, &values[m]);
  }
}

}  // namespace detail
}  // namespace lightning

namespace Kokkos::Impl {

/// Team scratch memory is host memory wherever the host runs a team kernel (host devices):
/// Views of it are accessible there.
template <>
struct MemorySpaceAccess<Kokkos::HostSpace, Kokkos::ScratchMemorySpace<lightning::Distributed>> {
  enum : bool { assignable = false };
  enum : bool { accessible = true };
  enum : bool { deepcopy = false };
};

#if KOKKOS_VERSION >= 40000
/// TeamThreadMDRange and its kin (Kokkos 4): nested as on Kokkos' host back-ends.
template <typename Rank, TeamMDRangeThreadAndVector ThreadAndVector>
struct ThreadAndVectorNestLevel<Rank, lightning::Distributed, ThreadAndVector>
    : HostBasedNestLevel<Rank, ThreadAndVector> {};
#endif

/// The team policy of lightning::Distributed. Team sizes, vector lengths and scratch sizes
/// are the launch's; they are checked against kernel::TeamLimits when it is launched (an
/// error naming the launch), not here.
template <class... Properties>
class TeamPolicyInternal<lightning::Distributed, Properties...>
    : public PolicyTraits<Properties...> {
 public:
  using execution_policy = TeamPolicyInternal;
  using traits = PolicyTraits<Properties...>;
  using execution_space = lightning::Distributed;
  using member_type = lightning::TeamMember;

  template <class ExecSpace, class... OtherProperties>
  friend class TeamPolicyInternal;

  template <class... OtherProperties>
  TeamPolicyInternal(const TeamPolicyInternal<lightning::Distributed, OtherProperties...>& p)
      : m_space(p.m_space),
        m_shape(p.m_shape),
        m_auto_team(p.m_auto_team),
        m_auto_vector(p.m_auto_vector),
        m_chunk_size(p.m_chunk_size) {}

  TeamPolicyInternal(const execution_space& space, int league_size, int team_size,
                     int vector_length = 1)
      : m_space(space) {
    m_shape.league_size = league_size;
    m_shape.team_size = team_size;
    m_shape.vector_length = vector_length;
  }
  TeamPolicyInternal(const execution_space& space, int league_size, const Kokkos::AUTO_t&,
                     int vector_length = 1)
      : TeamPolicyInternal(space, league_size, 1, vector_length) {
    m_auto_team = true;
  }
  TeamPolicyInternal(const execution_space& space, int league_size, const Kokkos::AUTO_t&,
                     const Kokkos::AUTO_t&)
      : TeamPolicyInternal(space, league_size, 1, 1) {
    m_auto_team = m_auto_vector = true;
  }
  TeamPolicyInternal(const execution_space& space, int league_size, int team_size,
                     const Kokkos::AUTO_t&)
      : TeamPolicyInternal(space, league_size, team_size, 1) {
    m_auto_vector = true;
  }
  TeamPolicyInternal(int league_size, int team_size, int vector_length = 1)
      : TeamPolicyInternal(execution_space(), league_size, team_size, vector_length) {}
  TeamPolicyInternal(int league_size, const Kokkos::AUTO_t& team, int vector_length = 1)
      : TeamPolicyInternal(execution_space(), league_size, team, vector_length) {}
  TeamPolicyInternal(int league_size, const Kokkos::AUTO_t& team, const Kokkos::AUTO_t& vector)
      : TeamPolicyInternal(execution_space(), league_size, team, vector) {}
  TeamPolicyInternal(int league_size, int team_size, const Kokkos::AUTO_t& vector)
      : TeamPolicyInternal(execution_space(), league_size, team_size, vector) {}

  const execution_space& space() const { return m_space; }

  /// The most threads a team may have (with this policy's vector length) on every device.
  template <class F>
  int team_size_max(const F&, const ParallelForTag&) const {
    return lightning::kernel::TeamLimits::kMaxThreads / impl_vector_length();
  }
  template <class F>
  int team_size_max(const F&, const ParallelReduceTag&) const {
    return lightning::kernel::TeamLimits::kMaxThreads / impl_vector_length();
  }
  template <class F, class R>
  int team_size_max(const F&, const R&, const ParallelReduceTag&) const {
    return lightning::kernel::TeamLimits::kMaxThreads / impl_vector_length();
  }
  /// What Kokkos::AUTO picks on the runtime's devices, with this policy's vector length and
  /// scratch sizes: one thread on host devices, Kokkos' CUDA choice on GPUs
  /// (kernel::recommended_team_size).
  template <class F>
  int team_size_recommended(const F&, const ParallelForTag&) const {
    return lightning::detail::recommended_team_size(m_shape);
  }
  template <class F>
  int team_size_recommended(const F&, const ParallelReduceTag&) const {
    return lightning::detail::recommended_team_size(m_shape);
  }
  template <class F, class R>
  int team_size_recommended(const F&, const R&, const ParallelReduceTag&) const {
    return lightning::detail::recommended_team_size(m_shape);
  }

  /// With Kokkos::AUTO, the recommended size for the scratch sizes set so far (a launch
  /// resolves it again with the final ones, as Kokkos' CUDA back-end does).
  int team_size() const {
    return m_auto_team ? lightning::detail::recommended_team_size(m_shape) : m_shape.team_size;
  }
  int league_size() const { return static_cast<int>(m_shape.league_size); }
  bool impl_auto_team_size() const { return m_auto_team; }
  bool impl_auto_vector_length() const { return m_auto_vector; }
  void impl_set_team_size(size_t size) {
    m_shape.team_size = static_cast<int32_t>(size);
    m_auto_team = false;
  }
  void impl_set_vector_length(size_t length) {
    m_shape.vector_length = static_cast<int32_t>(length);
  }
  int impl_vector_length() const { return m_shape.vector_length; }
  static int vector_length_max() { return lightning::kernel::TeamLimits::kMaxVectorLength; }
  size_t scratch_size(const int& level, int team_size = -1) const {
    return static_cast<size_t>(
        m_shape.scratch_bytes(level, team_size < 0 ? this->team_size() : team_size));
  }
  static int scratch_size_max(int level) {
    return static_cast<int>(level == 0 ? lightning::kernel::TeamLimits::kMaxScratch0
                                       : lightning::kernel::TeamLimits::kMaxScratch1);
  }
  int chunk_size() const { return m_chunk_size; }
  TeamPolicyInternal& set_chunk_size(typename traits::index_type chunk) {
    m_chunk_size = static_cast<int>(chunk);
    return *this;
  }
  TeamPolicyInternal& set_scratch_size(const int& level, const PerTeamValue& per_team) {
    m_shape.team_scratch[level] = per_team.value;
    return *this;
  }
  TeamPolicyInternal& set_scratch_size(const int& level, const PerThreadValue& per_thread) {
    m_shape.thread_scratch[level] = per_thread.value;
    return *this;
  }
  TeamPolicyInternal& set_scratch_size(const int& level, const PerTeamValue& per_team,
                                       const PerThreadValue& per_thread) {
    m_shape.team_scratch[level] = per_team.value;
    m_shape.thread_scratch[level] = per_thread.value;
    return *this;
  }

  /// The launch's shape, as the runtime receives it (Kokkos::AUTO resolved).
  lightning::kernel::TeamShape impl_shape() const {
    lightning::kernel::TeamShape shape = m_shape;
    shape.team_size = team_size();
    return shape;
  }

 private:
  execution_space m_space;
  lightning::kernel::TeamShape m_shape;
  bool m_auto_team = false;
  bool m_auto_vector = false;
  int m_chunk_size = 1;
};

}  // namespace Kokkos::Impl
