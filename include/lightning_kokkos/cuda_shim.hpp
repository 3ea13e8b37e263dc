// The CUDA shim: a ported CUDA kernel's source built by the host compiler, so that the kernel
// also runs on emulated host devices (a laptop, CI) with the results it gives on a GPU.
//
//   // hotspot_kernels.cpp: the translation unit that registers the kernel
//   #include "lightning_kokkos/cuda_shim.hpp"
//   #include "hotspot.cu"                       // the same file NVRTC compiles for GPUs
//   const lightning::CudaKernel hotspot("hotspot", hotspot_source, "hotspot", params,
//                                       annotation, lightning::on_host<hotspot>());
//
// What it provides: __device__, __host__, __global__, __forceinline__, __launch_bounds__ and
// __restrict__ (accepted and ignored), __shared__ variables, dim3/uint3, threadIdx, blockIdx
// (for __device__ helpers: the kernel's function takes it as its parameter), blockDim,
// gridDim and warpSize, __syncthreads(), atomicAdd/Sub/Min/Max/Exch/CAS on 32- and 64-bit
// integers and atomicAdd on float and double, min/max, rsqrtf, the __expf kind of fast
// math, __ldg, and CUDA's vector types with make_int2 ... make_double3. Dynamic shared memory
// is declared with `LIGHTNING_DYNAMIC_SHARED(float, tile);` (CUDA's `extern __shared__ float
// tile[];`, which host C++ cannot express). Warp intrinsics: __syncwarp, __shfl_sync and its
// up/down/xor forms, __ballot_sync, __all_sync, __any_sync and __activemask (every lane the
// block has: the shim cannot see divergence). Not provided: textures, __constant__ memory,
// cooperative groups, the sm_80 __reduce_*_sync.
//
// How it runs: the threads of a block are threads of the host (one per CUDA thread, at most
// 1024), meeting at __syncthreads(); the blocks of a superblock run one after the other.
// __shared__ variables are function statics, so the blocks of every ported kernel of the
// process run one at a time. Slow (a barrier costs microseconds, not nanoseconds), but it
// gives the kernel CUDA's semantics: it is for testing and for machines without a GPU.
// Threads of a block that leave the kernel while others wait at a __syncthreads() fail the
// launch with an error (on a GPU such a kernel hangs or misbehaves).
//
// Include it only in translation units that hold CUDA source: it defines CUDA's names
// (threadIdx, dim3, __syncthreads, ...) in the global namespace.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#error "lightning_kokkos/cuda_shim.hpp is for the host compiler; GPU code needs no shim"
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "lightning_kokkos/cuda_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/device_array.hpp"
#include "lightning_kokkos/device/ported_launch.hpp"
#include "lightning_kokkos/device/vector_types.hpp"
#include "lightning_kokkos/internal/kernel/host_team.hpp"
#include "lightning_kokkos/internal/kernel/packed_parameters.hpp"

// CUDA source that nvcc takes silently: int compared with threadIdx's unsigned. (GCC cannot
// silence `#pragma unroll` from here: build such sources with -Wno-unknown-pragmas.)
#pragma GCC diagnostic ignored "-Wsign-compare"

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static
#define LIGHTNING_DYNAMIC_SHARED(type, name) \
  type* const name = static_cast<type*>(::lightning::shim::dynamic_shared())

/// CUDA's index triples.
struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}  // NOLINT: as CUDA's
  constexpr operator uint3() const { return {x, y, z}; }
};

