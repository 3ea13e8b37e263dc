// The parts of the GPU runtime that need no GPU: strided copy plans, grid sizes, device
// selection, and behaviour on machines without a CUDA driver.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "backend/cuda/region_copy.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/rect.hpp"
#include "driver/driver.hpp"

namespace lightning::cuda {
namespace {

Rect box1(int64_t lo, int64_t hi) {
  return {Point{lo}, Point{hi}};
}
Rect box2(int64_t l0, int64_t l1, int64_t h0, int64_t h1) {
  return {Point{l0, l1}, Point{h0, h1}};
}
Rect box3(Point lo, Point hi) {
  return {lo, hi};
}

// Reference: the byte offsets a strided copy touches, in order, computed from its plan.
std::vector<std::pair<uint64_t, uint64_t>> touched(const RegionCopy& c) {
  std::vector<std::pair<uint64_t, uint64_t>> out;  // (src byte, dst byte)
  for (uint64_t z = 0; z < c.depth; ++z)
    for (uint64_t y = 0; y < c.height; ++y)
      for (uint64_t x = 0; x < c.width_bytes; ++x)
        out.push_back({(c.src_z + z) * c.src_height * c.src_pitch + (c.src_y + y) * c.src_pitch +
                           c.src_x_bytes + x,
                       (c.dst_z + z) * c.dst_height * c.dst_pitch + (c.dst_y + y) * c.dst_pitch +
                           c.dst_x_bytes + x});
  return out;
}

// Reference: the same pairs from the definition of a row-major box buffer.
std::vector<std::pair<uint64_t, uint64_t>> expected(const Rect& dst, const Rect& src,
                                                    const Rect& region, uint64_t e) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  auto index = [](const Rect& box, const Point& p) {
    uint64_t i = 0;
    for (int a = 0; a < box.rank(); ++a)
      i = i * static_cast<uint64_t>(box.extent()[a]) + static_cast<uint64_t>(p[a] - box.lo()[a]);
    return i;
  };
  region.for_each_point([&](const Point& p) {
    for (uint64_t b = 0; b < e; ++b) out.push_back({index(src, p) * e + b, index(dst, p) * e + b});
  });
  return out;
}

TEST(RegionCopy, OneDimensionalRangeIsOneContiguousRun) {
  const RegionCopy c = RegionCopy::plan(box1(100, 200), box1(50, 300), box1(120, 180), 4);
  EXPECT_TRUE(c.contiguous);
  EXPECT_EQ(c.bytes, 60u * 4);
  EXPECT_EQ(c.src_offset, 70u * 4);
  EXPECT_EQ(c.dst_offset, 20u * 4);
}

TEST(RegionCopy, WholeRowsOfBothBoxesAreContiguous) {
  const RegionCopy c = RegionCopy::plan(box2(0, 0, 10, 8), box2(4, 0, 20, 8), box2(5, 0, 9, 8), 8);
  EXPECT_TRUE(c.contiguous);
  EXPECT_EQ(c.bytes, 4u * 8 * 8);
  EXPECT_EQ(c.src_offset, 1u * 8 * 8);
  EXPECT_EQ(c.dst_offset, 5u * 8 * 8);
}

TEST(RegionCopy, ColumnBlockIsStrided) {
  const Rect dst = box2(0, 0, 10, 10), src = box2(0, 4, 10, 12), region = box2(2, 5, 7, 8);
  const RegionCopy c = RegionCopy::plan(dst, src, region, 4);
  EXPECT_FALSE(c.contiguous);
  EXPECT_EQ(c.width_bytes, 3u * 4);
  EXPECT_EQ(c.height, 5u);
  EXPECT_EQ(c.depth, 1u);
  EXPECT_EQ(c.src_pitch, 8u * 4);
  EXPECT_EQ(c.dst_pitch, 10u * 4);
  EXPECT_EQ(touched(c), expected(dst, src, region, 4));
}

TEST(RegionCopy, ThreeDimensionalBoxesMatchTheRowMajorDefinition) {
  const Rect dst = box3(Point{0, 0, 0}, Point{6, 5, 7});
  const Rect src = box3(Point{1, -2, 3}, Point{5, 4, 9});
  const Rect region = box3(Point{2, 0, 4}, Point{4, 3, 6});
  const RegionCopy c = RegionCopy::plan(dst, src, region, 2);
  EXPECT_FALSE(c.contiguous);
  EXPECT_EQ(c.bytes, 2u * 3 * 2 * 2);
  EXPECT_EQ(touched(c), expected(dst, src, region, 2));
}

TEST(RegionCopy, SlabOfWholePlanesIsContiguous) {
  const Rect both = box3(Point{0, 0, 0}, Point{4, 3, 5});
  const RegionCopy c = RegionCopy::plan(both, both, box3(Point{1, 0, 0}, Point{3, 3, 5}), 4);
  EXPECT_TRUE(c.contiguous);
  EXPECT_EQ(c.src_offset, 15u * 4);
  EXPECT_EQ(c.bytes, 30u * 4);
}

TEST(RegionCopy, ContiguousInOneBufferOnlyIsStrided) {
  // Whole rows of the source, part of the destination's rows.
  const RegionCopy c = RegionCopy::plan(box2(0, 0, 4, 10), box2(0, 0, 4, 5), box2(0, 0, 4, 5), 4);
  EXPECT_FALSE(c.contiguous);
}

TEST(RegionCopy, RankZeroIsOneElement) {
  const Rect scalar(Point{}, Point{});
  const RegionCopy c = RegionCopy::plan(scalar, scalar, scalar, 8);
  EXPECT_TRUE(c.contiguous);
  EXPECT_EQ(c.bytes, 8u);
  EXPECT_EQ(c.src_offset, 0u);
}

TEST(RegionCopy, EmptyRegionCopiesNothing) {
  const RegionCopy c = RegionCopy::plan(box1(0, 10), box1(0, 10), box1(5, 5), 4);
  EXPECT_EQ(c.bytes, 0u);
}

TEST(RegionCopy, RegionOutsideABoxIsAnInternalErrorNamingTheBoxes) {
  try {
    RegionCopy::plan(box1(0, 10), box1(5, 20), box1(2, 8), 4);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    EXPECT_NE(e.message().find("not inside the source box"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("[5, 20)"), std::string::npos) << e.what();
  }
}

TEST(RegionCopy, DescriptorPutsHostAndDevicePointersWhereTheDriverReadsThem) {
  const RegionCopy c = RegionCopy::plan(box2(0, 0, 4, 4), box2(0, 0, 4, 8), box2(1, 1, 3, 3), 4);
  int host = 0;
  const auto d = c.descriptor(&host, CU_MEMORYTYPE_HOST, reinterpret_cast<void*>(0x1000),
                              CU_MEMORYTYPE_DEVICE);
  EXPECT_EQ(d.dstHost, &host);
  EXPECT_EQ(d.dstMemoryType, CU_MEMORYTYPE_HOST);
  EXPECT_EQ(d.srcDevice, CUdeviceptr{0x1000});
  EXPECT_EQ(d.srcMemoryType, CU_MEMORYTYPE_DEVICE);
  EXPECT_EQ(d.srcPitch, 32u);
  EXPECT_EQ(d.dstPitch, 16u);
  EXPECT_EQ(d.WidthInBytes, 8u);
  EXPECT_EQ(d.Height, 2u);
  EXPECT_EQ(d.Depth, 1u);
}

TEST(GridBlocks, CoversTheVolumeAndCapsReductions) {
  EXPECT_EQ(grid_blocks(1, false, 132), 1);
  EXPECT_EQ(grid_blocks(256, false, 132), 1);
  EXPECT_EQ(grid_blocks(257, false, 132), 2);
  EXPECT_EQ(grid_blocks(int64_t{1} << 40, false, 132), int64_t{1} << 24);
  // Large launches: four indices per thread; never fewer than four waves (32 blocks per SM)
  // or one thread per index.
  EXPECT_EQ(grid_blocks(int64_t{1} << 30, false, 132), int64_t{1} << 20);
  EXPECT_EQ(grid_blocks(int64_t{1} << 22, false, 132), 132 * 32);
  EXPECT_EQ(grid_blocks(int64_t{1} << 20, false, 132), 4096);
  EXPECT_EQ(grid_blocks(64000, false, 132), 250);
  EXPECT_EQ(grid_blocks(int64_t{1} << 30, true, 0), 8);
  EXPECT_EQ(grid_blocks(int64_t{1} << 30, true, 132), 132 * 8);
  EXPECT_EQ(grid_blocks(1000, true, 132), 4);
  EXPECT_EQ(grid_blocks(0, false, 132), 1);
  // Blocks of fewer threads (array reductions) need more of them.
  EXPECT_EQ(grid_blocks(1000, true, 132, 9), 112);
  EXPECT_EQ(grid_blocks(int64_t{1} << 30, true, 132, 9), 132 * 8);
}

TEST(ArrayReductionThreads, AsManyAsTheirValuesFitInSharedMemoryInWholeWarps) {
  EXPECT_EQ(array_reduction_threads(8, 232448), kBlockThreads);  // one double each
  EXPECT_EQ(array_reduction_threads(24000, 232448), 9);          // 3000 doubles: 9 threads
  EXPECT_EQ(array_reduction_threads(4000, 232448), 32);          // 58 fit: whole warps
  EXPECT_EQ(array_reduction_threads(1000, 232448), 224);
  EXPECT_EQ(array_reduction_threads(232448, 232448), 1);
  EXPECT_EQ(array_reduction_threads(240000, 232448), 0);  // not one
  EXPECT_EQ(array_reduction_threads(8, 0), 0);
  EXPECT_EQ(array_reduction_threads(0, 232448), 0);
}

std::vector<GpuInfo> two_gpus() {
  GpuInfo a;
  a.ordinal = 0;
  a.name = "GPU A";
  GpuInfo b = a;
  b.ordinal = 1;
  b.name = "GPU B";
  return {a, b};
}

DeviceSelection parse(const char* text) {
  return *DeviceSelection::parse(text);
}

TEST(SelectGpus, PicksOrdinalsInTheGivenOrder) {
  const auto picked = select_gpus(parse("cuda:1,0"), two_gpus());
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0].name, "GPU B");
  EXPECT_EQ(picked[1].name, "GPU A");
  EXPECT_EQ(select_gpus(parse("cuda"), two_gpus()).size(), 2u);
  EXPECT_EQ(select_gpus(parse("auto"), two_gpus()).size(), 2u);
  EXPECT_TRUE(select_gpus(parse("host:3"), two_gpus()).empty());
  EXPECT_TRUE(select_gpus(parse("auto"), {}).empty());
}

