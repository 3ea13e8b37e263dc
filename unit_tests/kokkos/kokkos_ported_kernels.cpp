// The ported CUDA kernels of the PortedBlocks tests (kokkos_ported_kernels.hpp): each source
// is both the text NVRTC compiles and code the CUDA shim builds here for host devices.
#include "kokkos_ported_kernels.hpp"

#include "lightning_kokkos/cuda_shim.hpp"

namespace lk_ported {

using lightning::CudaParam;

// A kernel's source, both as the text NVRTC compiles and as code the shim builds here.
#define LK_PORTED_SOURCE(text_name, ...)          \
  constexpr const char* text_name = #__VA_ARGS__; \
  __VA_ARGS__

// 8 x 4 blocks over a 2-D grid: each block reverses its tile through static shared memory.
LK_PORTED_SOURCE(
    kReverseSource, __device__ void reverse_tiles(dim3 blockIdx, lightning::Matrix<int> out,
                                                  const lightning::Matrix<int> in) {
      __shared__ int tile[4][8];
      const int x = blockIdx.x * blockDim.x + threadIdx.x;
      const int y = blockIdx.y * blockDim.y + threadIdx.y;
      tile[threadIdx.y][threadIdx.x] = in(y, x);
      __syncthreads();
      out(y, x) = tile[blockDim.y - 1 - threadIdx.y][blockDim.x - 1 - threadIdx.x];
    })

// The tile's extents as named constants (the kernel's macros would be), among the parameters.
const lightning::CudaKernel kReverse(
    "ported_test::reverse_tiles", kReverseSource, "reverse_tiles",
    {CudaParam::array<int>("out", 2), CudaParam::constant("TX", 8), CudaParam::array<int>("in", 2),
     CudaParam::constant("TY", 4)},
    "block [bx, by] => read in[by * TY : by * TY + TY - 1, bx * TX : bx * TX + TX - 1],"
    " write out[by * TY : by * TY + TY - 1, bx * TX : bx * TX + TX - 1]",
    lightning::on_host<reverse_tiles>());

// 1-D blocks: a tree sum in dynamic shared memory, atomics on shared memory, gridDim.
LK_PORTED_SOURCE(
    kBlockSumSource, __device__ void block_sums(dim3 blockIdx, lightning::Vector<long long> sums,
                                                const lightning::Vector<int> in) {
      LIGHTNING_DYNAMIC_SHARED(long long, partial);
      __shared__ int negatives;
      const int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (threadIdx.x == 0) negatives = 0;
      partial[threadIdx.x] = in[i];
      __syncthreads();
      if (in[i] < 0) atomicAdd(&negatives, 1);
      for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
      }
      if (threadIdx.x == 0)
        sums[blockIdx.x] = partial[0] + 1000000 * negatives + 1000000000LL * gridDim.x;
    })

const lightning::CudaKernel kBlockSums("ported_test::block_sums", kBlockSumSource, "block_sums",
                                       {CudaParam::array<long long>("sums", 1),
                                        CudaParam::array<int>("in", 1)},
                                       "block b, local t => read in[b * 64 + t], write sums[b]",
                                       lightning::on_host<block_sums>());

// 3-D blocks over a 3-D grid: every thread writes where it is.
LK_PORTED_SOURCE(
    kWhereSource, __device__ void where(dim3 blockIdx, lightning::Tensor<int> out) {
      const int x = blockIdx.x * blockDim.x + threadIdx.x;
      const int y = blockIdx.y * blockDim.y + threadIdx.y;
      const int z = blockIdx.z * blockDim.z + threadIdx.z;
      out(z, y, x) = x + 100 * y + 10000 * z + 1000000 * (threadIdx.x + 4 * threadIdx.y);
    })

const lightning::CudaKernel kWhere("ported_test::where", kWhereSource, "where",
                                   {CudaParam::array<int>("out", 3)},
                                   "global [x, y, z] => write out[z, y, x]",
                                   lightning::on_host<where>());