namespace lightning::shim {

/// What one host thread, running one CUDA thread, sees of its launch.
struct ThreadState {
  uint3 thread{0, 0, 0};
  uint3 block{0, 0, 0};  ///< in the whole grid: what helpers read as blockIdx
  int rank = 0;          ///< the thread's linear index in its block (x fastest, as CUDA's)
  dim3 block_dim;
  dim3 grid_dim;
  kernel::HostTeam* team = nullptr;
  void* dynamic_shared = nullptr;
};
inline thread_local ThreadState current;

inline void* dynamic_shared() {
  return current.dynamic_shared;
}

/// Runs `block(index)` for every block of `superblock` of `launch`, with the threads of a
/// block as host threads: `enter(rank, team)` sets a thread's ThreadState first. Blocks of
/// every ported kernel of the process run one at a time (their __shared__ are statics).
void run_blocks(const jit::PortedLaunch& launch, const Rect& superblock,
                const std::function<void(int rank, kernel::HostTeam& team)>& enter,
                const std::function<void(const dim3& index)>& block);

/// A ported kernel's function `F(dim3 blockIdx, P...)` as a kernel::HostEntry: reads the
/// parameters from the packed bytes (kernel/packed_parameters.hpp), folds each array's
/// chunk offset into its data (as for GPUs), and runs the superblock's blocks.
template <class Function>
struct HostCall;
template <class... P>
struct HostCall<void (*)(dim3, P...)> {
  using Args = std::tuple<std::decay_t<P>...>;

  template <class T>
  static constexpr size_t alignment() {
    if constexpr (std::is_arithmetic_v<T>)
      return sizeof(T);
    else
      return kernel::kPackedArrayAlignment;
  }
  static constexpr std::array<size_t, sizeof...(P) + 1> offsets() {
    std::array<size_t, sizeof...(P) + 1> at{};
    size_t end = 0, i = 0;
    ((at[i] = kernel::packed_offset(end, alignment<std::decay_t<P>>()),
      end = at[i++] + sizeof(std::decay_t<P>)),
     ...);
    at[i] = kernel::packed_launch_offset(end);
    return at;
  }

  template <class T>
  static T load(const unsigned char* at) {
    T value;
    std::memcpy(static_cast<void*>(&value), at, sizeof(T));
    // A checked handle (checked mode) has no data: its offset is its CheckedRegion.
    if constexpr (!std::is_arithmetic_v<T>) {
      if (value.handle.data == nullptr) return value;
      using E = typename T::value_type;
      const uint64_t folded = folded_data(reinterpret_cast<uint64_t>(value.handle.data),
                                          value.handle.offset, sizeof(E));
      value.handle.data = reinterpret_cast<E*>(folded);
      value.handle.offset = 0;
    }
    return value;
  }

  template <auto F, size_t... I>
  static void run(const unsigned char* bytes, const Rect& superblock, std::index_sequence<I...>) {
    constexpr auto at = offsets();
    const Args args{load<std::tuple_element_t<I, Args>>(bytes + at[I])...};
    jit::PortedLaunch launch{};
    std::memcpy(&launch, bytes + at[sizeof...(P)], sizeof(launch));
    const dim3 block_dim(launch.block[0], launch.block[1], launch.block[2]);
    const dim3 grid_dim(launch.grid[0], launch.grid[1], launch.grid[2]);
    run_blocks(
        launch, superblock,
        [&](int rank, kernel::HostTeam& team) {
          const unsigned r = static_cast<unsigned>(rank);
          current.thread = {r % block_dim.x, r / block_dim.x % block_dim.y,
                            r / (block_dim.x * block_dim.y)};
          current.rank = rank;
          current.block_dim = block_dim;
          current.grid_dim = grid_dim;
          current.team = &team;
          current.dynamic_shared = team.scratch(0);
        },
        [&](const dim3& index) {
          current.block = index;
          F(index, std::get<I>(args)...);
        });
  }

  template <class T>
  static CudaParam param() {
    if constexpr (std::is_arithmetic_v<T>)
      return CudaParam::scalar<T>("");
    else
      return CudaParam::array<typename T::value_type>("", T::rank);
  }
};

template <auto F>
void run_on_host(const void* bytes, const Rect& superblock, void*) {
  using Call = HostCall<decltype(F)>;
  Call::template run<F>(static_cast<const unsigned char*>(bytes), superblock,
                        std::make_index_sequence<std::tuple_size_v<typename Call::Args>>());
}

template <class... P>
std::vector<CudaParam> params_of(void (*)(dim3, P...)) {
  return {HostCall<void (*)(dim3, P...)>::template param<std::decay_t<P>>()...};
}

}  // namespace lightning::shim

