#include "worker/memory_manager.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "backend/host/host_memory_backend.hpp"
#include "core/error.hpp"
#include "memory_test_support.hpp"

namespace lightning::worker {
namespace {

using namespace lightning::worker::testing;

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * 1024;

class MemoryManagerTest : public ::testing::Test {
 protected:
  /// A manager with devices D0..D(n-1) of `device_bytes` each.
  MemoryManager& make(int devices, uint64_t device_bytes, std::optional<uint64_t> host_bytes) {
    MemoryLimits limits;
    for (int d = 0; d < devices; ++d) limits.devices.emplace_back(DeviceId(d), device_bytes);
    limits.host_bytes = host_bytes;
    limits.spill_dir = dir.path.string();
    mm = std::make_unique<MemoryManager>(limits, backend);
    return *mm;
  }
  /// Stages one chunk for writing, fills it with pattern(seed), unstages.
  void write_chunk(uint64_t chunk, MemorySpace where, uint64_t seed) {
    ASSERT_EQ(mm->stage(next_token, {write(chunk, where)}), StageResult::kStaged);
    put(*mm, chunk, where, pattern(mm->chunk_bytes(ChunkId(chunk)), seed));
    mm->unstage(next_token++);
    mm->check_invariants();
  }
  /// Stages one chunk for reading and checks its bytes.
  void expect_chunk(uint64_t chunk, MemorySpace where, uint64_t seed) {
    ASSERT_EQ(mm->stage(next_token, {read(chunk, where)}), StageResult::kStaged);
    EXPECT_TRUE(holds(*mm, chunk, where, pattern(mm->chunk_bytes(ChunkId(chunk)), seed)))
        << "C" << chunk << " on " << where.to_string();
    mm->unstage(next_token++);
    mm->check_invariants();
  }
  void TearDown() override {
    mm.reset();
    EXPECT_EQ(backend.live_device_pools(), 0);
    EXPECT_EQ(backend.live_host_allocations(), 0);
    EXPECT_TRUE(dir.empty()) << "spill files left behind";
  }

  TempDir dir;
  host::HostMemoryBackend backend;
  std::unique_ptr<MemoryManager> mm;
  uint64_t next_token = 1;
};

template <class F>
Error expect_error(F&& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e;
  }
  ADD_FAILURE() << "no error thrown";
  return Error(ErrorKind::kInternal, "");
}

TEST_F(MemoryManagerTest, MemorySpaceNames) {
  EXPECT_EQ(dev(2).to_string(), "D2 memory");
  EXPECT_EQ(host().to_string(), "host");
  EXPECT_EQ(disk().to_string(), "disk");
  EXPECT_EQ(dev(2), dev(2));
  EXPECT_NE(dev(2), dev(3));
  EXPECT_NE(dev(2), host());
}

TEST_F(MemoryManagerTest, NeverWrittenChunkIsZeros) {
  auto& m = make(1, 4 * KiB, std::nullopt);
  m.create_chunk(ChunkId(1), 1000);
  EXPECT_EQ(m.bytes_used(dev(0)), 0u);  // metadata only
  ASSERT_EQ(m.stage(1, {read(1, dev(0))}), StageResult::kStaged);
  EXPECT_TRUE(holds(m, 1, dev(0), std::vector<unsigned char>(1000, 0)));
  EXPECT_EQ(m.bytes_used(dev(0)), 1024u);
  EXPECT_EQ(m.counters().zero_fills, 1u);
  m.unstage(1);
}

// A chunk created with a phase starts that far past an aligned pool block on a device (so
// it can keep its elements' alignment in the whole array), takes that much more pool, and
// keeps its contents through eviction and return.
TEST_F(MemoryManagerTest, DeviceCopiesStartAtTheirPhase) {
  auto& m = make(1, 4 * KiB, 64 * KiB);
  m.create_chunk(ChunkId(1), 1000, /*phase=*/252);
  m.create_chunk(ChunkId(2), 1024, /*phase=*/256 + 4);  // modulo the alignment: 4
  write_chunk(1, dev(0), 7);
  write_chunk(2, dev(0), 8);
  ASSERT_EQ(m.stage(next_token, {read(1, dev(0)), read(2, dev(0))}), StageResult::kStaged);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data(ChunkId(1), dev(0))) % MemoryPool::kAlignment, 252u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data(ChunkId(2), dev(0))) % MemoryPool::kAlignment, 4u);
  EXPECT_EQ(m.bytes_used(dev(0)), 1280u + 1280u);  // 1000 + 252 and 1024 + 4, rounded
  m.unstage(next_token++);
  m.check_invariants();
  // Two more chunks push both out to the host; they come back whole, at their phase.
  for (uint64_t c = 3; c <= 4; ++c) {
    m.create_chunk(ChunkId(c), 2 * KiB);
    write_chunk(c, dev(0), 100 + c);
  }
  EXPECT_FALSE(m.has_copy(ChunkId(1), dev(0)));
  expect_chunk(1, dev(0), 7);
  expect_chunk(2, dev(0), 8);
  ASSERT_EQ(m.stage(next_token, {read(1, dev(0))}), StageResult::kStaged);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m.data(ChunkId(1), dev(0))) % MemoryPool::kAlignment, 252u);
  m.unstage(next_token++);
}

