// Ported CUDA kernels of any block shape, with shared memory and barriers: on host devices
// through the CUDA shim, on GPUs through NVRTC (the same source text), each against a
// sequential reference; and the errors of kernels that break CUDA's rules.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <string>

#include "kokkos_test_kernels.hpp"
#include "lightning_kokkos/cuda_shim.hpp"

namespace {

using lightning::CudaParam;
using lk_test::LView;
using lk_test::to_host;

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

bool on_gpus() {
  return lk_test::on_gpus();
}

TEST(PortedBlocks, CheckedModeFindsAReadPastTheAnnotationOnEveryDevice) {
  if (!lightning::checks_accesses()) GTEST_SKIP() << "checked mode is off";
  const int n = 1024;
  LView<float*> in("samples", n), out("sums", n);
  Kokkos::deep_copy(in, 1.0f);
  kReadsAhead.launch(n / 256, 256, lightning::work::block(256), out, in, n);
  std::string e;
  try {
    lightning::fence();
  } catch (const lightning::Error& error) {
    e = error.what();
  }
  ASSERT_FALSE(e.empty()) << "an under-declared read passed in checked mode";
  EXPECT_NE(e.find("kernel 'ported_test::reads_ahead'"), std::string::npos) << e;
  EXPECT_NE(e.find("View 'samples' (parameter 'in'): element ("), std::string::npos) << e;
  EXPECT_NE(e.find("that the annotation declares to read"), std::string::npos) << e;
}

TEST(PortedBlocks, TwoDimensionalBlocksWithSharedMemoryMatchTheReference) {
  const int gx = 5, gy = 6, rows = gy * 4, cols = gx * 8;
  LView<int**> in("in", rows, cols), out("out", rows, cols);
  Kokkos::View<int**, Kokkos::HostSpace> h("h", rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) h(r, c) = 1000 * r + c;
  Kokkos::deep_copy(in, h);
  // Bands of two block rows, and tiles of 2 x 3 blocks: superblocks are boxes of blocks.
  for (const auto& work : {lightning::work::block(1, 8), lightning::work::tiles({16, 12})}) {
    Kokkos::deep_copy(out, 0);
    kReverse.launch({{gx, gy}, {8, 4}}, work, out, in);
    const auto got = to_host(out);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const int br = r / 4 * 4, bc = c / 8 * 8;
        ASSERT_EQ(got(r, c), h(br + 3 - (r - br), bc + 7 - (c - bc))) << r << "," << c;
      }
  }
}

TEST(PortedBlocks, DynamicSharedMemoryAtomicsAndGridDim) {
  const int blocks = 9, n = blocks * 64;
  LView<int*> in("in", n);
  LView<long long*> sums("sums", blocks);
  Kokkos::View<int*, Kokkos::HostSpace> h("h", n);
  for (int i = 0; i < n; ++i) h(i) = i % 7 == 3 ? -i : 2 * i;
  Kokkos::deep_copy(in, h);
  kBlockSums.launch({blocks, 64, 64 * sizeof(long long)}, lightning::work::block(3 * 64), sums, in);
  const auto got = to_host(sums);
  for (int b = 0; b < blocks; ++b) {
    long long sum = 0, negatives = 0;
    for (int i = b * 64; i < (b + 1) * 64; ++i) {
      sum += h(i);
      negatives += h(i) < 0;
    }
    EXPECT_EQ(got(b), sum + 1000000 * negatives + 1000000000LL * blocks) << "block " << b;
  }
}

TEST(PortedBlocks, ThreeDimensionalBlocksAndGrids) {
  const int bx = 4, by = 2, bz = 2, gx = 3, gy = 2, gz = 3;
  LView<int***> out("out", gz * bz, gy * by, gx * bx);
  kWhere.launch({{gx, gy, gz}, {bx, by, bz}}, lightning::work::block(2, 2), out);
  const auto got = to_host(out);
  for (int z = 0; z < gz * bz; ++z)
    for (int y = 0; y < gy * by; ++y)
      for (int x = 0; x < gx * bx; ++x)
        ASSERT_EQ(got(z, y, x), x + 100 * y + 10000 * z + 1000000 * (x % bx + 4 * (y % by)))
            << x << "," << y << "," << z;
}

TEST(PortedBlocks, HelpersReadingBlockIdxSeeTheBlockInTheWholeGrid) {
  const int gx = 6, gy = 4, rows = gy * 4, cols = gx * 8;
  LView<int**> out("out", rows, cols);
  // Superblocks of 2 x 2 blocks: every one but the first has blocks numbered from 0 on the GPU.
  kFromHelper.launch({{gx, gy}, {8, 4}}, lightning::work::tiles({16, 8}), out);
  const auto got = to_host(out);
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      ASSERT_EQ(got(y, x), x + 1000 * y + 1000000 * (x / 8 + 10 * (y / 4))) << x << "," << y;
}

