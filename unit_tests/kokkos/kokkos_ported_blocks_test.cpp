// Ported CUDA kernels of any block shape, with shared memory and barriers: on host devices
// through the CUDA shim, on GPUs through NVRTC (the same source text), each against a
// sequential reference; and the errors of kernels that break CUDA's rules.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "kokkos_ported_kernels.hpp"
#include "kokkos_test_kernels.hpp"
#include "lightning_kokkos/cuda_shim.hpp"  // the host function of a refused registration

namespace {

using lightning::CudaParam;
using lk_test::LView;
using lk_test::to_host;
using lk_test::uniform;

using namespace lk_ported;

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

TEST(PortedBlocks, TransposeTilesIn32x8BlocksWithTwoLocalAxesMatchTheReference) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 6; ++trial) {
    const int rows = uniform(rng, 1, 100), cols = uniform(rng, 1, 100);
    const int gx = (cols + 31) / 32, gy = (rows + 31) / 32;
    // Superblocks of whole 32 x 8 blocks: bands along x or y, or tiles.
    const int a = uniform(rng, 1, gx), b = uniform(rng, 1, gy);
    const lightning::WorkDistribution works[3] = {lightning::work::block(0, 32 * a),
                                                  lightning::work::block(1, 8 * b),
                                                  lightning::work::tiles({32 * a, 8 * b})};
    const int choice = uniform(rng, 0, 2);
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", distribution " +
                 std::to_string(choice) + " of " + std::to_string(a) + " x " + std::to_string(b) +
                 " blocks");
    Kokkos::View<float**, Kokkos::HostSpace> h("h", rows, cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) h(r, c) = static_cast<float>(uniform(rng, -999, 999));
    LView<float**> in("in", rows, cols), out("out", cols, rows);
    Kokkos::deep_copy(in, h);
    kTransposeTiles.launch({{gx, gy}, {32, 8}}, works[choice], out, in, rows, cols);
    const auto got = to_host(out);
    for (int c = 0; c < cols; ++c)
      for (int r = 0; r < rows; ++r) ASSERT_EQ(got(c, r), h(r, c)) << c << "," << r;
  }
}

TEST(PortedBlocks, BlocksOf1024ThreadsSumInSharedMemory) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 3; ++trial) {
    const int n = uniform(rng, 1, 4500), blocks = (n + 1023) / 1024;
    SCOPED_TRACE(std::to_string(n) + " values in " + std::to_string(blocks) + " blocks");
    Kokkos::View<int*, Kokkos::HostSpace> h("h", n);
    for (int i = 0; i < n; ++i) h(i) = uniform(rng, -1000000, 1000000);
    LView<int*> in("in", n);
    LView<long long*> sums("sums", blocks);
    Kokkos::deep_copy(in, h);
    kBlockSum1024.launch(blocks, 1024, lightning::work::block(1024 * uniform(rng, 1, blocks)), sums,
                         in, n);
    const auto got = to_host(sums);
    for (int b = 0; b < blocks; ++b) {
      long long sum = 0;
      for (int i = b * 1024; i < std::min(n, (b + 1) * 1024); ++i) sum += h(i);
      ASSERT_EQ(got(b), sum) << "block " << b;
    }
  }
}

TEST(PortedBlocks, AHistogramOfGlobalAtomicsMatchesTheReferenceReducedOrReadAndWritten) {
  std::mt19937 rng(37);
  for (const lightning::CudaKernel* kernel : {&kHistogramReduce, &kHistogramReadwrite})
    for (int trial = 0; trial < 4; ++trial) {
      const int n = uniform(rng, 1, 3000), bins = uniform(rng, 1, 64);
      const int block = 32 << uniform(rng, 0, 3), blocks = (n + block - 1) / block;
      const int per = block * uniform(rng, 1, blocks);
      const bool cyclic = uniform(rng, 0, 1);
      SCOPED_TRACE(kernel->name() + ": " + std::to_string(n) + " values, " + std::to_string(bins) +
                   " bins, blocks of " + std::to_string(block) +
                   (cyclic ? ", cyclic superblocks of " : ", superblocks of ") +
                   std::to_string(per));
      Kokkos::View<int*, Kokkos::HostSpace> values("values", n), want("want", bins);
      for (int i = 0; i < n; ++i) values(i) = uniform(rng, 0, bins - 1);
      for (int k = 0; k < bins; ++k) want(k) = uniform(rng, -100, 100);  // added to
      LView<int*> in("in", n), hist("hist", bins);
      Kokkos::deep_copy(in, values);
      Kokkos::deep_copy(hist, want);
      for (int i = 0; i < n; ++i) ++want(values(i));
      kernel->launch({blocks, block, bins * sizeof(int)},
                     cyclic ? lightning::work::cyclic(per) : lightning::work::block(per), hist, in,
                     n, bins);
      const auto got = to_host(hist);
      for (int k = 0; k < bins; ++k) ASSERT_EQ(got(k), want(k)) << "bin " << k;
    }
}