TEST_F(MemoryManagerTest, EvictsDeviceToHostToDiskAndBack) {
  auto& m = make(1, 4 * KiB, 4 * KiB);
  for (uint64_t c = 1; c <= 6; ++c) m.create_chunk(ChunkId(c), 2 * KiB);
  for (uint64_t c = 1; c <= 6; ++c) {
    write_chunk(c, dev(0), 100 + c);
    EXPECT_LE(m.bytes_used(dev(0)), 4 * KiB);
    EXPECT_LE(m.bytes_used(host()), 4 * KiB);
  }
  // D0 holds the two most recent, host the next two, disk the oldest two.
  for (uint64_t c : {5, 6}) EXPECT_TRUE(m.has_copy(ChunkId(c), dev(0)));
  for (uint64_t c : {3, 4}) EXPECT_TRUE(m.has_copy(ChunkId(c), host()));
  for (uint64_t c : {1, 2}) EXPECT_TRUE(m.has_copy(ChunkId(c), disk()));
  EXPECT_EQ(m.counters().device_evictions, 4u);
  EXPECT_EQ(m.counters().write_backs_to_host, 4u);
  EXPECT_EQ(m.counters().host_evictions, 2u);
  EXPECT_EQ(m.counters().disk_writes, 2u);
  EXPECT_EQ(m.spill_file_count(), 2u);
  EXPECT_EQ(dir.file_count(), 2u);
  EXPECT_EQ(m.bytes_used(disk()), 4 * KiB);
  // Every chunk comes back intact, over and over, from wherever it went.
  for (int round = 0; round < 3; ++round)
    for (uint64_t c = 1; c <= 6; ++c) expect_chunk(c, dev(0), 100 + c);
  EXPECT_GT(m.counters().disk_reads, 0u);
  // Clean copies with a valid spill file are dropped, not written again.
  const uint64_t writes = m.counters().disk_writes;
  for (uint64_t c = 1; c <= 6; ++c) expect_chunk(c, dev(0), 100 + c);
  EXPECT_EQ(m.counters().disk_writes, writes);
}

// Eviction follows the plan: chunks no task will use go first (least recently used first),
// then the one whose next use is farthest; a next use given before the chunk exists counts.
TEST_F(MemoryManagerTest, EvictsWhatIsUsedLastFirst) {
  auto& m = make(1, 4 * KiB, std::nullopt);
  m.plan_next_use(ChunkId(4), 40);  // before its creation
  for (uint64_t c = 1; c <= 5; ++c) m.create_chunk(ChunkId(c), 1 * KiB);
  m.plan_next_use(ChunkId(1), 30);
  m.plan_next_use(ChunkId(2), 10);
  m.plan_next_use(ChunkId(3), 20);
  for (uint64_t c = 1; c <= 4; ++c) write_chunk(c, dev(0), c);  // the device is full
  auto resident = [&] {
    std::vector<uint64_t> on;
    for (uint64_t c = 1; c <= 5; ++c)
      if (m.has_copy(ChunkId(c), dev(0))) on.push_back(c);
    return on;
  };
  write_chunk(5, dev(0), 5);  // C4's next use (40) is the farthest
  EXPECT_EQ(resident(), (std::vector<uint64_t>{1, 2, 3, 5}));
  write_chunk(4, dev(0), 4);  // C5 has no planned use: it goes before any planned one
  EXPECT_EQ(resident(), (std::vector<uint64_t>{1, 2, 3, 4}));
  m.plan_next_use(ChunkId(1), kNoPlannedUse);  // C1 and C5 unplanned: the older goes
  m.plan_next_use(ChunkId(5), kNoPlannedUse);
  expect_chunk(5, dev(0), 5);
  EXPECT_EQ(resident(), (std::vector<uint64_t>{2, 3, 4, 5}));
  m.plan_next_use(ChunkId(3), 50);  // now the farthest
  m.plan_next_use(ChunkId(5), 15);
  expect_chunk(1, dev(0), 1);
  EXPECT_EQ(resident(), (std::vector<uint64_t>{1, 2, 4, 5}));
  EXPECT_TRUE(m.has_copy(ChunkId(3), host()));  // written back: its only copy
  m.plan_next_use(ChunkId(99), 7);              // a chunk never created: kept aside, harmless
  m.plan_next_use(ChunkId(99), kNoPlannedUse);
  m.check_invariants();
}