// The same kernel, annotated by blocks and threads on all three axes (blocks of 4 x 2 x 2).
const lightning::CudaKernel kWhereByBlocks(
    "ported_test::where_by_blocks", kWhereSource, "where",
    {CudaParam::array<int>("out", 3), CudaParam::constant("BX", 4), CudaParam::constant("BY", 2),
     CudaParam::constant("BZ", 2)},
    "block [bx, by, bz], local [tx, ty, tz] => write out[bz * BZ + tz, by * BY + ty, bx * BX + tx]",
    lightning::on_host<where>());

// The indices come from a __device__ helper that reads blockIdx itself, as cuda-samples' and
// Rodinia's helpers do: it must see the block in the whole grid, not in the superblock.
LK_PORTED_SOURCE(
    kHelperSource,
    __device__ int2 cell() {
      return make_int2(blockIdx.x * blockDim.x + threadIdx.x,
                       blockIdx.y * blockDim.y + threadIdx.y);
    } __device__ void from_helper(dim3 blockIdx, lightning::Matrix<int> out) {
      const int2 c = cell();
      out(c.y, c.x) = c.x + 1000 * c.y + 1000000 * (blockIdx.x + 10 * blockIdx.y);
    })

const lightning::CudaKernel kFromHelper("ported_test::from_helper", kHelperSource, "from_helper",
                                        {CudaParam::array<int>("out", 2)},
                                        "global [x, y] => write out[y, x]",
                                        lightning::on_host<from_helper>());

// Warp intrinsics: a shuffle-down sum, a butterfly max, an inclusive shuffle-up scan and a
// ballot, per warp, into out[i] (4 values per thread). Blocks of 48 threads: a partial warp.
LK_PORTED_SOURCE(
    kWarpSource, __device__ void warp_ops(dim3 blockIdx, lightning::Matrix<int> out,
                                          const lightning::Vector<int> in) {
      const int i = blockIdx.x * blockDim.x + threadIdx.x;
      const unsigned lanes = __activemask();
      const int v = in[i];
      // Lanes past the block's last thread hold nothing: values from them are not used.
      const int lane = threadIdx.x % 32, count = min(32, blockDim.x - threadIdx.x / 32 * 32);
      int sum = v;
      for (int o = 16; o > 0; o /= 2) {
        const int other = __shfl_down_sync(lanes, sum, o);
        if (lane + o < count) sum += other;
      }
      sum = __shfl_sync(lanes, sum, 0);
      int top = v;
      for (int o = 1; o < 32; o *= 2) {
        const int other = __shfl_xor_sync(lanes, top, o);
        if ((lane ^ o) < count) top = max(top, other);
      }
      int scan = v;
      for (int o = 1; o < 32; o *= 2) {
        const int up = __shfl_up_sync(lanes, scan, o);
        if (threadIdx.x % 32 >= o) scan += up;
      }
      const unsigned odd = __ballot_sync(lanes, v % 2 != 0);
      __syncwarp(lanes);
      out(i, 0) = sum;
      out(i, 1) = top;
      out(i, 2) = scan;
      out(i, 3) = static_cast<int>(odd & 0xffffu) + (__all_sync(lanes, v % 3 != 0) ? 1 << 20 : 0) +
                  (__any_sync(lanes, v > 1000) ? 1 << 21 : 0);
    })

const lightning::CudaKernel kWarpOps("ported_test::warp_ops", kWarpSource, "warp_ops",
                                     {CudaParam::array<int>("out", 2),
                                      CudaParam::array<int>("in", 1)},
                                     "global i => read in[i], write out[i, :]",
                                     lightning::on_host<warp_ops>());

// Lane 0 leaves; the others wait for it at a __syncwarp.
LK_PORTED_SOURCE(
    kWarpLeaverSource, __device__ void warp_leaver(dim3 blockIdx, lightning::Vector<int> out) {
      if (threadIdx.x == 0) return;
      __syncwarp();
      out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
    })

const lightning::CudaKernel kWarpLeaver("ported_test::warp_leaver", kWarpLeaverSource,
                                        "warp_leaver", {CudaParam::array<int>("out", 1)},
                                        "global i => write out[i]",
                                        lightning::on_host<warp_leaver>());