TEST(PortedBlocks, WarpIntrinsicsMatchTheReference) {
  const int block = 48, blocks = 5, n = block * blocks;
  LView<int*> in("in", n);
  LView<int**> out("out", n, 4);
  Kokkos::View<int*, Kokkos::HostSpace> h("h", n);
  for (int i = 0; i < n; ++i) h(i) = (i * 37) % 101 + (i == 77 ? 2000 : 0);
  Kokkos::deep_copy(in, h);
  kWarpOps.launch(blocks, block, lightning::work::block(2 * block), out, in);
  const auto got = to_host(out);
  for (int b = 0; b < blocks; ++b)
    for (int w = 0; w * 32 < block; ++w) {
      const int first = b * block + w * 32, lanes = std::min(32, block - w * 32);
      int sum = 0, top = h(first), scan = 0, any = 0, all = 1;
      unsigned odd = 0;
      for (int l = 0; l < lanes; ++l) {
        sum += h(first + l);
        top = std::max(top, h(first + l));
        odd |= (h(first + l) % 2 != 0 ? 1u : 0u) << l;
        any |= h(first + l) > 1000;
        all &= h(first + l) % 3 != 0;
      }
      for (int l = 0; l < lanes; ++l) {
        const int i = first + l;
        scan += h(i);
        ASSERT_EQ(got(i, 0), sum) << "sum at " << i;
        ASSERT_EQ(got(i, 1), top) << "max at " << i;
        ASSERT_EQ(got(i, 2), scan) << "scan at " << i;
        ASSERT_EQ(got(i, 3),
                  static_cast<int>(odd & 0xffffu) + (all ? 1 << 20 : 0) + (any ? 1 << 21 : 0))
            << "ballot at " << i;
      }
    }
}

TEST(PortedBlocks, ALaneLeavingBeforeASyncwarpFailsTheLaunchOnHostDevices) {
  if (on_gpus()) GTEST_SKIP() << "on a GPU such a kernel is undefined behaviour";
  LView<int*> out("out", 64);
  kWarpLeaver.launch(2, 32, lightning::work::block(32), out);
  std::string e;
  try {
    lightning::fence();
  } catch (const lightning::Error& error) {
    e = error.what();
  }
  EXPECT_NE(e.find("kernel 'ported_test::warp_leaver'"), std::string::npos) << e;
  EXPECT_NE(e.find("the threads of warp 0 of a block cannot meet at a warp intrinsic or "
                   "__syncwarp(): lane 0 returned from the kernel"),
            std::string::npos)
      << e;
  // The runtime stays usable.
  Kokkos::deep_copy(out, 3);
  EXPECT_EQ(to_host(out)(5), 3);
}

TEST(PortedBlocks, LanesAtDifferentWarpIntrinsicsAreRightOnGpusAndRefusedByTheShim) {
  LView<int*> out("out", 64);
  kDivergent.launch(2, 32, lightning::work::block(32), out);
  if (on_gpus()) {
    const auto got = to_host(out);
    for (int i = 0; i < 64; ++i) ASSERT_EQ(got(i), i % 32 < 16 ? i + (i ^ 1) : i + 1) << i;
    return;
  }
  std::string e;
  try {
    lightning::fence();
  } catch (const lightning::Error& error) {
    e = error.what();
  }
  EXPECT_NE(e.find("kernel 'ported_test::divergent'"), std::string::npos) << e;
  EXPECT_NE(e.find("the threads of warp 0 of a block cannot meet at a warp intrinsic or "
                   "__syncwarp(): lane "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find(" is at a "), std::string::npos) << e;
  EXPECT_NE(e.find(" while others wait at a "), std::string::npos) << e;
  Kokkos::deep_copy(out, 3);  // the runtime stays usable
  EXPECT_EQ(to_host(out)(5), 3);
}

TEST(PortedBlocks, ThreadsLeavingBeforeABarrierFailTheLaunchOnHostDevices) {
  if (on_gpus()) GTEST_SKIP() << "on a GPU such a kernel is undefined behaviour";
  LView<int*> out("out", 256);
  kLeaver.launch(4, 64, lightning::work::block(128), out);
  try {
    lightning::fence();
    FAIL() << "the launch succeeded";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("ported_test::leaver"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the threads of a block reached different barriers"),
              std::string::npos)
        << e.what();
  }
  LView<int**> in("in", 4, 8), ok("ok", 4, 8);
  kReverse.launch({{1, 1}, {8, 4}}, lightning::work::block(1, 4), ok, in);
  EXPECT_EQ(to_host(ok)(0, 0), 0);  // the runtime is still usable
}

void takes_a_float(dim3, lightning::Vector<float>, int) {}

TEST(PortedBlocks, HostCodeWithOtherParametersIsRefusedAtRegistration) {
  try {
    lightning::detail::ported_kernel_info(
        "ported_test::mismatch", "", "takes_a_float",
        {CudaParam::array<double>("v", 1), CudaParam::scalar<int>("n")}, "global i => write v[i]",
        lightning::on_host<takes_a_float>());
    FAIL() << "accepted";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'v' is registered as a double array of 1 "
                                         "axes, the host function takes a float array of 1 axes"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