// Writing back ahead of eviction: the first dirty copy in eviction order that a task will
// use, once what the device would evict to free a quarter of it is not free to evict; the
// chunk waits meanwhile, and its later eviction copies nothing.
TEST_F(MemoryManagerTest, WritesBackAheadOfEvictionWhenShortOfCleanMemory) {
  auto& m = make(1, 4 * KiB, std::nullopt);
  for (uint64_t c = 1; c <= 5; ++c) m.create_chunk(ChunkId(c), 1 * KiB);
  for (uint64_t c = 1; c <= 5; ++c) m.plan_next_use(ChunkId(c), 100 - c);  // C1 used last
  for (uint64_t c = 1; c <= 3; ++c) write_chunk(c, dev(0), c);
  EXPECT_FALSE(m.start_write_back());  // a quarter is free
  write_chunk(4, dev(0), 4);
  // C4, which no task will use, goes first: its eviction writes it back if it comes to that.
  m.plan_next_use(ChunkId(4), kNoPlannedUse);
  EXPECT_FALSE(m.start_write_back());
  m.plan_next_use(ChunkId(4), 50);  // now the last to go: C1 (99) is the first
  std::optional<WriteBack> w = m.start_write_back();
  ASSERT_TRUE(w);
  EXPECT_EQ(w->chunk, ChunkId(1));
  EXPECT_EQ(w->from, dev(0));
  EXPECT_EQ(w->bytes, 1 * KiB);
  EXPECT_TRUE(m.writing_back(ChunkId(1)));
  EXPECT_TRUE(m.is_locked(ChunkId(1), dev(0)));
  m.check_invariants();
  EXPECT_FALSE(m.start_write_back());  // C1, clean once written back, makes the quarter
  // While it is written back the chunk can be neither staged nor deleted.
  EXPECT_EQ(m.stage(next_token, {read(1, dev(0))}), StageResult::kRetryLater);
  EXPECT_FALSE(m.stage_in_place(next_token, {read(1, dev(0))}, {}));
  expect_error([&] { m.delete_chunk(ChunkId(1)); }, ErrorKind::kInvalidArgument);
  backend.copy(w->dst, host(), w->src, w->from, w->bytes);
  m.finish_write_back(ChunkId(1), true);
  EXPECT_FALSE(m.writing_back(ChunkId(1)));
  EXPECT_TRUE(m.has_copy(ChunkId(1), host()));
  EXPECT_EQ(m.counters().written_back_early, 1u);
  m.check_invariants();
  EXPECT_FALSE(m.start_write_back());  // C1 is clean: a quarter can be had for nothing
  write_chunk(5, dev(0), 5);           // evicts C1 by dropping it
  EXPECT_FALSE(m.has_copy(ChunkId(1), dev(0)));
  EXPECT_EQ(m.counters().write_backs_to_host, 0u);
  expect_chunk(1, host(), 1);
  // A write-back whose copy failed leaves the device copy the only one, intact.
  w = m.start_write_back();
  ASSERT_TRUE(w);
  EXPECT_EQ(w->chunk, ChunkId(2));  // 98: used last of C2, C3, C4 and C5
  m.finish_write_back(ChunkId(2), false);
  EXPECT_FALSE(m.has_copy(ChunkId(2), host()));
  m.check_invariants();
  expect_chunk(2, dev(0), 2);
  expect_error([&] { m.finish_write_back(ChunkId(2), true); }, ErrorKind::kInternal);
}

TEST_F(MemoryManagerTest, WithoutHostRoomDeviceEvictsStraightToDisk) {
  auto& m = make(1, 2 * KiB, 0);
  m.create_chunk(ChunkId(1), 2 * KiB);
  m.create_chunk(ChunkId(2), 2 * KiB);
  write_chunk(1, dev(0), 1);
  write_chunk(2, dev(0), 2);
  EXPECT_TRUE(m.has_copy(ChunkId(1), disk()));
  EXPECT_FALSE(m.has_copy(ChunkId(1), host()));
  EXPECT_EQ(m.counters().write_backs_to_host, 0u);
  expect_chunk(1, dev(0), 1);
  expect_chunk(2, dev(0), 2);
  // Host tasks cannot run at all with a zero host cap.
  expect_error([&] { m.stage(99, {read(1, host())}); }, ErrorKind::kOutOfMemory);
}

TEST_F(MemoryManagerTest, StagingIsAllOrNothing) {
  auto& m = make(1, 4 * KiB, std::nullopt);
  for (uint64_t c = 1; c <= 3; ++c) m.create_chunk(ChunkId(c), 2 * KiB);
  write_chunk(1, dev(0), 1);
  ASSERT_EQ(m.stage(10, {read(1, dev(0))}), StageResult::kStaged);  // C1 locked on D0
  const MemoryCounters before = m.counters();
  // C2 would fit, C3 too, but not both next to the locked C1.
  EXPECT_EQ(m.stage(11, {read(2, dev(0)), write(3, dev(0))}), StageResult::kRetryLater);
  EXPECT_FALSE(m.has_copy(ChunkId(2), dev(0)));
  EXPECT_FALSE(m.has_copy(ChunkId(3), dev(0)));
  EXPECT_EQ(m.bytes_used(dev(0)), 2 * KiB);
  EXPECT_EQ(m.counters().device_evictions, before.device_evictions);
  EXPECT_EQ(m.counters().zero_fills, before.zero_fills);
  EXPECT_FALSE(m.is_staged(11));
  m.check_invariants();
  // One of them fits.
  ASSERT_EQ(m.stage(12, {read(2, dev(0))}), StageResult::kStaged);
  m.unstage(12);
  // After the unstage, the same request succeeds, evicting C1 and C2 as needed.
  m.unstage(10);
  ASSERT_EQ(m.stage(11, {read(2, dev(0)), write(3, dev(0))}), StageResult::kStaged);
  EXPECT_TRUE(m.has_copy(ChunkId(1), host()));
  m.unstage(11);
  expect_chunk(1, dev(0), 1);
}

TEST_F(MemoryManagerTest, RetryWhenHostSpaceIsLocked) {
  auto& m = make(0, 0, 4 * KiB);
  m.create_chunk(ChunkId(1), 3 * KiB);
  m.create_chunk(ChunkId(2), 3 * KiB);
  ASSERT_EQ(m.stage(1, {write(1, host())}), StageResult::kStaged);
  EXPECT_EQ(m.stage(2, {read(2, host())}), StageResult::kRetryLater);
  m.unstage(1);
  ASSERT_EQ(m.stage(2, {read(2, host())}), StageResult::kStaged);
  EXPECT_TRUE(m.has_copy(ChunkId(1), disk()));
  m.unstage(2);
}