// Lanes that diverge, one half to a shuffle and the other to a vote, each with the mask
// __activemask() gives: right on a GPU (each branch among its own lanes); the shim, whose
// __activemask() cannot see divergence, must refuse it rather than pair the two intrinsics.
LK_PORTED_SOURCE(
    kDivergentSource, __device__ void divergent(dim3 blockIdx, lightning::Vector<int> out) {
      const int i = blockIdx.x * blockDim.x + threadIdx.x;
      int v = i;
      if (threadIdx.x < 16)
        v += __shfl_xor_sync(__activemask(), v, 1);
      else
        v += __ballot_sync(__activemask(), v % 2 != 0) != 0 ? 1 : 0;
      out[i] = v;
    })

const lightning::CudaKernel kDivergent("ported_test::divergent", kDivergentSource, "divergent",
                                       {CudaParam::array<int>("out", 1)},
                                       "global i => write out[i]", lightning::on_host<divergent>());

// Thread 0 leaves before the barrier the others wait at.
LK_PORTED_SOURCE(
    kLeaverSource, __device__ void leaver(dim3 blockIdx, lightning::Vector<int> out) {
      if (threadIdx.x == 0) return;
      __syncthreads();
      out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
    })

const lightning::CudaKernel kLeaver("ported_test::leaver", kLeaverSource, "leaver",
                                    {CudaParam::array<int>("out", 1)}, "global i => write out[i]",
                                    lightning::on_host<leaver>());

// Reads in[i + 1] under `read in[i]`: checked mode finds it on every device.
LK_PORTED_SOURCE(
    kReadsAheadSource, __device__ void reads_ahead(dim3 blockIdx, lightning::Vector<float> out,
                                                   const lightning::Vector<float> in, int n) {
      const int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = in[i] + (i + 1 < n ? in[i + 1] : 0.0f);
    })

const lightning::CudaKernel kReadsAhead("ported_test::reads_ahead", kReadsAheadSource,
                                        "reads_ahead",
                                        {CudaParam::array<float>("out", 1),
                                         CudaParam::array<float>("in", 1),
                                         CudaParam::scalar<int>("n")},
                                        "global i => read in[i], write out[i]",
                                        lightning::on_host<reads_ahead>());

// CUDA's tile transpose: 32 x 32 tiles through shared memory (a column of padding against
// bank conflicts) in blocks of 32 x 8 threads, each thread moving four rows of its tile.
// Edges of any size: the grid covers the matrix, threads outside it do nothing.
LK_PORTED_SOURCE(
    kTransposeSource,
    __device__ void transpose_tiles(dim3 blockIdx, lightning::Matrix<float> out,
                                    const lightning::Matrix<float> in, int rows, int cols) {
      __shared__ float tile[32][33];
      const int x = blockIdx.x * 32 + threadIdx.x;
      for (int j = 0; j < 32; j += 8) {
        const int y = blockIdx.y * 32 + threadIdx.y + j;
        if (x < cols && y < rows) tile[threadIdx.y + j][threadIdx.x] = in(y, x);
      }
      __syncthreads();
      const int out_col = blockIdx.y * 32 + threadIdx.x;
      for (int j = 0; j < 32; j += 8) {
        const int out_row = blockIdx.x * 32 + threadIdx.y + j;
        if (out_col < rows && out_row < cols)
          out(out_row, out_col) = tile[threadIdx.x][threadIdx.y + j];
      }
    })

// Thread (tx, ty) of block (bx, by) reads rows ty, ty + 8, ... of its tile's column tx (a
// slice over them) and writes the same of the transposed tile.
const lightning::CudaKernel kTransposeTiles(
    "ported_test::transpose_tiles", kTransposeSource, "transpose_tiles",
    {CudaParam::array<float>("out", 2), CudaParam::array<float>("in", 2),
     CudaParam::scalar<int>("rows"), CudaParam::scalar<int>("cols")},
    "block [bx, by], local [tx, ty] => read in[by * 32 + ty : by * 32 + ty + 24, bx * 32 + tx],"
    " write out[bx * 32 + ty : bx * 32 + ty + 24, by * 32 + tx]",
    lightning::on_host<transpose_tiles>());

