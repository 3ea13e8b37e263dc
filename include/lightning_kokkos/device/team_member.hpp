// Team kernels in GPU code: the team member a TeamPolicy kernel's operator() receives, its
// scratch memory, and Kokkos' nested ranges (TeamThreadRange, ThreadVectorRange,
// TeamVectorRange), parallel_for/reduce/scan over them and Kokkos::single, as Kokkos' CUDA
// back-end maps them: a team is one block of vector_length × team_size threads, threadIdx.x
// the vector lane and threadIdx.y the team rank. Collectives go through warp shuffles, and
// through shared memory (one slot per warp) between warps. Only what NVRTC compiles; host
// devices run Kokkos' own host implementations (lightning_kokkos/team_policy.hpp).
#pragma once

#include "lightning_kokkos/device/kokkos_core.hpp"
#include "lightning_kokkos/device/reduction_target.hpp"
#include "lightning_kokkos/device/team_launch.hpp"

#if defined(__CUDACC_RTC__)

namespace lightning {
class TeamMember;
/// lightning::Distributed as GPU code sees it: where a team's scratch memory comes from.
class Distributed {
 public:
  using execution_space = Distributed;
  using scratch_memory_space = Kokkos::ScratchMemorySpace<Distributed>;
  using array_layout = Kokkos::LayoutRight;
};
}  // namespace lightning

namespace Kokkos {

/// A team's scratch memory in GPU code: level 0 in shared memory, level 1 in the block's
/// part of a device buffer; allocated as on host devices (lightning_kokkos/
/// scratch_memory_space.hpp). An allocation that does not fit records the sizes for the
/// launch's error and ends the thread (every member allocates alike: the team ends).
template <>
class ScratchMemorySpace<lightning::Distributed> {
 public:
  using memory_space = ScratchMemorySpace;
  using execution_space = lightning::Distributed;
  using array_layout = LayoutRight;
  using size_type = long;
  static constexpr int ALIGN = 8;

  __device__ ScratchMemorySpace(unsigned char* level0, unsigned long long size0,
                                unsigned char* level1, unsigned long long size1,
                                lightning::jit::TeamStatus* status)
      : begin_{level0, level1},
        iter_{level0, level1},
        end_{level0 + size0, level1 + size1},
        status_(status) {}

  template <class Int>
  __device__ void* get_shmem(const Int& size, int level = -1) const {
    return allocate(static_cast<unsigned long long>(size), 1, level);
  }
  template <class Int>
  __device__ void* get_shmem_aligned(const Int& size, const long alignment, int level = -1) const {
    return allocate(static_cast<unsigned long long>(size),
                    static_cast<unsigned long long>(alignment), level);
  }
  /// Allocations that follow are from `level`, `multiplier` slices of each size of which this
  /// thread gets slice `offset` (team scratch: 1 and 0; thread scratch: team size and rank).
  __device__ const ScratchMemorySpace& set_team_thread_mode(const int& level, const int& multiplier,
                                                            const int& offset) const {
    level_ = level;
    multiplier_ = multiplier;
    offset_ = offset;
    return *this;
  }

 private:
  __device__ void* allocate(unsigned long long size, unsigned long long alignment,
                            int level) const {
    if (level == -1) level = level_;
    const int l = level == 0 ? 0 : 1;
    const auto at = reinterpret_cast<unsigned long long>(iter_[l]);
    const unsigned long long skip =
        alignment > 1 && at % alignment ? alignment - at % alignment : 0;
    const unsigned long long left = static_cast<unsigned long long>(end_[l] - iter_[l]);
    const unsigned long long need = skip + size * static_cast<unsigned long long>(multiplier_);
    if (need > left) exhausted(l, need, left, static_cast<unsigned long long>(end_[l] - begin_[l]));
    unsigned char* slice = iter_[l] + skip + size * static_cast<unsigned long long>(offset_);
    iter_[l] += need;
    return slice;
  }
  // The first failure of the launch is kept; the thread ends (PTX exit), so nothing writes
  // beyond the team's scratch and the launch completes, to fail with the record.
  __device__ void exhausted(int level, unsigned long long asked, unsigned long long left,
                            unsigned long long capacity) const {
    if (atomicCAS(&status_->failed, 0u, 1u) == 0u) {
      status_->level = level;
      status_->asked = asked;
      status_->left = left;
      status_->capacity = capacity;
      __threadfence();
    }
    asm volatile("exit;");
  }

