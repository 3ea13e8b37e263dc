// The driver's decoding of a launch, alone: a pure function of the launch, its kernel, its
// bound annotation and the planner's arrays.
#include "driver/launch_decoder.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "annotation/annotation_cache.hpp"
#include "core/error.hpp"
#include "distribution/data_distribution.hpp"

namespace lightning::driver {
namespace {

// A functor's bytes: a 2-D matrix handle (48 bytes), a 1-D vector handle, then scalars.
struct Bytes {
  uint8_t matrix[48];
  uint8_t vector[32];
  int16_t shift;
  int32_t cols;
  double scale;
};

kernel::KernelInfo matrix_kernel(const char* annotation, bool reversed = false) {
  kernel::KernelInfo k;
  k.name = "decoder_test::Kernel";
  k.functor_size = sizeof(Bytes);
  auto& d = k.description;
  d.annotation = annotation;
  d.signature.add_array("m", DataType::kFloat64, 2, reversed)
      .add_array("v", DataType::kFloat64, 1)
      .add_scalar("shift", DataType::kInt16)
      .add_scalar("cols", DataType::kInt32)
      .add_scalar("scale", DataType::kFloat64);
  d.arrays = {{0, offsetof(Bytes, matrix), 2}, {1, offsetof(Bytes, vector), 1}};
  d.scalars = {{2, offsetof(Bytes, shift), DataType::kInt16},
               {3, offsetof(Bytes, cols), DataType::kInt32}};
  return k;
}

class LaunchDecoder : public ::testing::Test {
 protected:
  LaunchDecoder() : planner_(DeviceSet::uniform(1, 2)) {
    m_ = planner_.create_array({"m", DataType::kFloat64, Point{6, 4}, dist::rows(3)}).first;
    v_ = planner_.create_array({"v", DataType::kFloat64, Point{6}, dist::block(2)}).first;
    bytes_.shift = -3;  // sign-extended from 16 bits
    bytes_.cols = 4;
    bytes_.scale = 2.5;
  }
  Launch launch(Rect domain) const {
    Launch l;
    l.kernel = KernelId(7);
    l.functor = &bytes_;
    l.arrays = {m_, v_};
    l.domain = domain;
    return l;
  }
  DecodedLaunch decode(const Launch& l, const kernel::KernelInfo& k,
                       planner::HostBufferId result = {}) {
    const auto& bound =
        cache_.bind(k.description.annotation, k.description.signature, l.domain.rank(),
                    l.teams ? annotation::LaunchKind::kTeams : annotation::LaunchKind::kThreads);
    return decode_launch(l, k, k.description, bound, planner_, result);
  }