namespace lightning {
/// The host code of a ported kernel whose __device__ function is `F` (compiled here through
/// the shim): pass it as the last argument of CudaKernel's constructor.
template <auto F>
PortedHostCode on_host() {
  static_assert(std::is_pointer_v<decltype(F)>, "on_host<f>: f is the kernel's function");
  return {&shim::run_on_host<F>, shim::params_of(F)};
}
}  // namespace lightning

// CUDA's built-in variables and functions.
inline thread_local const uint3& threadIdx = lightning::shim::current.thread;
// The kernel's function takes blockIdx as its parameter; __device__ helpers read this one.
inline thread_local const uint3& blockIdx = lightning::shim::current.block;
inline thread_local const dim3& blockDim = lightning::shim::current.block_dim;
inline thread_local const dim3& gridDim = lightning::shim::current.grid_dim;
inline constexpr int warpSize = 32;

inline void __syncthreads() {
  lightning::shim::current.team->barrier(lightning::kernel::HostTeam::Barrier::kInKernel,
                                         lightning::shim::current.rank);
}

// Warp intrinsics: the lanes of a mask meet at a warp barrier of the block's team (warps are
// 32 consecutive linear thread indices, as in CUDA) and exchange values through the team's
// slots. A lane of the mask that is elsewhere fails the launch (HostTeam::warp_barrier).
namespace lightning::shim {
inline int lane_id() {
  return current.rank % 32;
}
/// The lanes the block has in the caller's warp.
inline unsigned warp_lanes() {
  return current.team->warp_lanes(current.rank);
}
/// The value `var` of the lane `source` returns (its own value when `source` < 0).
template <class T>
T exchange_in_warp(unsigned mask, const T& var, int source) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kernel::HostTeam::kExchangeBytes,
                "warp shuffles move trivially copyable values of up to 1 KiB");
  kernel::HostTeam& team = *current.team;
  std::memcpy(team.slot(current.rank), &var, sizeof(T));
  team.warp_barrier(current.rank, mask, kernel::HostTeam::WarpOp::kShuffle);
  T out = var;
  const int from = current.rank - lane_id() + source;
  if (source >= 0 && from < team.size() && (mask >> source & 1u))
    std::memcpy(static_cast<void*>(&out), team.slot(from), sizeof(T));
  // every lane has read before slots change
  team.warp_barrier(current.rank, mask, kernel::HostTeam::WarpOp::kShuffle);
  return out;
}
/// Lanes of `mask` whose `predicate` holds, as a ballot.
inline unsigned ballot_in_warp(unsigned mask, int predicate) {
  kernel::HostTeam& team = *current.team;
  const int self = predicate != 0;
  std::memcpy(team.slot(current.rank), &self, sizeof self);
  team.warp_barrier(current.rank, mask, kernel::HostTeam::WarpOp::kVote);
  unsigned votes = 0;
  const int base = current.rank - lane_id();
  for (int l = 0; l < 32 && base + l < team.size(); ++l) {
    int vote = 0;
    std::memcpy(&vote, team.slot(base + l), sizeof vote);
    if ((mask >> l & 1u) && vote) votes |= 1u << l;
  }
  team.warp_barrier(current.rank, mask, kernel::HostTeam::WarpOp::kVote);
  return votes;
}
}  // namespace lightning::shim