  unsigned char* begin_[2];
  mutable unsigned char* iter_[2];
  unsigned char* end_[2];
  lightning::jit::TeamStatus* status_;
  mutable int level_ = 0;
  mutable int multiplier_ = 1;
  mutable int offset_ = 0;
};

/// The policy's name for its member type, as kernels spell it.
template <class... Properties>
class TeamPolicy {
 public:
  using member_type = lightning::TeamMember;
};

}  // namespace Kokkos

namespace lightning::jit {

/// The level-0 scratch of the block: its dynamic shared memory.
extern __shared__ __align__(16) unsigned char team_shared_memory[];

__device__ inline unsigned team_threads() {
  return blockDim.x * blockDim.y;
}
__device__ inline unsigned thread_in_team() {
  return threadIdx.y * blockDim.x + threadIdx.x;
}
/// The lanes of this thread's warp that the team has (a last warp may be partial).
__device__ inline unsigned warp_mask() {
  const unsigned present = team_threads() - (thread_in_team() & ~31u);
  return present >= 32 ? 0xffffffffu : (1u << present) - 1;
}
/// The vector lanes of this thread's team rank (a power of two, within one warp).
__device__ inline unsigned vector_mask() {
  const unsigned length = blockDim.x;
  if (length >= 32) return 0xffffffffu;
  return ((1u << length) - 1) << (thread_in_team() & 31u & ~(length - 1));
}

// Shuffles of any trivially copyable value, a 32-bit word at a time.
template <class T>
struct Words {
  static constexpr int count = (sizeof(T) + 3) / 4;
  int w[count];
};
template <class T, class Shuffle>
__device__ T shuffle_words(const T& v, const Shuffle& shuffle) {
  Words<T> in, out;
  copy_bytes(&in, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < Words<T>::count; ++k) out.w[k] = shuffle(in.w[k]);
  T r;
  copy_bytes(&r, &out, sizeof(T));
  return r;
}
template <class T>
__device__ T shfl(unsigned mask, const T& v, int lane, int width = 32) {
  return shuffle_words(v, [&](int w) { return __shfl_sync(mask, w, lane, width); });
}
template <class T>
__device__ T shfl_down(unsigned mask, const T& v, unsigned delta) {
  return shuffle_words(v, [&](int w) { return __shfl_down_sync(mask, w, delta); });
}
template <class T>
__device__ T shfl_up(unsigned mask, const T& v, unsigned delta, int width = 32) {
  return shuffle_words(v, [&](int w) { return __shfl_up_sync(mask, w, delta, width); });
}
template <class T>
__device__ T shfl_xor(unsigned mask, const T& v, int lane_mask) {
  return shuffle_words(v, [&](int w) { return __shfl_xor_sync(mask, w, lane_mask); });
}

/// One slot of T per warp in shared memory, for collectives between warps (one set per type).
template <class T>
__device__ T* warp_slots() {
  __shared__ __align__(16) unsigned char slots[32 * sizeof(T)];
  return reinterpret_cast<T*>(slots);
}

/// The join of the values of the team's threads `stride` apart (stride = vector length: one
/// value per team rank, the first lane's, since a rank's lanes agree; stride = 1: every
/// thread's), on every thread. Every thread of the team must call it.
template <class T, class Join>
__device__ T team_join(T v, const Join& join, unsigned stride) {
  const unsigned threads = team_threads();
  const unsigned me = thread_in_team();
  const unsigned lane = me & 31u;
  const unsigned mask = warp_mask();
  for (unsigned off = stride; off < 32; off *= 2) {
    const T other = shfl_down(mask, v, off);
    if (lane + off < 32 && me + off < threads) join(v, other);
  }
  if (threads <= 32) return shfl(mask, v, 0);
  T* slot = warp_slots<T>();
  if (lane == 0) slot[me >> 5] = v;
  __syncthreads();
  T r = slot[0];
  const unsigned warps = (threads + 31) / 32;
  for (unsigned w = 1; w < warps; ++w) join(r, slot[w]);
  __syncthreads();  // the slots may be reused
  return r;
}

/// The join of this rank's vector lanes' values, on every lane.
template <class T, class Join>
__device__ T vector_join(T v, const Join& join) {
  const unsigned mask = vector_mask();
  for (unsigned off = 1; off < blockDim.x; off *= 2) {
    const T other = shfl_xor(mask, v, static_cast<int>(off));
    join(v, other);
  }
  return v;
}

/// The exclusive prefix sum of the values of the team's threads `stride` apart (as
/// team_join), in rank order, and their total; on every thread.
template <class T>
__device__ T team_exclusive_scan(const T& value, T& total, unsigned stride) {
  const unsigned threads = team_threads();
  const unsigned me = thread_in_team();
  const unsigned lane = me & 31u;
  const unsigned mask = warp_mask();
  T inclusive = value;
  for (unsigned off = stride; off < 32; off *= 2) {
    const T other = shfl_up(mask, inclusive, off);
    if (lane >= off) inclusive += other;
  }
  T exclusive = shfl_up(mask, inclusive, stride);
  if (lane < stride) exclusive = T();
  const unsigned warp_base = me & ~31u;
  const unsigned in_warp = threads - warp_base < 32 ? threads - warp_base : 32;
  const unsigned last = in_warp - stride + (me % stride);  // this lane's last rank in the warp
  if (threads <= 32) {
    total = shfl(mask, inclusive, static_cast<int>(last));
    return exclusive;
  }
  T* slot = warp_slots<T>();
  if (me % stride == 0 && lane == in_warp - stride) slot[me >> 5] = inclusive;
  __syncthreads();
  T before = T();
  total = T();
  const unsigned warps = (threads + 31) / 32;
  for (unsigned w = 0; w < warps; ++w) {
    if (w < (me >> 5)) before += slot[w];
    total += slot[w];
  }
  __syncthreads();
  return before + exclusive;
}

/// The exclusive prefix sum of this rank's vector lanes' values, in lane order, and their
/// total; on every lane.
template <class T>
__device__ T vector_exclusive_scan(const T& value, T& total) {
  const unsigned mask = vector_mask();
  const int length = static_cast<int>(blockDim.x);
  T inclusive = value;
  for (int off = 1; off < length; off *= 2) {
    const T other = shfl_up(mask, inclusive, static_cast<unsigned>(off), length);
    if (static_cast<int>(threadIdx.x) >= off) inclusive += other;
  }
  T exclusive = shfl_up(mask, inclusive, 1u, length);
  if (threadIdx.x == 0) exclusive = T();
  total = shfl(mask, inclusive, length - 1, length);
  return exclusive;
}

/// The value type of a scan lambda `(i, Value& partial, bool final)`.
template <class F>
struct ScanValue : ScanValue<decltype(&F::operator())> {};
template <class C, class R, class I, class V>
struct ScanValue<R (C::*)(I, V&, bool) const> {
  using type = V;
};

}  // namespace lightning::jit