// Nothing is backed until a chunk needs it; then the pool grows in steps, never past its cap,
// before anything is evicted.
TEST(MemoryManagerPools, GrowInStepsAsChunksNeedThem) {
  TempDir dir;
  FiniteDeviceBackend backend(UINT64_MAX);
  MemoryLimits limits;
  limits.devices = {{DeviceId(0), 200 * MiB + 512}};
  limits.spill_dir = dir.path.string();
  MemoryManager m(limits, backend);
  const uint64_t step = MemoryManager::kPoolGrowthStep;
  EXPECT_EQ(m.bytes_backed(dev(0)), 0u);
  EXPECT_TRUE(backend.asked.empty());
  m.create_chunk(ChunkId(1), KiB);
  ASSERT_EQ(m.stage(1, {write(1, dev(0))}), StageResult::kStaged);
  EXPECT_EQ(m.bytes_backed(dev(0)), step);
  // A chunk bigger than a step: the pool grows by what is missing, rounded to steps, at once.
  m.create_chunk(ChunkId(2), 100 * MiB);
  StageRequest big = write(2, dev(0));
  big.overwritten = {0, 100 * MiB};  // no fill: the test touches little memory
  ASSERT_EQ(m.stage(2, {big}), StageResult::kStaged);
  EXPECT_EQ(m.bytes_backed(dev(0)), 3 * step);
  EXPECT_EQ(m.counters().pool_growths, 2u);
  // The last growth stops at the cap (rounded down to the pool's alignment).
  m.create_chunk(ChunkId(3), 95 * MiB);  // 92 MiB are free of the three steps
  StageRequest more = write(3, dev(0));
  more.overwritten = {0, 95 * MiB};
  ASSERT_EQ(m.stage(3, {more}), StageResult::kStaged);
  EXPECT_EQ(m.bytes_backed(dev(0)), 200 * MiB + 512);
  EXPECT_EQ(backend.asked, (std::vector<uint64_t>{step, 3 * step, 200 * MiB + 512}));
  EXPECT_EQ(m.counters().device_evictions, 0u);
  for (uint64_t t = 1; t <= 3; ++t) m.unstage(t);
  // At the cap: room comes from eviction now.
  m.create_chunk(ChunkId(4), 100 * MiB);
  StageRequest again = write(4, dev(0));
  again.overwritten = {0, 100 * MiB};
  ASSERT_EQ(m.stage(4, {again}), StageResult::kStaged);
  EXPECT_GE(m.counters().device_evictions, 1u);
  EXPECT_EQ(backend.asked.size(), 3u);
  m.unstage(4);
  m.check_invariants();
}

// The device runs out before the cap: the pool keeps what it has, evicts within it, and a
// task that needs more than it has fails saying why, leaving the manager usable.
TEST(MemoryManagerPools, ADeviceThatRunsOutStopsThePool) {
  TempDir dir;
  FiniteDeviceBackend backend(6 * KiB);
  MemoryLimits limits;
  limits.devices = {{DeviceId(0), 16 * KiB}};
  limits.spill_dir = dir.path.string();
  MemoryManager m(limits, backend);
  uint64_t token = 1;
  for (uint64_t c = 1; c <= 4; ++c) {
    m.create_chunk(ChunkId(c), 2 * KiB);
    ASSERT_EQ(m.stage(token, {write(c, dev(0))}), StageResult::kStaged) << "C" << c;
    put(m, c, dev(0), pattern(2 * KiB, c));
    m.unstage(token++);
    m.check_invariants();
  }
  // Each growth asked for the cap first (one step covers it), then for what was missing.
  EXPECT_EQ(backend.asked, (std::vector<uint64_t>{16 * KiB, 2 * KiB, 16 * KiB, 4 * KiB, 16 * KiB,
                                                  6 * KiB, 16 * KiB, 8 * KiB}));
  EXPECT_EQ(m.capacity(dev(0)), 6 * KiB);
  EXPECT_EQ(m.bytes_backed(dev(0)), 6 * KiB);
  EXPECT_EQ(m.counters().device_evictions, 1u);  // C1 made room for C4
  for (uint64_t c = 1; c <= 4; ++c) {            // every chunk kept its bytes
    ASSERT_EQ(m.stage(token, {read(c, dev(0))}), StageResult::kStaged);
    EXPECT_TRUE(holds(m, c, dev(0), pattern(2 * KiB, c))) << "C" << c;
    m.unstage(token++);
  }
  try {
    m.stage(token, {read(1, dev(0)), read(2, dev(0)), read(3, dev(0)), read(4, dev(0))});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kOutOfMemory);
    EXPECT_EQ(e.message(),
              "task needs 8 KiB on D0 memory (chunks C1 2 KiB, C2 2 KiB, C3 2 KiB, C4 2 KiB), "
              "which holds 6 KiB of its cap of 16 KiB: its pool could not grow further, the "
              "device had no memory left (other processes or pools hold it)");
  }
  EXPECT_FALSE(m.is_staged(token));
  EXPECT_EQ(backend.asked.size(), 8u);  // a stopped pool asks no more
  ASSERT_EQ(m.stage(token, {read(2, dev(0)), read(3, dev(0))}), StageResult::kStaged);
  m.unstage(token);
  m.check_invariants();
}

