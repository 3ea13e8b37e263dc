// Generated entry points on a real GPU: compiled by the JIT cache, loaded and launched with
// the driver API exactly as the kernel ABI says (functor bytes with chunk offsets folded into
// the array handles' data pointers, a LaunchBox, per-block partials), on chunks that are
// parts of larger arrays. Label gpu:
// exits 77 (skipped) where no CUDA driver or GPU exists.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "../kokkos/kokkos_test_kernels.hpp"
#include "backend/cuda/jit_cache.hpp"
#include "backend/cuda/kernel_codegen.hpp"
#include "cuda_test_driver.hpp"
#include "kernel/ported_launch.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/launch_box.hpp"
#include "lightning_kokkos/device/ported_launch.hpp"
#include "lightning_kokkos/device/reduction_target.hpp"
#include "ported_kernels.hpp"

namespace lightning::cuda {
namespace {

using namespace test;

JitCache& cache() {
  static JitCache c("");
  return c;
}

// Compiles `info`, then runs it over `threads` with `grid` blocks (0: enough for all),
// through the general entry or the one-index-per-thread entry (`cover`).
// The entry point of `info` (or its coverage entry), compiled and loaded.
CUfunction entry_of(const kernel::KernelInfo& info, const KernelSpecialization& spec = {},
                    bool cover = false) {
  const KernelImage& k = cache().get(info, api->sm_major, api->sm_minor, spec);
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  LK_CU(cuModuleLoadData(&module, k.cubin.data()));
  LK_CU(cuModuleGetFunction(&function, module, cover ? kCoverEntryName : k.entry.c_str()));
  return function;
}

void run(const kernel::KernelInfo& info, std::vector<unsigned char>& bytes, const Rect& threads,
         CUdeviceptr partials = 0, unsigned grid = 0, const KernelSpecialization& spec = {},
         bool cover = false, jit::ReductionTarget target = {}) {
  CUfunction function = entry_of(info, spec, cover);
  jit::LaunchBox box = box_of(threads);
  void* partial_ptr = reinterpret_cast<void*>(partials);
  void* params[] = {bytes.data(), &box, &partial_ptr, &target};  // a reduction reads target
  const unsigned block = static_cast<unsigned>(spec.block_size);
  if (grid == 0) grid = static_cast<unsigned>((threads.volume() + block - 1) / block);
  LK_CU(cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, nullptr, params, nullptr));
  LK_CU(cuCtxSynchronize());
}

template <class F>
std::vector<unsigned char> bytes_of(const F& f) {
  std::vector<unsigned char> bytes(sizeof(F));
  std::memcpy(bytes.data(), static_cast<const void*>(&f), sizeof(F));
  return bytes;
}

template <class D>
using LView = lightning::View<D>;

TEST(GpuEntry, SaxpyFunctorOnTwoChunksWithACappedGrid) {
  using F = lk_test::Saxpy<LView<const float*>, LView<float*>>;
  const kernel::KernelInfo& info = kernel::KernelRegistry::get(kernel_registration<F>().id);
  const int64_t n = 1 << 20;
  const int64_t half = n / 2 + 1000;  // chunks of unequal size
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) x[i] = float(i % 101), y[i] = float(i % 7);
  F f;
  f.a = 2.5f;
  std::vector<float> out(n);
  for (const Rect& part : {Rect(Point{0}, Point{half}), Rect(Point{half}, Point{n})}) {
    const auto lo = part.lo()[0], hi = part.hi()[0];
    DeviceBuffer<float> dx(std::vector<float>(x.begin() + lo, x.begin() + hi));
    DeviceBuffer<float> dy(std::vector<float>(y.begin() + lo, y.begin() + hi));
    std::vector<unsigned char> bytes = bytes_of(f);
    patch(bytes, info.description.arrays[0].byte_offset, dx, part, {n});
    patch(bytes, info.description.arrays[1].byte_offset, dy, part, {n});
    run(info, bytes, part, 0, lo == 0 ? 7 : 0);  // 7 blocks: the grid-stride loop does the rest
    const std::vector<float> got = dy.read();
    std::copy(got.begin(), got.end(), out.begin() + lo);
  }
  size_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += out[i] != 2.5f * x[i] + y[i];
  EXPECT_EQ(wrong, 0u);
}