namespace lightning {

/// One thread of a team in GPU code (`TeamPolicy<lightning::Distributed>::member_type`):
/// Kokkos' team member interface. Team rank is threadIdx.y, vector lane threadIdx.x.
class TeamMember {
 public:
  using execution_space = Distributed;
  using scratch_memory_space = Kokkos::ScratchMemorySpace<Distributed>;
  using team_handle = TeamMember;

  /// Team `league_rank` of `launch`, with the block's scratch memory (allocated afresh).
  __device__ TeamMember(const jit::TeamLaunch& launch, long long league_rank,
                        const jit::TeamResources& resources)
      : league_rank_(static_cast<int>(league_rank)),
        league_size_(static_cast<int>(launch.league_size)),
        scratch_(jit::team_shared_memory,
                 launch.team_scratch[0] + launch.thread_scratch[0] * blockDim.y,
                 resources.level1 + blockIdx.x * resources.level1_bytes,
                 launch.team_scratch[1] + launch.thread_scratch[1] * blockDim.y, resources.status) {
  }

  __device__ int league_rank() const { return league_rank_; }
  __device__ int league_size() const { return league_size_; }
  __device__ int team_rank() const { return static_cast<int>(threadIdx.y); }
  __device__ int team_size() const { return static_cast<int>(blockDim.y); }

  __device__ const scratch_memory_space& team_shmem() const {
    return scratch_.set_team_thread_mode(0, 1, 0);
  }
  __device__ const scratch_memory_space& team_scratch(int level) const {
    return scratch_.set_team_thread_mode(level, 1, 0);
  }
  __device__ const scratch_memory_space& thread_scratch(int level) const {
    return scratch_.set_team_thread_mode(level, team_size(), team_rank());
  }