TEST_F(MemoryManagerTest, OutOfMemoryMessageGivesSizes) {
  auto& m = make(2, 64 * MiB, 16 * MiB);
  m.create_chunk(ChunkId(4), 64 * MiB);
  m.create_chunk(ChunkId(9), 32 * MiB);
  auto e = expect_error(
      [&] {
        m.stage(1, {read(9, dev(1)), write(4, dev(1))});
      },
      ErrorKind::kOutOfMemory);
  EXPECT_EQ(e.message(),
            "task needs 96 MiB on D1 memory (chunks C4 64 MiB, C9 32 MiB), which holds 64 MiB");
  e = expect_error([&] { m.stage(1, {read(9, host())}); }, ErrorKind::kOutOfMemory);
  EXPECT_EQ(e.message(), "task needs 32 MiB on host (chunk C9 32 MiB), which holds 16 MiB");
  // Alignment is part of the size on devices.
  m.create_chunk(ChunkId(5), 64 * MiB - 100);
  m.create_chunk(ChunkId(6), 100);
  e = expect_error(
      [&] {
        m.stage(1, {read(5, dev(0)), read(6, dev(0))});
      },
      ErrorKind::kOutOfMemory);
  EXPECT_NE(e.message().find("in 256-byte units"), std::string::npos) << e.message();
  EXPECT_FALSE(m.is_staged(1));
  EXPECT_EQ(m.bytes_used(dev(1)), 0u);
  // Chunks that fit one at a time still work.
  ASSERT_EQ(m.stage(1, {write(4, dev(1))}), StageResult::kStaged);
  m.unstage(1);
}

TEST_F(MemoryManagerTest, SameChunkTwiceInOneTask) {
  auto& m = make(1, 4 * KiB, std::nullopt);
  m.create_chunk(ChunkId(1), 2 * KiB);
  ASSERT_EQ(m.stage(1, {read(1, dev(0)), write(1, dev(0)), read(1, dev(0))}), StageResult::kStaged);
  EXPECT_EQ(m.bytes_used(dev(0)), 2 * KiB);
  put(m, 1, dev(0), pattern(2 * KiB, 5));
  m.unstage(1);
  EXPECT_FALSE(m.is_locked(ChunkId(1), dev(0)));
  // Reading it on two memories in one task is fine too.
  ASSERT_EQ(m.stage(2, {read(1, dev(0)), read(1, host())}), StageResult::kStaged);
  EXPECT_TRUE(holds(m, 1, host(), pattern(2 * KiB, 5)));
  m.unstage(2);
}

TEST_F(MemoryManagerTest, MultipleValidCopiesAndInvalidationOnWrite) {
  auto& m = make(2, 8 * KiB, std::nullopt);
  m.create_chunk(ChunkId(1), 3 * KiB);
  write_chunk(1, dev(0), 1);
  // Two tasks read it on two devices at once, a third on the host.
  ASSERT_EQ(m.stage(1, {read(1, dev(0))}), StageResult::kStaged);
  ASSERT_EQ(m.stage(2, {read(1, dev(1))}), StageResult::kStaged);
  ASSERT_EQ(m.stage(3, {read(1, host())}), StageResult::kStaged);
  EXPECT_TRUE(holds(m, 1, dev(1), pattern(3 * KiB, 1)));
  EXPECT_TRUE(holds(m, 1, host(), pattern(3 * KiB, 1)));
  EXPECT_NE(m.data(ChunkId(1), dev(0)), m.data(ChunkId(1), dev(1)));
  // A writer must wait for every reader.
  EXPECT_EQ(m.stage(4, {write(1, dev(1))}), StageResult::kRetryLater);
  m.unstage(1);
  m.unstage(3);
  EXPECT_EQ(m.stage(4, {write(1, dev(1))}), StageResult::kRetryLater);
  m.unstage(2);
  ASSERT_EQ(m.stage(4, {write(1, dev(1))}), StageResult::kStaged);
  // The written copy is the only one: the others are gone at once.
  EXPECT_FALSE(m.has_copy(ChunkId(1), dev(0)));
  EXPECT_FALSE(m.has_copy(ChunkId(1), host()));
  EXPECT_EQ(m.counters().invalidations, 2u);
  EXPECT_EQ(m.bytes_used(dev(0)), 0u);
  EXPECT_EQ(m.bytes_used(host()), 0u);
  // Readers wait for the writer.
  EXPECT_EQ(m.stage(5, {read(1, dev(0))}), StageResult::kRetryLater);
  put(m, 1, dev(1), pattern(3 * KiB, 2));
  m.unstage(4);
  expect_chunk(1, dev(0), 2);
  expect_chunk(1, host(), 2);
}

// Launches issued behind one another on one in-order device share their chunks' locks: the
// later one stages in place while the earlier one still holds them, writers included.
TEST_F(MemoryManagerTest, StageInPlaceSharesTheCopyWithTheTasksItRunsBehind) {
  auto& m = make(1, 8 * KiB, std::nullopt);
  m.create_chunk(ChunkId(1), 3 * KiB);
  m.create_chunk(ChunkId(2), 1 * KiB);
  write_chunk(1, dev(0), 1);
  ASSERT_EQ(m.stage(1, {write(1, dev(0)), read(2, dev(0))}), StageResult::kStaged);
  void* written = m.data(ChunkId(1), dev(0));
  // The ordinary way, a second writer waits; behind the first, in place, it goes at once.
  EXPECT_EQ(m.stage(2, {write(1, dev(0))}), StageResult::kRetryLater);
  ASSERT_TRUE(m.stage_in_place(2, {write(1, dev(0)), read(2, dev(0))}, {1}));
  ASSERT_TRUE(m.stage_in_place(3, {read(1, dev(0))}, {2}));
  m.check_invariants();
  EXPECT_TRUE(m.is_locked(ChunkId(1), dev(0)));
  EXPECT_EQ(m.data(ChunkId(1), dev(0)), written);
  EXPECT_EQ(m.counters().bytes_copied, 0u);
  // An ordinary reader still waits for the writers, whichever ends first.
  EXPECT_EQ(m.stage(4, {read(1, dev(0))}), StageResult::kRetryLater);
  m.unstage(2);
  m.check_invariants();
  EXPECT_EQ(m.stage(4, {read(1, dev(0))}), StageResult::kRetryLater);
  m.unstage(1);
  m.unstage(3);
  m.check_invariants();
  ASSERT_EQ(m.stage(4, {read(1, dev(0))}), StageResult::kStaged);
  m.unstage(4);
  expect_chunk(1, dev(0), 1);
}

