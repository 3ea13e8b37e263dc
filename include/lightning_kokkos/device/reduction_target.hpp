// How a reduction kernel ends on the GPU: each block writes its partial, and the last block
// to finish joins them into the launch's value, so no host function and no copy to the host
// sits between a reduction and what follows it on the stream. Compiled by the host compiler
// (the parameter's layout) and, as text, by NVRTC: plain C++, no library.
#pragma once

#include <cstdint>

namespace lightning::jit {

/// The fourth parameter of a range reduction's entry point (an array reduction's is its
/// value's size in bytes, and it joins its partials on the host):
///   extern "C" __global__ void entry(Functor f, LaunchBox box, void* partials,
///                                    ReductionTarget target)
/// Block b writes its partial to `partials[b]`; the last block to finish (counted in
/// `blocks_done`, which is zero at the start and which that block sets back to zero) joins
/// them into `result`. The layout is fixed (16 bytes): host and device must agree on it.
struct ReductionTarget {
  void* result;
  unsigned* blocks_done;
};

static_assert(sizeof(ReductionTarget) == 16, "ReductionTarget is passed as raw parameter bytes");

#if defined(__CUDACC_RTC__)

/// Called by every thread of the block once its first thread has written the block's
/// partial: whether this block is the grid's last to get here. The last block then sees every
/// other block's partial (read them with load_from_l2).
__device__ inline bool last_block_to_finish(unsigned* blocks_done) {
  __shared__ bool last;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    __threadfence();  // this block's partial before its count
    last = atomicAdd(blocks_done, 1u) == gridDim.x * gridDim.y * gridDim.z - 1;
  }
  __syncthreads();
  if (last) __threadfence();
  return last;
}

/// A value another block of the launch wrote before its __threadfence(), read from L2
/// (ld.global.cg, by 32-bit words where T allows, else by bytes): this multiprocessor's L1
/// may hold an older copy.
template <class T>
__device__ T load_from_l2(const T* p) {
  T v;
  unsigned char* out = reinterpret_cast<unsigned char*>(&v);
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
#pragma unroll
    for (unsigned k = 0; k < sizeof(T) / 4; ++k) {
      const unsigned word = __ldcg(reinterpret_cast<const unsigned*>(p) + k);
#pragma unroll
      for (unsigned b = 0; b < 4; ++b) out[4 * k + b] = static_cast<unsigned char>(word >> (8 * b));
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < sizeof(T); ++k)
      out[k] = __ldcg(reinterpret_cast<const unsigned char*>(p) + k);
  }
  return v;
}

#endif  // __CUDACC_RTC__

}  // namespace lightning::jit