  __device__ void team_barrier() const { __syncthreads(); }

  /// Every member gets the value of member `root`.
  template <class T>
  __device__ void team_broadcast(T& value, const int root) const {
    if (jit::team_threads() <= 32) {
      value = jit::shfl(jit::warp_mask(), value,
                        root * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x));
      return;
    }
    T* slot = jit::warp_slots<T>();
    if (team_rank() == root && threadIdx.x == 0) *slot = value;
    __syncthreads();
    value = *slot;
    __syncthreads();  // the slot may be reused
  }
  /// Member `root` applies `f` to its value, then every member gets the result.
  template <class Closure, class T>
  __device__ void team_broadcast(const Closure& f, T& value, const int root) const {
    if (team_rank() == root) f(value);
    team_broadcast(value, root);
  }

  /// Every member's `reducer.reference()` becomes the join of all members' values.
  template <class Reducer>
  __device__ jit::enable_if_t<jit::is_reducer<Reducer>::value> team_reduce(
      const Reducer& reducer) const {
    team_reduce(reducer, reducer.reference());
  }
  /// Every member's `reducer.reference()` becomes the join of all members' contributions.
  template <class Reducer>
  __device__ jit::enable_if_t<jit::is_reducer<Reducer>::value> team_reduce(
      const Reducer& reducer, const typename Reducer::value_type contribution) const {
    using V = typename Reducer::value_type;
    reducer.reference() = jit::team_join(
        contribution, [&](V& dst, const V& src) { reducer.join(dst, src); }, blockDim.x);
  }

  /// The exclusive prefix sum of the members' values in rank order; with `global`, the team's
  /// total is added to `*global` atomically and its old value to every member's prefix.
  template <class T>
  __device__ T team_scan(const T& value, T* const global = nullptr) const {
    T total;
    const T prefix = jit::team_exclusive_scan(value, total, blockDim.x);
    if (!global) return prefix;
    T base = T();
    if (team_rank() == 0 && threadIdx.x == 0) base = Kokkos::atomic_fetch_add(global, total);
    team_broadcast(base, 0);
    return base + prefix;
  }

 private:
  int league_rank_;
  int league_size_;
  scratch_memory_space scratch_;
};

}  // namespace lightning