// A new chunk (no bytes anywhere yet, as a launch's value chunk) staged in place gets its
// first copy there, zeros as any new chunk's, when the memory has room as it is; without
// room nothing is evicted nor kept: the task waits and stages the ordinary way.
TEST_F(MemoryManagerTest, StageInPlaceGivesANewChunkItsFirstCopyWhereThereIsRoom) {
  auto& m = make(1, 8 * KiB, std::nullopt);
  m.create_chunk(ChunkId(1), 3 * KiB);
  m.create_chunk(ChunkId(2), 1000);
  m.create_chunk(ChunkId(3), 1 * KiB);
  m.create_chunk(ChunkId(4), 5 * KiB);
  write_chunk(1, dev(0), 1);
  ASSERT_EQ(m.stage(1, {read(1, dev(0))}), StageResult::kStaged);
  ASSERT_TRUE(m.stage_in_place(2, {read(1, dev(0)), read(2, dev(0))}, {1}));
  m.check_invariants();
  EXPECT_TRUE(m.is_locked(ChunkId(2), dev(0)));
  EXPECT_TRUE(holds(m, 2, dev(0), std::vector<unsigned char>(1000, 0)));
  EXPECT_EQ(m.counters().bytes_copied, 0u);
  EXPECT_EQ(m.bytes_used(dev(0)), 4 * KiB);
  // 1 KiB more fits, 5 KiB more does not (8 KiB): refused as a whole, the first undone.
  EXPECT_FALSE(m.stage_in_place(3, {write(3, dev(0)), write(4, dev(0))}, {1}));
  EXPECT_FALSE(m.is_staged(3));
  EXPECT_FALSE(m.has_copy(ChunkId(3), dev(0)));
  EXPECT_FALSE(m.has_copy(ChunkId(4), dev(0)));
  EXPECT_EQ(m.bytes_used(dev(0)), 4 * KiB);
  m.check_invariants();
  // A new chunk wanted in two memories at once is a move away: refused, nothing kept.
  EXPECT_FALSE(m.stage_in_place(3, {read(3, dev(0)), read(3, host())}, {1}));
  EXPECT_FALSE(m.has_copy(ChunkId(3), dev(0)));
  EXPECT_FALSE(m.has_copy(ChunkId(3), host()));
  m.check_invariants();
  ASSERT_TRUE(m.stage_in_place(3, {write(3, dev(0))}, {1}));
  EXPECT_EQ(m.bytes_used(dev(0)), 5 * KiB);
  for (uint64_t t : {1, 2, 3}) m.unstage(t);
  m.check_invariants();
}

// Staging in place never moves, evicts or drops a copy: whatever would need it is refused,
// and nothing changes.
TEST_F(MemoryManagerTest, StageInPlaceRefusesWhatWouldMoveData) {
  auto& m = make(2, 8 * KiB, std::nullopt);
  m.create_chunk(ChunkId(1), 3 * KiB);
  m.create_chunk(ChunkId(2), 1 * KiB);
  write_chunk(1, dev(0), 1);
  ASSERT_EQ(m.stage(1, {read(1, dev(0))}), StageResult::kStaged);
  // Behind a task that is not staged.
  EXPECT_FALSE(m.stage_in_place(2, {read(1, dev(0))}, {7}));
  // A chunk with its bytes on another device only.
  EXPECT_FALSE(m.stage_in_place(2, {read(1, dev(1))}, {1}));
  // Writing a chunk that has a copy elsewhere too would drop that copy.
  ASSERT_EQ(m.stage(3, {read(1, host())}), StageResult::kStaged);
  EXPECT_FALSE(m.stage_in_place(2, {write(1, dev(0))}, {1}));
  EXPECT_FALSE(m.is_staged(2));
  EXPECT_EQ(m.counters().bytes_copied, 3 * KiB);  // the host copy, nothing since
  m.check_invariants();
  // Readers do not mind other copies.
  ASSERT_TRUE(m.stage_in_place(2, {read(1, dev(0))}, {1}));
  EXPECT_THROW(m.stage_in_place(2, {read(1, dev(0))}, {1}), Error);  // already staged
  for (uint64_t t : {1, 2, 3}) m.unstage(t);
  m.check_invariants();
}

// A task that overwrites a whole chunk gets a copy without the old bytes: neither zeros for a
// new chunk nor a copy of the valid one elsewhere. What it writes is what readers see.
TEST_F(MemoryManagerTest, OverwritingTasksSkipTheFill) {
  auto& m = make(2, 8 * KiB, std::nullopt);
  m.create_chunk(ChunkId(1), 3 * KiB);
  m.create_chunk(ChunkId(2), 2 * KiB);
  write_chunk(1, dev(0), 1);
  const MemoryCounters before = m.counters();
  StageRequest over1 = write(1, dev(1)), over2 = write(2, dev(0));
  over1.overwritten = {0, 3 * KiB};
  over2.overwritten = {0, 2 * KiB};
  ASSERT_EQ(m.stage(7, {over1, over2}), StageResult::kStaged);
  EXPECT_EQ(m.counters().bytes_copied, before.bytes_copied);  // C1's valid copy on D0 not fetched
  EXPECT_EQ(m.counters().zero_fills, before.zero_fills);      // C2 not zeroed
  EXPECT_EQ(m.counters().fills_skipped, before.fills_skipped + 2);
  EXPECT_FALSE(m.has_copy(ChunkId(1), dev(0)));  // the overwritten copy is the only one
  put(m, 1, dev(1), pattern(3 * KiB, 5));
  put(m, 2, dev(0), pattern(2 * KiB, 6));
  m.unstage(7);
  expect_chunk(1, host(), 5);
  expect_chunk(2, dev(1), 6);
  // Asked for together with a plain write of the same chunk, it is filled as usual.
  ASSERT_EQ(m.stage(8, {over1, write(1, dev(1))}), StageResult::kStaged);
  EXPECT_TRUE(holds(m, 1, dev(1), pattern(3 * KiB, 5)));
  m.unstage(8);
  StageRequest not_written = read(1, dev(0));
  not_written.overwritten = {0, 3 * KiB};
  expect_error([&] { m.stage(9, {not_written}); }, ErrorKind::kInvalidArgument);
  m.check_invariants();
}