// Blocks of 1024 threads, as many as a block may have: a tree sum in static shared memory.
LK_PORTED_SOURCE(
    kBlockSum1024Source, __device__ void __launch_bounds__(1024)
                             block_sum_1024(dim3 blockIdx, lightning::Vector<long long> sums,
                                            const lightning::Vector<int> in, int n) {
                               __shared__ long long partial[1024];
                               const int i = blockIdx.x * blockDim.x + threadIdx.x;
                               partial[threadIdx.x] = i < n ? in[i] : 0;
                               __syncthreads();
                               for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
                                 if (threadIdx.x < s)
                                   partial[threadIdx.x] += partial[threadIdx.x + s];
                                 __syncthreads();
                               }
                               if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
                             })

const lightning::CudaKernel kBlockSum1024(
    "ported_test::block_sum_1024", kBlockSum1024Source, "block_sum_1024",
    {CudaParam::array<long long>("sums", 1), CudaParam::array<int>("in", 1),
     CudaParam::scalar<int>("n")},
    "block b, local t => read in[b * 1024 + t], write sums[b]",
    lightning::on_host<block_sum_1024>());

// A histogram: each block counts its values in dynamic shared memory (shared atomics), then
// adds its counts to the global histogram with global atomics.
LK_PORTED_SOURCE(
    kHistogramSource, __device__ void histogram(dim3 blockIdx, lightning::Vector<int> hist,
                                                const lightning::Vector<int> in, int n, int bins) {
      LIGHTNING_DYNAMIC_SHARED(int, counts);
      for (int k = threadIdx.x; k < bins; k += blockDim.x) counts[k] = 0;
      __syncthreads();
      const int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) atomicAdd(&counts[in[i]], 1);
      __syncthreads();
      for (int k = threadIdx.x; k < bins; k += blockDim.x)
        if (counts[k] != 0) atomicAdd(&hist[k], counts[k]);
    })

// The bins a block adds to depend on the data: every bin, as a reduction (each superblock
// adds into its own partial histogram, which the runtime folds into `hist`) ...
const lightning::CudaKernel kHistogramReduce(
    "ported_test::histogram_reduce", kHistogramSource, "histogram",
    {CudaParam::array<int>("hist", 1), CudaParam::array<int>("in", 1), CudaParam::scalar<int>("n"),
     CudaParam::scalar<int>("bins")},
    "global i => read in[i], reduce(+) hist[:]", lightning::on_host<histogram>());
// ... or read and written (superblocks then take turns with the whole histogram).
const lightning::CudaKernel kHistogramReadwrite(
    "ported_test::histogram_readwrite", kHistogramSource, "histogram",
    {CudaParam::array<int>("hist", 1), CudaParam::array<int>("in", 1), CudaParam::scalar<int>("n"),
     CudaParam::scalar<int>("bins")},
    "global i => read in[i], readwrite hist[:]", lightning::on_host<histogram>());

// A sum across blocks: each block sums in shared memory, then adds its sum to one global
// element with an atomic (each superblock into its own partial, which the runtime folds).
LK_PORTED_SOURCE(
    kSumAllSource, __device__ void sum_all(dim3 blockIdx, lightning::Vector<int> total,
                                           const lightning::Vector<int> in, int n) {
      __shared__ int block_sum;
      if (threadIdx.x == 0) block_sum = 0;
      __syncthreads();
      const int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) atomicAdd(&block_sum, in[i]);
      __syncthreads();
      if (threadIdx.x == 0) atomicAdd(&total[0], block_sum);
    })

const lightning::CudaKernel kSumAll("ported_test::sum_all", kSumAllSource, "sum_all",
                                    {CudaParam::array<int>("total", 1),
                                     CudaParam::array<int>("in", 1), CudaParam::scalar<int>("n")},
                                    "global i => read in[i], reduce(+) total[0]",
                                    lightning::on_host<sum_all>());

// An annotation binding two local axes: right for a 2-D launch, refused for a 1-D one.
LK_PORTED_SOURCE(
    kFillOnesSource, __device__ void fill_ones(dim3 blockIdx, lightning::Vector<int> out) {
      out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
    })

const lightning::CudaKernel kTwoLocalAxes("ported_test::two_local_axes", kFillOnesSource,
                                          "fill_ones", {CudaParam::array<int>("out", 1)},
                                          "block b, local [t, u] => write out[b * 32 + t]",
                                          lightning::on_host<fill_ones>());

}  // namespace lk_ported