namespace Kokkos {
namespace Impl {

/// The indices [start, end) of a nested range over a team's ranks, a rank's vector lanes, or
/// both.
template <class I>
struct TeamThreadRangeBoundariesStruct {
  using index_type = I;
  const lightning::TeamMember& member;
  I start, end;
};
template <class I>
struct ThreadVectorRangeBoundariesStruct {
  using index_type = I;
  const lightning::TeamMember& member;
  I start, end;
};
template <class I>
struct TeamVectorRangeBoundariesStruct {
  using index_type = I;
  const lightning::TeamMember& member;
  I start, end;
};
struct ThreadSingleStruct {
  const lightning::TeamMember& member;
};
struct VectorSingleStruct {
  const lightning::TeamMember& member;
};

template <class V>
struct SumJoin {
  __device__ void operator()(V& dst, const V& src) const { dst += src; }
};

}  // namespace Impl

template <class I>
__device__ Impl::TeamThreadRangeBoundariesStruct<I> TeamThreadRange(const lightning::TeamMember& m,
                                                                    const I& count) {
  return {m, I(0), count};
}
template <class I1, class I2>
__device__ Impl::TeamThreadRangeBoundariesStruct<decltype(I1() + I2())> TeamThreadRange(
    const lightning::TeamMember& m, const I1& begin, const I2& end) {
  return {m, begin, end};
}
template <class I>
__device__ Impl::ThreadVectorRangeBoundariesStruct<I> ThreadVectorRange(
    const lightning::TeamMember& m, const I& count) {
  return {m, I(0), count};
}
template <class I1, class I2>
__device__ Impl::ThreadVectorRangeBoundariesStruct<decltype(I1() + I2())> ThreadVectorRange(
    const lightning::TeamMember& m, const I1& begin, const I2& end) {
  return {m, begin, end};
}
template <class I>
__device__ Impl::TeamVectorRangeBoundariesStruct<I> TeamVectorRange(const lightning::TeamMember& m,
                                                                    const I& count) {
  return {m, I(0), count};
}
template <class I1, class I2>
__device__ Impl::TeamVectorRangeBoundariesStruct<decltype(I1() + I2())> TeamVectorRange(
    const lightning::TeamMember& m, const I1& begin, const I2& end) {
  return {m, begin, end};
}
__device__ inline Impl::ThreadSingleStruct PerTeam(const lightning::TeamMember& m) {
  return {m};
}
__device__ inline Impl::VectorSingleStruct PerThread(const lightning::TeamMember& m) {
  return {m};
}

namespace Impl {

// What distinguishes the three nested ranges: where a thread starts, how far it steps, and how
// the threads of the range's scope join and scan their values (a rank's lanes agree on a
// team-level value; every thread has its own in a TeamVectorRange).
template <class I>
__device__ I first_index(const TeamThreadRangeBoundariesStruct<I>& r) {
  return r.start + static_cast<I>(threadIdx.y);
}
template <class I>
__device__ I first_index(const ThreadVectorRangeBoundariesStruct<I>& r) {
  return r.start + static_cast<I>(threadIdx.x);
}
template <class I>
__device__ I first_index(const TeamVectorRangeBoundariesStruct<I>& r) {
  return r.start + static_cast<I>(lightning::jit::thread_in_team());
}
template <class I>
__device__ I index_step(const TeamThreadRangeBoundariesStruct<I>&) {
  return static_cast<I>(blockDim.y);
}
template <class I>
__device__ I index_step(const ThreadVectorRangeBoundariesStruct<I>&) {
  return static_cast<I>(blockDim.x);
}
template <class I>
__device__ I index_step(const TeamVectorRangeBoundariesStruct<I>&) {
  return static_cast<I>(lightning::jit::team_threads());
}
template <class I, class V, class Join>
__device__ V scope_join(const TeamThreadRangeBoundariesStruct<I>&, const V& v, const Join& join) {
  return lightning::jit::team_join(v, join, blockDim.x);
}
template <class I, class V, class Join>
__device__ V scope_join(const ThreadVectorRangeBoundariesStruct<I>&, const V& v, const Join& join) {
  return lightning::jit::vector_join(v, join);
}
template <class I, class V, class Join>
__device__ V scope_join(const TeamVectorRangeBoundariesStruct<I>&, const V& v, const Join& join) {
  return lightning::jit::team_join(v, join, 1);
}
template <class I, class V>
__device__ V scope_exclusive_scan(const TeamThreadRangeBoundariesStruct<I>&, const V& v, V& total) {
  return lightning::jit::team_exclusive_scan(v, total, blockDim.x);
}
template <class I, class V>
__device__ V scope_exclusive_scan(const ThreadVectorRangeBoundariesStruct<I>&, const V& v,
                                  V& total) {
  return lightning::jit::vector_exclusive_scan(v, total);
}
template <class I, class V>
__device__ V scope_exclusive_scan(const TeamVectorRangeBoundariesStruct<I>&, const V& v, V& total) {
  return lightning::jit::team_exclusive_scan(v, total, 1);
}

/// Calls `f(i)` for this thread's indices of `r`.
template <class Range, class F>
__device__ void for_each_index(const Range& r, const F& f) {
  using I = typename Range::index_type;
  const I step = index_step(r);
  for (I i = first_index(r); i < r.end; i += step) f(i);
}

}  // namespace Impl

// Nested MD ranges (Kokkos 4's TeamThreadMDRange, ThreadVectorMDRange, TeamVectorMDRange):
// the product of the extents as one nested range of the same scope, each flat index split
// into indices with the last fastest (Iterate::Left: the first), as on Kokkos' host back-ends.
// parallel_reduce sums into a value, which every thread of the scope gets.
namespace Impl {

template <class Flat, unsigned N, Iterate Direction>
struct MDRangeBase {
  static_assert(N >= 1 && N <= 8, "nested MD ranges have 1 to 8 indices");
  using flat_range = Flat;
  static constexpr unsigned total_nest_level = N;
  const lightning::TeamMember& team;
  int boundaries[N];