  planner::Planner planner_;
  annotation::AnnotationCache cache_;
  ArrayId m_, v_;
  Bytes bytes_{};
};

TEST_F(LaunchDecoder, ReadsScalarsAndFillsTheDefaults) {
  const kernel::KernelInfo k = matrix_kernel("global i => read m[i, 0:cols-1], write v[i]");
  const DecodedLaunch d = decode(launch(Rect(Point{0}, Point{6})), k);
  const planner::LaunchRequest& r = d.request;
  EXPECT_EQ(r.kernel, KernelId(7));
  EXPECT_EQ(r.name, "decoder_test::Kernel");
  ASSERT_EQ(r.arrays.size(), 5u);  // one per parameter, scalars invalid
  EXPECT_EQ(r.arrays[1], v_);
  EXPECT_FALSE(r.arrays[4].valid());
  EXPECT_EQ(r.scalars, (std::vector<int64_t>{0, 0, -3, 4, 0}));  // only integers
  // Regions that do not depend on blocks: no block, so superblocks follow chunk edges exactly.
  EXPECT_EQ(r.block_size, Point{1});
  // Superblocks follow the written array's chunks, not the first listed one's.
  EXPECT_EQ(r.work, work::like(*planner_.array(v_).layout));
  EXPECT_FALSE(r.scalar_reduction);

  const worker::LaunchData& data = *d.data;
  EXPECT_EQ(data.functor.size(), sizeof(Bytes));
  EXPECT_EQ(0, std::memcmp(data.functor.data(), &bytes_, sizeof(Bytes)));
  EXPECT_EQ(data.extents[0], (Point{6, 4}));
  EXPECT_EQ(data.extents[1], Point{6});
  EXPECT_EQ(data.extents[3].rank(), 0);
  ASSERT_EQ(data.arrays.size(), 2u);
  EXPECT_EQ(data.arrays[1].byte_offset, offsetof(Bytes, vector));
}

TEST_F(LaunchDecoder, AnAnnotationUsingBlocksGetsTheDefaultBlocksOf256) {
  // `block b` binds b to a block index only if the runtime chose a block size.
  const kernel::KernelInfo k =
      matrix_kernel("block b, local t => read m[b * 256 + t, 0:cols-1], write v[b * 256 + t]");
  EXPECT_EQ(decode(launch(Rect(Point{0}, Point{6})), k).request.block_size, Point{256});
  const kernel::KernelInfo unused = matrix_kernel("global i, block b => write v[i]");
  EXPECT_EQ(decode(launch(Rect(Point{0}, Point{6})), unused).request.block_size, Point{1});
}

TEST_F(LaunchDecoder, AGivenBlockSizeAndWorkDistributionWin) {
  const kernel::KernelInfo k = matrix_kernel("global [i, j] => read m[i, j], read v[i]");
  Launch l = launch(Rect(Point{0, 0}, Point{6, 4}));
  l.block_size = Point{2, 2};
  EXPECT_EQ(decode(l, k).request.block_size, (Point{2, 2}));
  EXPECT_EQ(decode(l, k).request.work, work::like(*planner_.array(m_).layout));  // reads only
  l.work = work::block(2, 4);
  EXPECT_EQ(decode(l, k).request.work, work::block(2, 4));
}

TEST_F(LaunchDecoder, AColumnMajorArraysChunksAreSeenInTheKernelsOrder) {
  const kernel::KernelInfo k = matrix_kernel("global [j, i] => write m[j, i]", /*reversed=*/true);
  const DecodedLaunch d = decode(launch(Rect(Point{0, 0}, Point{4, 6})), k);
  // Stored reversed (6 x 4 as rows of 3); the kernel's indices are [j, i] over 4 x 6.
  const std::vector<Superblock> sbs =
      d.request.work.split(Rect(Point{0, 0}, Point{4, 6}), Point{1, 1}, planner_.devices());
  ASSERT_EQ(sbs.size(), 2u);
  EXPECT_EQ(sbs[0].threads, Rect(Point{0, 0}, Point{4, 3}));
  EXPECT_EQ(sbs[1].threads, Rect(Point{0, 3}, Point{4, 6}));
}

// A team launch of teams of 5 threads: team b follows row b of the written matrix.
TEST_F(LaunchDecoder, ATeamLaunchFollowsTheRowsOfItsArrayInWholeTeams) {
  const kernel::KernelInfo k = matrix_kernel("block b, local t => read v[b], write m[b, :]");
  Launch l = launch(Rect(Point{0}, Point{6 * 5}));
  l.block_size = Point{5};
  l.teams = true;
  const DecodedLaunch d = decode(l, k);
  const std::vector<Superblock> sbs =
      d.request.work.split(l.domain, l.block_size, planner_.devices());
  ASSERT_EQ(sbs.size(), 2u);  // m: rows of 3
  EXPECT_EQ(sbs[0].threads, Rect(Point{0}, Point{15}));
  EXPECT_EQ(sbs[1].threads, Rect(Point{15}, Point{30}));
  EXPECT_EQ(sbs[0].device, planner_.array(m_).layout->chunks()[0].device);
  EXPECT_EQ(sbs[1].device, planner_.array(m_).layout->chunks()[1].device);
  // A league of another size than the rows is split evenly over the two devices.
  l.domain = Rect(Point{0}, Point{9 * 5});
  const std::vector<Superblock> even =
      decode(l, k).request.work.split(l.domain, l.block_size, planner_.devices());
  ASSERT_EQ(even.size(), 2u);
  EXPECT_EQ(even[0].threads, Rect(Point{0}, Point{25}));
  EXPECT_EQ(even[1].threads, Rect(Point{25}, Point{45}));
  // A column-major array's rows are not its chunks' first axis: the league is split evenly.
  const kernel::KernelInfo column_major =
      matrix_kernel("block b => write m[b, :]", /*reversed=*/true);
  l.domain = Rect(Point{0}, Point{4 * 5});
  EXPECT_EQ(decode(l, column_major).request.work, work::block(2 * 5));
}

TEST_F(LaunchDecoder, ReductionsAreResolvedAgainstTheKernel) {
  kernel::KernelInfo k = matrix_kernel("global i => read v[i]");
  k.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  Launch l = launch(Rect(Point{0}, Point{6}));
  double value = 0;
  try {
    decode(l, k, planner::HostBufferId{3});
    FAIL() << "a reduction without a result was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(),
              "kernel 'decoder_test::Kernel' reduces to a value, but the launch gives no result");
  }
  l.result = &value;
  DecodedLaunch d = decode(l, k, planner::HostBufferId{3});
  ASSERT_TRUE(d.request.scalar_reduction);
  EXPECT_EQ(d.request.scalar_reduction->result.value, 3u);
  EXPECT_EQ(d.data->reduction, *k.reduction);  // the kernel's own
  l.reduction = Reduction::builtin(ReduceOp::kMin, DataType::kFloat64);
  EXPECT_EQ(decode(l, k, planner::HostBufferId{3}).data->reduction.op, ReduceOp::kMin);
  l.reduction = Reduction::builtin(ReduceOp::kMin, DataType::kInt32);
  EXPECT_THROW(decode(l, k, planner::HostBufferId{3}), Error);  // 4 bytes, the kernel's are 8
}

}  // namespace
}  // namespace lightning::driver