TEST(GpuEntry, RowSumOnARowChunkOfAMatrix) {
  using F = lk_test::RowSum<LView<const double**>, LView<double*>>;
  const kernel::KernelInfo& info = kernel::KernelRegistry::get(kernel_registration<F>().id);
  const int64_t rows = 3000, cols = 37, r0 = 1100, r1 = 2345;
  std::vector<double> m((r1 - r0) * cols);
  for (size_t e = 0; e < m.size(); ++e) m[e] = double(e % 13);
  DeviceBuffer<double> dm(m);
  DeviceBuffer<double> ds(std::vector<double>(r1 - r0, -1));
  F f;
  f.cols = cols;
  f.scale = 0.5;
  std::vector<unsigned char> bytes = bytes_of(f);
  patch(bytes, info.description.arrays[0].byte_offset, dm, Rect(Point{r0, 0}, Point{r1, cols}),
        {rows, cols});
  patch(bytes, info.description.arrays[1].byte_offset, ds, Rect(Point{r0}, Point{r1}), {rows});
  run(info, bytes, Rect(Point{r0}, Point{r1}));
  const std::vector<double> s = ds.read();
  for (int64_t i = 0; i < r1 - r0; ++i) {
    double t = 0;
    for (int64_t j = 0; j < cols; ++j) t += m[i * cols + j];
    ASSERT_EQ(s[i], 0.5 * t) << "row " << r0 + i;
  }
}

TEST(GpuEntry, RankThreeArraysAndExtents) {
  using F = lk_test::Twice3<LView<const float***>, LView<float***>>;
  const kernel::KernelInfo& info = kernel::KernelRegistry::get(kernel_registration<F>().id);
  const int64_t n0 = 40, n1 = 5, n2 = 6, lo = 10, hi = 33;
  const Rect box(Point{lo, 0, 0}, Point{hi, n1, n2});
  std::vector<float> in(box.volume());
  std::iota(in.begin(), in.end(), 1.0f);
  DeviceBuffer<float> din(in), dout(std::vector<float>(in.size(), 0));
  std::vector<unsigned char> bytes = bytes_of(F{});
  patch(bytes, info.description.arrays[0].byte_offset, din, box, {n0, n1, n2});
  patch(bytes, info.description.arrays[1].byte_offset, dout, box, {n0, n1, n2});
  run(info, bytes, Rect(Point{lo}, Point{hi}));
  const std::vector<float> out = dout.read();
  for (size_t e = 0; e < in.size(); ++e) ASSERT_EQ(out[e], 2 * in[e]) << e;
}

// A rank-2 index space (as MDRangePolicy gives) over a tile of a matrix.
TEST(GpuEntry, TwoIndicesOverATile) {
  kernel::KernelInfo info;
  info.name = "gpu_test::Tile";
  info.functor_size = 48;
  info.description.signature.add_array("m", DataType::kInt64, 2);
  info.device.kind = kernel::DeviceCodeKind::kFunctorBody;
  info.device.source = "void operator()(int64_t i, int64_t j) const { m(i, j) = i * 1000 + j; }";
  info.device.param_offsets = {0};
  info.device.index_rank = 2;
  const Rect tile(Point{7, 300}, Point{90, 411});
  DeviceBuffer<int64_t> dm(std::vector<int64_t>(tile.volume(), -1));
  std::vector<unsigned char> bytes(48, 0);
  patch(bytes, 0, dm, tile, {100, 500});
  run(info, bytes, tile);
  const std::vector<int64_t> m = dm.read();
  size_t e = 0;
  for (int64_t i = 7; i < 90; ++i)
    for (int64_t j = 300; j < 411; ++j) ASSERT_EQ(m[e++], i * 1000 + j);
}