  template <class... Args>
  __device__ MDRangeBase(const lightning::TeamMember& t, Args... args)
      : team(t), boundaries{static_cast<int>(args)...} {
    static_assert(sizeof...(Args) == N, "one extent per index of the MD range");
  }
  __device__ Flat flat() const {
    long long count = 1;
    for (unsigned a = 0; a < N; ++a) count *= boundaries[a] > 0 ? boundaries[a] : 0;
    return {team, 0, count};
  }
  __device__ void split(long long flat, int (&index)[N]) const {
    for (unsigned k = 0; k < N; ++k) {
      const unsigned a = Direction == Iterate::Left ? k : N - 1 - k;
      index[a] = static_cast<int>(flat % boundaries[a]);
      flat /= boundaries[a];
    }
  }
};

/// Whether T is a nested MD range.
template <class T, class = void>
struct is_md_range {
  static constexpr bool value = false;
};
template <class T>
struct is_md_range<T, lightning::jit::void_t<typename T::flat_range>> {
  static constexpr bool value = true;
};

template <unsigned N, class F, class... V>
__device__ void call_with_indices(const F& f, const int (&i)[N], V&... v) {
  if constexpr (N == 1)
    f(i[0], v...);
  else if constexpr (N == 2)
    f(i[0], i[1], v...);
  else if constexpr (N == 3)
    f(i[0], i[1], i[2], v...);
  else if constexpr (N == 4)
    f(i[0], i[1], i[2], i[3], v...);
  else if constexpr (N == 5)
    f(i[0], i[1], i[2], i[3], i[4], v...);
  else if constexpr (N == 6)
    f(i[0], i[1], i[2], i[3], i[4], i[5], v...);
  else if constexpr (N == 7)
    f(i[0], i[1], i[2], i[3], i[4], i[5], i[6], v...);
  else
    f(i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], v...);
}

/// `f` as the body of the MD range `r`'s flat range: a flat index split into `f`'s indices,
/// then `f(i0, ..., v...)`.
template <class MD, class F>
__device__ auto split_indices(const MD& r, const F& f) {
  return [&r, &f](const long long t, auto&... v) {
    int index[MD::total_nest_level];
    r.split(t, index);
    call_with_indices<MD::total_nest_level>(f, index, v...);
  };
}

}  // namespace Impl

template <class Rank, class TeamHandle>
struct TeamThreadMDRange;
template <unsigned N, Iterate O, Iterate I, class TeamHandle>
struct TeamThreadMDRange<Rank<N, O, I>, TeamHandle>
    : Impl::MDRangeBase<Impl::TeamThreadRangeBoundariesStruct<long long>, N, O> {
  using Impl::MDRangeBase<Impl::TeamThreadRangeBoundariesStruct<long long>, N, O>::MDRangeBase;
};
template <class Rank, class TeamHandle>
struct ThreadVectorMDRange;
template <unsigned N, Iterate O, Iterate I, class TeamHandle>
struct ThreadVectorMDRange<Rank<N, O, I>, TeamHandle>
    : Impl::MDRangeBase<Impl::ThreadVectorRangeBoundariesStruct<long long>, N, O> {
  using Impl::MDRangeBase<Impl::ThreadVectorRangeBoundariesStruct<long long>, N, O>::MDRangeBase;
};
template <class Rank, class TeamHandle>
struct TeamVectorMDRange;
template <unsigned N, Iterate O, Iterate I, class TeamHandle>
struct TeamVectorMDRange<Rank<N, O, I>, TeamHandle>
    : Impl::MDRangeBase<Impl::TeamVectorRangeBoundariesStruct<long long>, N, O> {
  using Impl::MDRangeBase<Impl::TeamVectorRangeBoundariesStruct<long long>, N, O>::MDRangeBase;
};
template <class TeamHandle, class... Args>
TeamThreadMDRange(const TeamHandle&, Args...)
    -> TeamThreadMDRange<Rank<sizeof...(Args)>, TeamHandle>;
template <class TeamHandle, class... Args>
ThreadVectorMDRange(const TeamHandle&, Args...)
    -> ThreadVectorMDRange<Rank<sizeof...(Args)>, TeamHandle>;
template <class TeamHandle, class... Args>
TeamVectorMDRange(const TeamHandle&, Args...)
    -> TeamVectorMDRange<Rank<sizeof...(Args)>, TeamHandle>;

