#include "worker/memory_pool.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

constexpr uint64_t kA = MemoryPool::kAlignment;

TEST(MemoryPool, RoundsAndAligns) {
  MemoryPool pool(10 * kA + 17);
  EXPECT_EQ(pool.capacity(), 10 * kA);
  EXPECT_EQ(MemoryPool::rounded(0), kA);
  EXPECT_EQ(MemoryPool::rounded(1), kA);
  EXPECT_EQ(MemoryPool::rounded(kA), kA);
  EXPECT_EQ(MemoryPool::rounded(kA + 1), 2 * kA);
  auto a = pool.allocate(1);
  auto b = pool.allocate(kA + 1);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, 0u);
  EXPECT_EQ(*b, kA);
  EXPECT_EQ(pool.used(), 3 * kA);
  EXPECT_EQ(pool.largest_free(), 7 * kA);
  EXPECT_FALSE(pool.allocate(7 * kA + 1));
  EXPECT_TRUE(pool.allocate(7 * kA));
  EXPECT_EQ(pool.largest_free(), 0u);
  EXPECT_FALSE(pool.allocate(0));
}

TEST(MemoryPool, BestFitAndCoalescing) {
  MemoryPool pool(16 * kA);
  std::vector<uint64_t> at;
  for (uint64_t size : {4, 1, 2, 1, 3, 5}) at.push_back(*pool.allocate(size * kA));
  // Holes of 4 units (offset 0) and 2 units (offset 5): a 2-unit block goes to the 2-unit hole.
  pool.free(at[0]);
  pool.free(at[2]);
  EXPECT_EQ(pool.free_block_count(), 2u);
  EXPECT_EQ(*pool.allocate(2 * kA), 5 * kA);
  pool.free(5 * kA);
  // Freeing the 1-unit block between the holes merges 4 + 1 + 2 into 7 units.
  pool.free(at[1]);
  EXPECT_EQ(pool.free_block_count(), 1u);
  EXPECT_EQ(pool.largest_free(), 7 * kA);
  for (size_t i = 3; i < at.size(); ++i) pool.free(at[i]);
  EXPECT_EQ(pool.used(), 0u);
  EXPECT_EQ(pool.free_block_count(), 1u);
  EXPECT_EQ(pool.largest_free(), 16 * kA);
}

TEST(MemoryPool, FreeOfUnknownOffsetIsAnError) {
  MemoryPool pool(4 * kA);
  auto a = pool.allocate(kA);
  EXPECT_THROW(pool.free(kA), Error);
  pool.free(*a);
  try {
    pool.free(*a);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
  }
}

TEST(MemoryPool, GrowsAtItsEnd) {
  MemoryPool pool(0);
  EXPECT_FALSE(pool.allocate(kA));
  pool.grow(2 * kA + 7);
  EXPECT_EQ(pool.capacity(), 2 * kA);
  auto a = pool.allocate(kA);
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, 0u);
  pool.grow(kA);  // lower: nothing changes
  EXPECT_EQ(pool.capacity(), 2 * kA);
  // The free unit at the end merges with the new bytes; a block in the middle stays apart.
  pool.grow(5 * kA);
  EXPECT_EQ(pool.free_block_count(), 1u);
  EXPECT_EQ(pool.largest_free(), 4 * kA);
  auto b = pool.allocate(4 * kA);
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, kA);
  pool.free(*a);
  pool.grow(6 * kA);
  EXPECT_EQ(pool.free_block_count(), 2u);
  EXPECT_EQ(pool.largest_free(), kA);
  EXPECT_EQ(pool.used(), 4 * kA);
}

TEST(MemoryPool, EmptyPool) {
  MemoryPool pool(0);
  EXPECT_FALSE(pool.allocate(0));
  EXPECT_EQ(pool.largest_free(), 0u);
}

// The reference: one flag per unit; best fit = the shortest free run that fits, lowest offset
// first among equals.
struct BruteForcePool {
  std::vector<int> owner;  // -1 free, else allocation id
  explicit BruteForcePool(size_t units) : owner(units, -1) {}
  std::optional<size_t> allocate(size_t units, int id) {
    std::optional<size_t> best;
    size_t best_len = 0;
    for (size_t i = 0; i < owner.size();) {
      if (owner[i] != -1) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < owner.size() && owner[j] == -1) ++j;
      if (j - i >= units && (!best || j - i < best_len)) {
        best = i;
        best_len = j - i;
      }
      i = j;
    }
    if (best)
      for (size_t k = 0; k < units; ++k) owner[*best + k] = id;
    return best;
  }
  void free(int id) {
    for (int& o : owner)
      if (o == id) o = -1;
  }
  size_t largest_free() const {
    size_t best = 0;
    for (size_t i = 0; i < owner.size();) {
      size_t j = i;
      while (j < owner.size() && owner[j] == -1) ++j;
      best = std::max(best, j - i);
      i = j == i ? i + 1 : j;
    }
    return best;
  }
  size_t free_runs() const {
    size_t runs = 0;
    for (size_t i = 0; i < owner.size(); ++i)
      if (owner[i] == -1 && (i == 0 || owner[i - 1] != -1)) ++runs;
    return runs;
  }
};

TEST(MemoryPool, MatchesBruteForceModelOnRandomSequences) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 60; ++round) {
    size_t units = 1 + rng() % 64;
    MemoryPool pool(units * kA + rng() % kA);
    BruteForcePool model(units);
    std::vector<std::pair<int, uint64_t>> live;  // (id, offset)
    int next_id = 0;
    for (int step = 0; step < 400; ++step) {
      if (rng() % 100 < 2) {  // more of the pool's memory is backed
        const size_t more = rng() % 8;
        pool.grow(pool.capacity() + more * kA + rng() % kA);
        model.owner.resize(model.owner.size() + more, -1);
        ASSERT_EQ(pool.capacity(), model.owner.size() * kA);
        units = model.owner.size();
      } else if (live.empty() || rng() % 100 < 55) {
        const uint64_t bytes = rng() % (units * kA / 3 + 2);
        const size_t want = static_cast<size_t>(MemoryPool::rounded(bytes) / kA);
        auto got = pool.allocate(bytes);
        auto expect = model.allocate(want, next_id);
        ASSERT_EQ(got.has_value(), expect.has_value()) << "round " << round << " step " << step;
        if (got) {
          ASSERT_EQ(*got, *expect * kA);
          ASSERT_EQ(*got % kA, 0u);
          live.emplace_back(next_id, *got);
        }
        ++next_id;
      } else {
        const size_t i = rng() % live.size();
        pool.free(live[i].second);
        model.free(live[i].first);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
      size_t used_units = 0;
      for (int o : model.owner) used_units += o != -1;
      ASSERT_EQ(pool.used(), used_units * kA);
      ASSERT_EQ(pool.largest_free(), model.largest_free() * kA);
      ASSERT_EQ(pool.free_block_count(), model.free_runs());
    }
  }
}

}  // namespace
}  // namespace lightning::worker