// A task that overwrites a run of a chunk's bytes (a kernel writing the core of a chunk with
// halos) gets a copy filled around it: the bytes before and after come from the valid copy,
// those it overwrites are not copied.
TEST_F(MemoryManagerTest, OverwritingPartOfAChunkFillsAroundIt) {
  auto& m = make(2, 8 * KiB, std::nullopt);
  const auto put_at = [&](uint64_t chunk, MemorySpace where, uint64_t offset,
                          const std::vector<unsigned char>& bytes) {
    std::memcpy(static_cast<unsigned char*>(m.data(ChunkId(chunk), where)) + offset, bytes.data(),
                bytes.size());
  };
  const auto expect_on_host = [&](uint64_t chunk, const std::vector<unsigned char>& bytes) {
    ASSERT_EQ(m.stage(next_token, {read(chunk, host())}), StageResult::kStaged);
    EXPECT_TRUE(holds(m, chunk, host(), bytes)) << "C" << chunk;
    m.unstage(next_token++);
  };
  m.create_chunk(ChunkId(1), 3 * KiB);
  write_chunk(1, dev(0), 1);
  const MemoryCounters before = m.counters();
  StageRequest core = write(1, dev(1));
  core.overwritten = {KiB, 2 * KiB};
  ASSERT_EQ(m.stage(7, {core}), StageResult::kStaged);
  EXPECT_EQ(m.counters().bytes_copied, before.bytes_copied + 2 * KiB);
  EXPECT_EQ(m.counters().partial_fills, before.partial_fills + 1);
  EXPECT_EQ(m.counters().fills_skipped, before.fills_skipped);
  put_at(1, dev(1), KiB, std::vector<unsigned char>(KiB, 9));
  m.unstage(7);
  std::vector<unsigned char> want = pattern(3 * KiB, 1);
  std::fill(want.begin() + KiB, want.begin() + 2 * KiB, 9);
  expect_on_host(1, want);
  // A never-written chunk: zeros around what is overwritten.
  m.create_chunk(ChunkId(2), 2 * KiB);
  StageRequest tail = write(2, dev(0));
  tail.overwritten = {KiB, 2 * KiB};
  ASSERT_EQ(m.stage(8, {tail}), StageResult::kStaged);
  put_at(2, dev(0), KiB, std::vector<unsigned char>(KiB, 4));
  m.unstage(8);
  want.assign(2 * KiB, 0);
  std::fill(want.begin() + KiB, want.end(), 4);
  expect_on_host(2, want);
  m.check_invariants();
}

TEST_F(MemoryManagerTest, WriteRemovesStaleSpillFile) {
  auto& m = make(1, 2 * KiB, 0);
  m.create_chunk(ChunkId(1), 2 * KiB);
  m.create_chunk(ChunkId(2), 2 * KiB);
  write_chunk(1, dev(0), 1);
  write_chunk(2, dev(0), 2);  // C1 to disk
  ASSERT_TRUE(m.has_copy(ChunkId(1), disk()));
  write_chunk(1, dev(0), 3);  // reads C1 back, writes it: the file is stale
  EXPECT_FALSE(m.has_copy(ChunkId(1), disk()));
  write_chunk(2, dev(0), 4);  // C1 to disk again, new contents
  expect_chunk(1, dev(0), 3);
  expect_chunk(2, dev(0), 4);
}

TEST_F(MemoryManagerTest, DeleteFreesMemoryAndFiles) {
  auto& m = make(2, 4 * KiB, 4 * KiB);
  for (uint64_t c = 1; c <= 8; ++c) {
    m.create_chunk(ChunkId(c), 2 * KiB);
    write_chunk(c, dev(c % 2), c);
  }
  ASSERT_EQ(m.stage(50, {read(1, host()), read(2, dev(1))}), StageResult::kStaged);
  m.unstage(50);
  EXPECT_GT(m.spill_file_count(), 0u);
  EXPECT_GT(dir.file_count(), 0u);
  for (uint64_t c = 1; c <= 8; ++c) m.delete_chunk(ChunkId(c));
  EXPECT_EQ(m.chunk_count(), 0u);
  EXPECT_EQ(m.bytes_used(dev(0)), 0u);
  EXPECT_EQ(m.bytes_used(dev(1)), 0u);
  EXPECT_EQ(m.bytes_used(host()), 0u);
  EXPECT_EQ(m.bytes_used(disk()), 0u);
  EXPECT_EQ(m.spill_file_count(), 0u);
  EXPECT_EQ(dir.file_count(), 0u);
  EXPECT_EQ(backend.live_host_allocations(), 0);
  m.check_invariants();
}