// devices=auto under mpirun: each process of a node takes its share of the node's GPUs by
// its node rank; explicit selections are left as they are.
TEST(SelectGpus, AutoTakesThisProcesssShareByNodeRank) {
  auto names = [](const std::vector<GpuInfo>& gpus) {
    std::string s;
    for (const GpuInfo& g : gpus) s += g.name + ";";
    return s;
  };
  EXPECT_EQ(names(select_gpus(parse("auto"), two_gpus(), {0, 2})), "GPU A;");
  EXPECT_EQ(names(select_gpus(parse("auto"), two_gpus(), {1, 2})), "GPU B;");
  EXPECT_EQ(names(select_gpus(parse("auto"), two_gpus(), {2, 3})), "GPU A;");
  EXPECT_EQ(names(select_gpus(parse("auto"), two_gpus(), {0, 1})), "GPU A;GPU B;");
  EXPECT_EQ(names(select_gpus(parse("cuda"), two_gpus(), {1, 2})), "GPU A;GPU B;");
  EXPECT_EQ(names(select_gpus(parse("cuda:0"), two_gpus(), {1, 2})), "GPU A;");
}

TEST(SelectGpus, AMissingOrdinalIsAConfigErrorSayingWhatExists) {
  try {
    select_gpus(parse("cuda:0,2"), two_gpus());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConfig);
    EXPECT_NE(e.message().find("devices 'cuda:0,2': GPU 2 does not exist"), std::string::npos)
        << e.what();
    EXPECT_NE(e.message().find("cuda:0 to cuda:1"), std::string::npos) << e.what();
  }
}