// parallel_for: ranks step by the team size, lanes by the vector length, both by the team's
// threads; a vector range ends with its lanes in step (__syncwarp), as in Kokkos.
template <class I, class F>
__device__ void parallel_for(const Impl::TeamThreadRangeBoundariesStruct<I>& r, const F& f) {
  Impl::for_each_index(r, f);
}
template <class I, class F>
__device__ void parallel_for(const Impl::ThreadVectorRangeBoundariesStruct<I>& r, const F& f) {
  Impl::for_each_index(r, f);
  __syncwarp(lightning::jit::vector_mask());
}
template <class I, class F>
__device__ void parallel_for(const Impl::TeamVectorRangeBoundariesStruct<I>& r, const F& f) {
  Impl::for_each_index(r, f);
}

// parallel_reduce over any nested range: into a value (a sum, each thread starting from a
// value-initialised one) or through a reducer; every thread of the range's scope gets the
// result.
template <class Range, class F, class V>
__device__ lightning::jit::enable_if_t<!lightning::jit::is_reducer<V>::value> parallel_reduce(
    const Range& r, const F& f, V& result) {
  if constexpr (Impl::is_md_range<Range>::value) {
    parallel_reduce(r.flat(), Impl::split_indices(r, f), result);
  } else {
    using I = typename Range::index_type;
    V v = V();
    Impl::for_each_index(r, [&](const I i) { f(i, v); });
    result = Impl::scope_join(r, v, Impl::SumJoin<V>());
  }
}
template <class Range, class F, class R>
__device__ lightning::jit::enable_if_t<lightning::jit::is_reducer<R>::value> parallel_reduce(
    const Range& r, const F& f, const R& reducer) {
  static_assert(!Impl::is_md_range<Range>::value,
                "parallel_reduce over a nested MD range sums into a value (no reducers, as in "
                "Kokkos)");
  using I = typename Range::index_type;
  using V = typename R::value_type;
  V v;
  reducer.init(v);
  Impl::for_each_index(r, [&](const I i) { f(i, v); });
  reducer.reference() = Impl::scope_join(r, v, [&](V& d, const V& s) { reducer.join(d, s); });
}

// parallel_scan `f(i, partial, final)` over any nested range: partial enters as the sum of the
// contributions of the indices before i; in rounds of as many indices as the scope has
// threads. The overload with `total` also returns the sum of all contributions.
template <class Range, class F, class V>
__device__ void parallel_scan(const Range& r, const F& f, V& total) {
  using I = typename Range::index_type;
  V carry = V();
  const I step = Impl::index_step(r);
  const I offset = Impl::first_index(r) - r.start;
  for (I base = r.start; base < r.end; base += step) {
    const I i = base + offset;
    V v = V();
    if (i < r.end) f(i, v, false);
    V round;
    V prefix = carry + Impl::scope_exclusive_scan(r, v, round);
    if (i < r.end) f(i, prefix, true);
    carry += round;
  }
  total = carry;
}
template <class Range, class F>
__device__ void parallel_scan(const Range& r, const F& f) {
  typename lightning::jit::ScanValue<F>::type total;
  parallel_scan(r, f, total);
}

// parallel_for over any nested MD range (the range's own type deduced from its base): its flat
// range's, each flat index split.
template <class Flat, unsigned N, Iterate D, class F>
__device__ void parallel_for(const Impl::MDRangeBase<Flat, N, D>& r, const F& f) {
  parallel_for(r.flat(), Impl::split_indices(r, f));
}

// single: the team's first thread (PerTeam) or a rank's first lane (PerThread); with a value,
// every thread of the scope gets it.
template <class F>
__device__ void single(const Impl::ThreadSingleStruct&, const F& f) {
  if (threadIdx.x == 0 && threadIdx.y == 0) f();
}
template <class F, class T>
__device__ void single(const Impl::ThreadSingleStruct& s, const F& f, T& value) {
  if (threadIdx.x == 0 && threadIdx.y == 0) f(value);
  s.member.team_broadcast(value, 0);
}
template <class F>
__device__ void single(const Impl::VectorSingleStruct&, const F& f) {
  if (threadIdx.x == 0) f();
}
template <class F, class T>
__device__ void single(const Impl::VectorSingleStruct&, const F& f, T& value) {
  if (threadIdx.x == 0) f(value);
  value =
      lightning::jit::shfl(lightning::jit::vector_mask(), value, 0, static_cast<int>(blockDim.x));
}

}  // namespace Kokkos

#endif  // __CUDACC_RTC__
