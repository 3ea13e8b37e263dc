// Checked mode's records alone: a checked handle's element addresses, the first access
// outside its region, a changed read-only region, and regions left alone.
#include "worker/access_check.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::worker {
namespace {

using planner::ChunkAccessMode;

// A functor of two rank-2 handles, as the runtime patches them.
struct Functor {
  ArrayHandle<int, 2> a;
  ArrayHandle<int, 2> b;
};

kernel::ArraySlot slot(int param, size_t offset) {
  kernel::ArraySlot s;
  s.param = param;
  s.byte_offset = offset;
  s.rank = 2;
  return s;
}

// A 4 x 5 chunk at rows [2, 6) of a 10 x 5 array: element (i, j) holds 10 * i + j.
struct Chunk {
  Rect box{Point{2, 0}, Point{6, 5}};
  std::vector<int> data = std::vector<int>(20);
  Chunk() {
    box.for_each_point([&](const Point& p) {
      data[static_cast<size_t>((p[0] - 2) * 5 + p[1])] = static_cast<int>(10 * p[0] + p[1]);
    });
  }
  BoxBuffer buffer() { return {data.data(), box, sizeof(int)}; }
};

// What View::operator() gets for element `p` of a checked handle.
int& element(const ArrayHandle<int, 2>& h, const Point& p) {
  return *static_cast<int*>(checked_element(&h, p));
}

TEST(AccessCheck, ACheckedHandleReachesItsRegionAndRecordsTheFirstIndexOutside) {
  Chunk chunk;
  Functor f{};
  auto* bytes = reinterpret_cast<uint8_t*>(&f);
  AccessCheck check;
  const Rect region(Point{3, 1}, Point{5, 4});
  check.add(bytes, slot(0, offsetof(Functor, a)), chunk.buffer(), region,
            ChunkAccessMode::kReadWrite);
  EXPECT_EQ(f.a.data, nullptr);
  EXPECT_TRUE(is_checked_handle(&f.a));
  EXPECT_FALSE(is_checked_handle(&f.b));  // never bound: all zero
  check.before();
  EXPECT_EQ(element(f.a, Point{3, 1}), 31);
  EXPECT_EQ(element(f.a, Point{4, 3}), 43);
  element(f.a, Point{4, 3}) = 7;
  EXPECT_EQ(chunk.data[(4 - 2) * 5 + 3], 7);
  EXPECT_FALSE(check.after().has_value());

  element(f.a, Point{5, 1}) = 99;  // row 5 is in the chunk, not in the region
  element(f.a, Point{2, 0});       // a later one: the first is kept
  EXPECT_EQ(chunk.data[(5 - 2) * 5 + 1], 51) << "an access outside writes the scratch element";
  const auto v = check.after();
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, (planner::AccessViolation{0, Point{5, 1}, region, ChunkAccessMode::kReadWrite,
                                          planner::AccessViolation::Kind::kOutside}));
}

TEST(AccessCheck, AChangedReadOnlyRegionIsFoundAndTheRestOfTheChunkIsNot) {
  Chunk in, out;
  Functor f{};
  auto* bytes = reinterpret_cast<uint8_t*>(&f);
  AccessCheck check;
  const Rect read(Point{2, 0}, Point{4, 5});
  check.add(bytes, slot(1, offsetof(Functor, a)), in.buffer(), read, ChunkAccessMode::kRead);
  check.add(bytes, slot(2, offsetof(Functor, b)), out.buffer(), out.box, ChunkAccessMode::kWrite);
  check.before();
  element(f.b, Point{5, 4}) = 0;                          // written where declared
  element(f.a, Point{3, 2}) = element(f.a, Point{3, 2});  // same value: no change
  in.data[(5 - 2) * 5 + 0] = -5;  // outside the read region (e.g. another superblock's)
  EXPECT_FALSE(check.after().has_value());
  element(f.a, Point{3, 4}) += 1;
  const auto v = check.after();
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, (planner::AccessViolation{1, Point{3, 4}, read, ChunkAccessMode::kRead,
                                          planner::AccessViolation::Kind::kWroteReadOnly}));
}

TEST(AccessCheck, ARegionOutsideItsChunkOrAnOversizedElementIsABug) {
  Chunk chunk;
  Functor f{};
  AccessCheck check;
  EXPECT_THROW(check.add(reinterpret_cast<uint8_t*>(&f), slot(0, 0), chunk.buffer(),
                         Rect(Point{0, 0}, Point{3, 5}), ChunkAccessMode::kRead),
               Error);
  BoxBuffer huge = chunk.buffer();
  huge.elem_size = 128;
  EXPECT_THROW(check.add(reinterpret_cast<uint8_t*>(&f), slot(0, 0), huge, chunk.box,
                         ChunkAccessMode::kRead),
               Error);
}

}  // namespace
}  // namespace lightning::worker