// The same functor through the one-index-per-thread entry (what the runtime launches when
// its grid covers the superblock), on a chunk in the middle of the array.
TEST(GpuEntry, SaxpyFunctorThroughTheCoverEntry) {
  using F = lk_test::Saxpy<LView<const float*>, LView<float*>>;
  const kernel::KernelInfo& info = kernel::KernelRegistry::get(kernel_registration<F>().id);
  const int64_t n = 1 << 20, lo = 300001, hi = 700003;
  std::vector<float> x(hi - lo), y(hi - lo);
  for (int64_t i = lo; i < hi; ++i) x[i - lo] = float(i % 101), y[i - lo] = float(i % 7);
  DeviceBuffer<float> dx(x), dy(y);
  F f;
  f.a = 2.5f;
  std::vector<unsigned char> bytes = bytes_of(f);
  const Rect part(Point{lo}, Point{hi});
  patch(bytes, info.description.arrays[0].byte_offset, dx, part, {n});
  patch(bytes, info.description.arrays[1].byte_offset, dy, part, {n});
  run(info, bytes, part, 0, 0, {}, /*cover=*/true);
  const std::vector<float> out = dy.read();
  for (int64_t i = lo; i < hi; ++i)
    ASSERT_EQ(out[i - lo], 2.5f * float(i % 101) + float(i % 7)) << i;
}

// A column-major (LayoutLeft) matrix on a chunk that does not start at element 0: the
// reversed handle's offset must be folded in like any other.
TEST(GpuEntry, ColumnMajorArrayOnAnInnerChunk) {
  kernel::KernelInfo info;
  info.name = "gpu_test::TileLeft";
  info.functor_size = 48;
  info.description.signature.add_array("m", DataType::kInt64, 2, /*axes_reversed=*/true);
  info.device.kind = kernel::DeviceCodeKind::kFunctorBody;
  info.device.source = "void operator()(int64_t i, int64_t j) const { m(i, j) = i * 1000 + j; }";
  info.device.param_offsets = {0};
  info.device.index_rank = 2;
  const Rect tile(Point{7, 300}, Point{90, 411});     // (i, j), as the operator indexes
  const Rect storage(Point{300, 7}, Point{411, 90});  // (j, i): the reversed storage's box
  DeviceBuffer<int64_t> dm(std::vector<int64_t>(tile.volume(), -1));
  std::vector<unsigned char> bytes(48, 0);
  patch(bytes, 0, dm, storage, {500, 100});
  run(info, bytes, tile);
  const std::vector<int64_t> m = dm.read();
  size_t e = 0;
  for (int64_t j = 300; j < 411; ++j)
    for (int64_t i = 7; i < 90; ++i) ASSERT_EQ(m[e++], i * 1000 + j) << i << ", " << j;
}

// A dot product and a minimum: one partial per block, folded here.
TEST(GpuEntry, ReductionsWritePartialsPerBlock) {
  kernel::KernelInfo info;
  info.name = "gpu_test::Dot";
  info.functor_size = 80;
  info.description.signature.add_array("x", DataType::kFloat64, 1)
      .add_array("y", DataType::kFloat64, 1);
  info.device.kind = kernel::DeviceCodeKind::kFunctorBody;
  info.device.source =
      "void operator()(const int64_t i, double& sum) const { sum += x(i) * y(i); }";
  info.device.param_offsets = {0, 40};
  info.device.index_rank = 1;
  info.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  const int64_t lo = 5000, hi = 5000 + 1000003;  // not a multiple of the block
  std::vector<double> x(hi - lo), y(hi - lo);
  for (size_t e = 0; e < x.size(); ++e) x[e] = double(e % 10), y[e] = double(e % 3);
  DeviceBuffer<double> dx(x), dy(y);
  std::vector<unsigned char> bytes(80, 0);
  patch(bytes, 0, dx, Rect(Point{lo}, Point{hi}), {hi});
  patch(bytes, 40, dy, Rect(Point{lo}, Point{hi}), {hi});
  for (int block : {256, 96}) {
    KernelSpecialization spec;
    spec.block_size = block;
    const unsigned grid = 500;  // capped: each thread runs several indices
    DeviceBuffer<double> partials(std::vector<double>(grid, -1)), result({-1.0});
    DeviceBuffer<unsigned> blocks_done({0u});
    const jit::ReductionTarget target{reinterpret_cast<void*>(result.ptr),
                                      reinterpret_cast<unsigned*>(blocks_done.ptr)};
    run(info, bytes, Rect(Point{lo}, Point{hi}), partials.ptr, grid, spec, false, target);
    double sum = 0, expected = 0;
    for (double p : partials.read()) sum += p;
    for (size_t e = 0; e < x.size(); ++e) expected += x[e] * y[e];
    EXPECT_EQ(sum, expected) << "block " << block;  // integers: exact in any order
    // The last block joined the partials into the result and left the count at zero.
    EXPECT_EQ(result.read().at(0), expected) << "block " << block;
    EXPECT_EQ(blocks_done.read().at(0), 0u) << "block " << block;
  }

  info.name = "gpu_test::Min";
  info.device.source =
      "void operator()(const int64_t i, double& m) const { if (x(i) - y(i) < m) m = x(i) - "
      "y(i); }";
  KernelSpecialization spec;
  spec.reduction = Reduction::builtin(ReduceOp::kMin, DataType::kFloat64);
  DeviceBuffer<double> partials(std::vector<double>(64, 0)), result({0.0});
  DeviceBuffer<unsigned> blocks_done({0u});
  run(info, bytes, Rect(Point{lo}, Point{hi}), partials.ptr, 64, spec, false,
      {reinterpret_cast<void*>(result.ptr), reinterpret_cast<unsigned*>(blocks_done.ptr)});
  double least = 1e300;
  for (double p : partials.read()) least = std::min(least, p);
  EXPECT_EQ(least, -2.0);
  EXPECT_EQ(result.read().at(0), -2.0);
}