TEST(SelectGpus, CudaWithoutGpusIsAConfigErrorPointingAtHostDevices) {
  try {
    select_gpus(parse("cuda"), {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConfig);
    EXPECT_NE(e.message().find("this machine has no GPU"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("host:N"), std::string::npos) << e.what();
  }
}

TEST(Describe, OneLinePerGpu) {
  auto gpus = two_gpus();
  gpus[0].total_memory = uint64_t{80} << 30;
  gpus[0].compute_major = 9;
  gpus[0].multiprocessors = 132;
  const std::string text = describe(gpus);
  EXPECT_NE(text.find("cuda:0 GPU A, 80 GiB, compute capability 9.0, 132 SMs\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("cuda:1 GPU B"), std::string::npos) << text;
}

// On a machine without a driver (CI), the backend says so instead of failing to load.
TEST(DriverApi, WithoutADriverExplainsWhyAndFindsNoGpu) {
  if (DriverApi::available()) GTEST_SKIP() << "this machine has a CUDA driver";
  EXPECT_NE(DriverApi::unavailable_reason().find("no CUDA driver on this machine (libcuda.so.1"),
            std::string::npos)
      << DriverApi::unavailable_reason();
  EXPECT_TRUE(discover_gpus().empty());
  try {
    DriverApi::get();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCuda);
  }
}

// The driver picks GPUs only where there are some: `auto` falls back to one emulated device,
// `cuda` is a configuration error that says so.
TEST(DriverDevices, CudaWithoutAGpuIsAConfigErrorAndAutoFallsBackToTheHost) {
  if (!discover_gpus().empty()) GTEST_SKIP() << "this machine has a GPU";
  Config cuda;
  cuda.devices = *DeviceSelection::parse("cuda:0");
  try {
    driver::Driver d(cuda, 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConfig);
    EXPECT_NE(e.message().find("devices 'cuda:0': this machine has no GPU"), std::string::npos)
        << e.what();
  }
  driver::Driver automatic(Config{}, 1);
  EXPECT_EQ(automatic.devices().size(), 1u);
}

}  // namespace
}  // namespace lightning::cuda