inline void __syncwarp(unsigned mask = 0xffffffffu) {
  lightning::shim::current.team->warp_barrier(lightning::shim::current.rank, mask,
                                              lightning::kernel::HostTeam::WarpOp::kSyncwarp);
}
template <class T>
inline T __shfl_sync(unsigned mask, T var, int source, int width = 32) {
  const int lane = lightning::shim::lane_id();
  return lightning::shim::exchange_in_warp(mask, var,
                                           (lane & ~(width - 1)) + (source & (width - 1)));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  const int lane = lightning::shim::lane_id();
  const int in_segment = lane & (width - 1);
  return lightning::shim::exchange_in_warp(
      mask, var, in_segment >= static_cast<int>(delta) ? lane - static_cast<int>(delta) : -1);
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  const int lane = lightning::shim::lane_id();
  const int in_segment = lane & (width - 1);
  return lightning::shim::exchange_in_warp(
      mask, var,
      in_segment + static_cast<int>(delta) < width ? lane + static_cast<int>(delta) : -1);
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  const int lane = lightning::shim::lane_id();
  const int source = lane ^ lane_mask;
  // A lane may read earlier segments of `width` lanes, not later ones (its own value then).
  return lightning::shim::exchange_in_warp(mask, var,
                                           source < (lane & ~(width - 1)) + width ? source : -1);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return lightning::shim::ballot_in_warp(mask, predicate);
}
inline int __all_sync(unsigned mask, int predicate) {
  return lightning::shim::ballot_in_warp(mask, predicate) == (mask & lightning::shim::warp_lanes());
}
inline int __any_sync(unsigned mask, int predicate) {
  return lightning::shim::ballot_in_warp(mask, predicate) != 0;
}
/// Every lane the block has in the caller's warp: the shim cannot see divergence.
inline unsigned __activemask() {
  return lightning::shim::warp_lanes();
}
inline void __threadfence() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
inline void __threadfence_block() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

template <class T>
inline T __ldg(const T* p) {
  return *p;
}

// Atomics: integers through the compiler's builtins, floating point through compare-and-swap.
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
inline T atomicAdd(T* p, T v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
inline T atomicAdd(T* p, T v) {
  T old = *p;
  T sum = old + v;
  while (!__atomic_compare_exchange(p, &old, &sum, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
    sum = old + v;
  return old;
}
template <class T>
inline T atomicSub(T* p, T v) {
  return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
}
template <class T>
inline T atomicExch(T* p, T v) {
  return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}
template <class T>
inline T atomicCAS(T* p, T compare, T v) {
  __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;
}
template <class T>
inline T atomicMin(T* p, T v) {
  T old = *p;
  while (v < old &&
         !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
template <class T>
inline T atomicMax(T* p, T v) {
  T old = *p;
  while (old < v &&
         !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}

// CUDA's min and max take mixed integer types and floats alike.
template <class A, class B>
inline std::common_type_t<A, B> min(A a, B b) {
  return b < a ? b : a;
}
template <class A, class B>
inline std::common_type_t<A, B> max(A a, B b) {
  return a < b ? b : a;
}
inline float rsqrtf(float x) {
  return 1.0f / std::sqrt(x);
}
inline double rsqrt(double x) {
  return 1.0 / std::sqrt(x);
}
inline float __expf(float x) {
  return std::exp(x);
}
inline float __logf(float x) {
  return std::log(x);
}
inline float __powf(float x, float y) {
  return std::pow(x, y);
}
inline float __sinf(float x) {
  return std::sin(x);
}
inline float __cosf(float x) {
  return std::cos(x);
}
inline float __fdividef(float x, float y) {
  return x / y;
}
inline float __saturatef(float x) {
  return std::min(std::max(x, 0.0f), 1.0f);
}

// CUDA's vector types and their constructors.
using lightning::double2;
using lightning::double3;
using lightning::float2;
using lightning::float3;
using lightning::float4;
using lightning::int2;
using lightning::int4;
using lightning::uint2;
using lightning::uint4;
inline int2 make_int2(int x, int y) {
  return {x, y};
}
inline int4 make_int4(int x, int y, int z, int w) {
  return {x, y, z, w};
}
inline uint2 make_uint2(unsigned x, unsigned y) {
  return {x, y};
}
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) {
  return {x, y, z};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}
inline float2 make_float2(float x, float y) {
  return {x, y};
}
inline float3 make_float3(float x, float y, float z) {
  return {x, y, z};
}
inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}
inline double2 make_double2(double x, double y) {
  return {x, y};
}
inline double3 make_double3(double x, double y, double z) {
  return {x, y, z};
}