TEST(PortedBlocks, AtomicsAcrossBlocksIntoOneElementAnnotatedAsAReduction) {
  std::mt19937 rng(41);
  for (int trial = 0; trial < 4; ++trial) {
    const int n = uniform(rng, 1, 5000), block = 32 << uniform(rng, 0, 3);
    const int blocks = (n + block - 1) / block, per = block * uniform(rng, 1, blocks);
    SCOPED_TRACE(std::to_string(n) + " values, blocks of " + std::to_string(block) +
                 ", superblocks of " + std::to_string(per));
    Kokkos::View<int*, Kokkos::HostSpace> values("values", n);
    int want = uniform(rng, -1000, 1000);  // added to
    LView<int*> in("in", n), total("total", 1);
    Kokkos::deep_copy(total, want);
    for (int i = 0; i < n; ++i) want += values(i) = uniform(rng, -100, 100);
    Kokkos::deep_copy(in, values);
    kSumAll.launch(blocks, block, lightning::work::block(per), total, in, n);
    EXPECT_EQ(to_host(total)(0), want);
  }
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

/// The lightning::Error that `launch` (or the fence after it) throws, or "" when none.
template <class F>
std::string launch_error(const F& launch) {
  try {
    launch();
    lightning::fence();
  } catch (const lightning::Error& e) {
    return e.what();
  }
  return "";
}

TEST(PortedBlocks, AnAnnotationBindingMoreAxesThanTheLaunchHasIsRefusedNamingIt) {
  // block [bx, by, bz] and local [tx, ty, tz] on a 2-D grid of 2-D blocks.
  const int bx = 4, by = 2, bz = 2, gx = 3, gy = 2, gz = 3;
  LView<int***> out("out", gz * bz, gy * by, gx * bx);
  std::string e = launch_error([&] {
    kWhereByBlocks.launch({{gx, gy}, {bx, by}}, lightning::work::block(0, 4), out);
  });
  EXPECT_NE(e.find("'block [bx, by, bz]' binds 3 axes but the launch has rank 2"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("ported CUDA kernel 'ported_test::where_by_blocks' (grid (3, 2) of blocks (4, "
                   "2))"),
            std::string::npos)
      << e;
  // The same kernel on the 3-D launch it is written for runs, with every axis bound.
  kWhereByBlocks.launch({{gx, gy, gz}, {bx, by, bz}}, lightning::work::tiles({4, 4, 2}), out);
  const auto got = to_host(out);
  for (int z = 0; z < gz * bz; ++z)
    for (int y = 0; y < gy * by; ++y)
      for (int x = 0; x < gx * bx; ++x)
        ASSERT_EQ(got(z, y, x), x + 100 * y + 10000 * z + 1000000 * (x % bx + 4 * (y % by)))
            << x << "," << y << "," << z;

  // local [t, u] on 1-D blocks of a 1-D grid; then on a 2-D launch (blocks of 32 x 1).
  LView<int*> ones("ones", 128);
  e = launch_error([&] { kTwoLocalAxes.launch(4, 32, lightning::work::block(64), ones); });
  EXPECT_NE(e.find("'local [t, u]' binds 2 axes but the launch has rank 1"), std::string::npos)
      << e;
  EXPECT_NE(e.find("ported CUDA kernel 'ported_test::two_local_axes' (grid (4) of blocks (32))"),
            std::string::npos)
      << e;
  kTwoLocalAxes.launch({{4, 1}, {32, 1}}, lightning::work::block(0, 64), ones);
  const auto filled = to_host(ones);
  for (int i = 0; i < 128; ++i) ASSERT_EQ(filled(i), 1) << i;
}

TEST(PortedBlocks, DynamicSharedMemoryBeyondWhatAnyGpuHasIsRefusedAtTheLaunch) {
  const int blocks = 3, n = blocks * 64;
  LView<int*> in("in", n);
  LView<long long*> sums("sums", blocks);
  Kokkos::deep_copy(in, 1);
  const uint64_t limit = lightning::kernel::BlockLimits::kMaxSharedOptIn;
  try {
    kBlockSums.launch({blocks, 64, limit + 1}, lightning::work::block(64), sums, in);
    FAIL() << "the launch was accepted";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "ported CUDA kernel 'ported_test::block_sums': " + std::to_string(limit + 1) +
                  " bytes of dynamic shared memory per block are more than the " +
                  std::to_string(limit) + " (227 KiB) a block may have on any GPU"),
              std::string::npos)
        << e.what();
  }
  // The runtime stays usable, and a block may have what GPUs give it (less the kernel's own
  // static shared memory).
  kBlockSums.launch({blocks, 64, limit - 1024}, lightning::work::block(64), sums, in);
  const auto got = to_host(sums);
  for (int b = 0; b < blocks; ++b) EXPECT_EQ(got(b), 64 + 1000000000LL * blocks) << b;
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