// A ported kernel runs one CUDA block per block of its superblock (blocks 40..99 here),
// each told its index in the whole grid.
TEST(GpuEntry, PortedStencilRunsOneCudaBlockPerBlockOfTheSuperblock) {
  const kernel::KernelInfo& info = kernel::KernelRegistry::get(ported::stencil_kernel().id());
  const int64_t n = 1 << 16, block = 256;
  // The superblock of blocks 40..99 and its chunks: output its threads, input with a halo.
  const int64_t lo = 40 * block, hi = 100 * block;
  std::vector<float> in(n);
  for (int64_t i = 0; i < n; ++i) in[i] = float(i % 23);
  DeviceBuffer<float> din(std::vector<float>(in.begin() + lo - 1, in.begin() + hi + 1));
  DeviceBuffer<float> dout(std::vector<float>(hi - lo, -1));
  std::vector<unsigned char> bytes(info.functor_size, 0);
  const int32_t n32 = static_cast<int32_t>(n);
  std::memcpy(bytes.data() + info.device.param_offsets[0], &n32, 4);
  patch(bytes, info.device.param_offsets[1], dout, Rect(Point{lo}, Point{hi}), {n});
  patch(bytes, info.device.param_offsets[2], din, Rect(Point{lo - 1}, Point{hi + 1}), {n});
  const jit::PortedLaunch launch{{static_cast<uint32_t>(n / block), 1, 1}, {256, 1, 1}, 0, 1};
  std::memcpy(bytes.data() + info.device.launch_offset, &launch, sizeof(launch));
  // As CudaDevice launches a ported kernel: a CUDA block per block of the superblock, the
  // first one's index in the whole grid as the entry's fourth parameter.
  const Rect superblock(Point{lo}, Point{hi});
  jit::LaunchBox box = box_of(superblock);
  void* partials = nullptr;
  std::array<uint32_t, 3> first = kernel::superblock_first_block(launch, superblock);
  const std::array<uint32_t, 3> grid = kernel::superblock_grid(launch, superblock);
  EXPECT_EQ(first[0], 40u);
  EXPECT_EQ(grid[0], 60u);
  void* params[] = {bytes.data(), &box, &partials, first.data()};
  LK_CU(cuLaunchKernel(entry_of(info), grid[0], grid[1], grid[2], launch.block[0], launch.block[1],
                       launch.block[2], launch.shared_bytes, nullptr, params, nullptr));
  LK_CU(cuCtxSynchronize());
  const std::vector<float> out = dout.read();
  for (int64_t i = lo; i < hi; ++i)
    ASSERT_EQ(out[i - lo], (in[i - 1] + in[i] + in[i + 1]) / 3.0f) << i;
}

}  // namespace
}  // namespace lightning::cuda

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  using lightning::cuda::test::api;
  api = lightning::cuda::test::open_driver();
  if (!api) {
    std::printf("gpu_entry_test: no CUDA driver or GPU here: skipped\n");
    return 77;
  }
  std::printf("gpu_entry_test: GPU sm_%d%d\n", api->sm_major, api->sm_minor);
  return RUN_ALL_TESTS();
}