TEST_F(MemoryManagerTest, CorruptSpillFileFailsTheStagingCleanly) {
  auto& m = make(1, 2 * KiB, 0);
  m.create_chunk(ChunkId(1), 2 * KiB);
  m.create_chunk(ChunkId(2), 2 * KiB);
  write_chunk(1, dev(0), 1);
  write_chunk(2, dev(0), 2);
  const std::string path = m.spill_directory() + "/C1.spill";
  ASSERT_TRUE(std::filesystem::exists(path));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(100);
    char c;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 1);
    f.seekp(100);
    f.write(&c, 1);
  }
  auto e = expect_error([&] { m.stage(7, {read(1, dev(0))}); }, ErrorKind::kTask);
  EXPECT_NE(e.message().find(path), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("C1"), std::string::npos) << e.message();
  EXPECT_FALSE(m.is_staged(7));
  EXPECT_FALSE(m.has_copy(ChunkId(1), dev(0)));
  m.check_invariants();
  expect_chunk(2, dev(0), 2);
}

TEST_F(MemoryManagerTest, MisuseIsReportedWithTheCulprit) {
  auto& m = make(2, 4 * KiB, std::nullopt);
  m.create_chunk(ChunkId(1), 1 * KiB);
  m.create_chunk(ChunkId(2), 1 * KiB);
  auto msg = [](const Error& e) { return e.message(); };
  EXPECT_NE(msg(expect_error([&] { m.create_chunk(ChunkId(1), 5); }, ErrorKind::kInvalidArgument))
                .find("C1 already exists"),
            std::string::npos);
  EXPECT_NE(msg(expect_error([&] { m.stage(1, {read(3, dev(0))}); }, ErrorKind::kInvalidArgument))
                .find("unknown chunk C3"),
            std::string::npos);
  EXPECT_NE(msg(expect_error([&] { m.stage(1, {read(1, dev(7))}); }, ErrorKind::kInvalidArgument))
                .find("unknown device D7 (this memory manager has D0, D1)"),
            std::string::npos);
  EXPECT_NE(msg(expect_error([&] { m.stage(1, {read(1, disk())}); }, ErrorKind::kInvalidArgument))
                .find("disk"),
            std::string::npos);
  EXPECT_NE(msg(expect_error(
                    [&] {
                      m.stage(1, {write(1, dev(0)), read(1, dev(1))});
                    },
                    ErrorKind::kInvalidArgument))
                .find("C1 is written on D0 memory"),
            std::string::npos);
  // Whatever the requests' order, and with the same chunk asked for twice where it is written.
  EXPECT_NE(
      msg(expect_error(
              [&] {
                m.stage(1, {read(1, dev(1)), read(2, dev(0)), write(1, dev(0)), read(1, dev(0))});
              },
              ErrorKind::kInvalidArgument))
          .find("C1 is written on D0 memory and requested in another memory"),
      std::string::npos);
  EXPECT_NE(msg(expect_error(
                    [&] {
                      m.stage(1, {{ChunkId(2), dev(0), false, ByteRange{0, 1}}});
                    },
                    ErrorKind::kInvalidArgument))
                .find("C2 is overwritten but not written"),
            std::string::npos);
  EXPECT_NE(msg(expect_error([&] { m.delete_chunk(ChunkId(5)); }, ErrorKind::kInvalidArgument))
                .find("unknown chunk C5"),
            std::string::npos);
  EXPECT_NE(msg(expect_error([&] { m.unstage(42); }, ErrorKind::kInvalidArgument)).find("token 42"),
            std::string::npos);
  ASSERT_EQ(m.stage(1, {read(1, dev(0))}), StageResult::kStaged);
  EXPECT_NE(msg(expect_error([&] { m.stage(1, {read(2, dev(0))}); }, ErrorKind::kInvalidArgument))
                .find("token 1 is already staged"),
            std::string::npos);
  EXPECT_NE(msg(expect_error([&] { m.delete_chunk(ChunkId(1)); }, ErrorKind::kInvalidArgument))
                .find("C1 is staged"),
            std::string::npos);
  EXPECT_NE(msg(expect_error([&] { m.data(ChunkId(1), dev(1)); }, ErrorKind::kInvalidArgument))
                .find("C1 has no copy on D1 memory"),
            std::string::npos);
  m.unstage(1);
  m.delete_chunk(ChunkId(1));
  EXPECT_FALSE(m.has_chunk(ChunkId(1)));
  // Bad limits.
  MemoryLimits twice;
  twice.devices = {{DeviceId(0), 1024}, {DeviceId(0), 1024}};
  twice.spill_dir = dir.path.string();
  EXPECT_NE(
      msg(expect_error([&] { MemoryManager bad(twice, backend); }, ErrorKind::kInvalidArgument))
          .find("D0 is listed twice"),
      std::string::npos);
}

TEST_F(MemoryManagerTest, EmptyStageAndZeroByteChunks) {
  auto& m = make(1, 1 * KiB, 0);
  ASSERT_EQ(m.stage(1, {}), StageResult::kStaged);
  m.unstage(1);
  m.create_chunk(ChunkId(1), 0);
  ASSERT_EQ(m.stage(2, {write(1, dev(0)), read(1, dev(0))}), StageResult::kStaged);
  m.unstage(2);
  m.create_chunk(ChunkId(2), 1 * KiB);
  write_chunk(2, dev(0), 3);  // evicts C1 (0 bytes) to the host
  ASSERT_EQ(m.stage(3, {read(1, dev(0))}), StageResult::kStaged);
  m.unstage(3);
  expect_chunk(2, dev(0), 3);
}

}  // namespace
}  // namespace lightning::worker
