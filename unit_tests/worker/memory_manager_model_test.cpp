// Random stage / unstage / write / delete sequences against a shadow copy of every chunk.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "backend/host/host_memory_backend.hpp"
#include "core/error.hpp"
#include "memory_test_support.hpp"
#include "worker/memory_manager.hpp"

namespace lightning::worker {
namespace {

using namespace lightning::worker::testing;

struct Active {
  std::vector<StageRequest> requests;
  std::map<std::pair<uint64_t, int>, void*> where;  // (chunk, memory) -> address when staged
};

/// -1 = host, else a device.
MemorySpace space_of(int m) {
  return m < 0 ? host() : dev(static_cast<uint64_t>(m));
}

void run_model(uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return rng() % n; };
  TempDir dir;
  host::HostMemoryBackend backend;
  {
    const int devices = 1 + static_cast<int>(pick(3));
    const uint64_t max_chunk = 256 + pick(4096);
    MemoryLimits limits;
    for (int d = 0; d < devices; ++d)
      limits.devices.emplace_back(DeviceId(d), max_chunk + pick(4 * max_chunk));
    if (pick(4) != 0) limits.host_bytes = pick(4 * max_chunk);
    limits.spill_dir = dir.path.string();
    MemoryManager mm(limits, backend);

    std::map<uint64_t, std::vector<unsigned char>> shadow;  // chunk -> contents
    std::map<uint64_t, Active> active;                      // token -> what it holds
    std::map<uint64_t, WriteBack> writing;                  // chunk -> its write-back
    int written_back = 0;
    uint64_t next_chunk = 0, next_token = 1, version = 1;
    int staged = 0, retried = 0, oom = 0;

    auto capacity_ok = [&](const std::vector<StageRequest>& reqs) {
      // Would the request fit its memories if they were empty?
      std::map<int, uint64_t> need;
      std::set<std::pair<uint64_t, int>> seen;
      for (const auto& r : reqs) {
        const int m = r.where.is_device() ? static_cast<int>(r.where.device.value()) : -1;
        if (!seen.insert({r.chunk.value(), m}).second) continue;
        const uint64_t b = shadow.at(r.chunk.value()).size();
        need[m] += m < 0 ? b : MemoryPool::rounded(b);
      }
      for (const auto& [m, bytes] : need) {
        auto cap = mm.capacity(space_of(m));
        if (cap && bytes > *cap) return false;
      }
      return true;
    };
    auto check_locked = [&] {
      // Locked copies never move and keep their contents.
      for (const auto& [token, a] : active)
        for (const auto& [key, ptr] : a.where) {
          ASSERT_EQ(mm.data(ChunkId(key.first), space_of(key.second)), ptr);
          ASSERT_TRUE(mm.is_locked(ChunkId(key.first), space_of(key.second)));
          ASSERT_TRUE(holds(mm, key.first, space_of(key.second), shadow.at(key.first)))
              << "locked C" << key.first << " changed";
        }
    };

    for (int step = 0; step < 500; ++step) {
      const uint64_t op = pick(100);
      if (op < 10 || shadow.size() < 3) {  // create
        const uint64_t bytes = pick(4) == 0 ? pick(64) : 1 + pick(max_chunk);
        mm.create_chunk(ChunkId(next_chunk), bytes);
        shadow[next_chunk++] = std::vector<unsigned char>(bytes, 0);
      } else if (op < 15) {  // delete an unlocked chunk
        auto it = std::next(shadow.begin(), static_cast<long>(pick(shadow.size())));
        bool locked = writing.count(it->first) != 0;
        for (const auto& [t, a] : active)
          for (const auto& r : a.requests) locked |= r.chunk.value() == it->first;
        if (locked) {
          EXPECT_THROW(mm.delete_chunk(ChunkId(it->first)), Error);
        } else {
          mm.delete_chunk(ChunkId(it->first));
          shadow.erase(it);
        }
      } else if (op < 19) {  // write back ahead of eviction, or finish one (its copy now)
        if (!writing.empty() && pick(2) == 0) {
          auto it = std::next(writing.begin(), static_cast<long>(pick(writing.size())));
          const WriteBack w = it->second;
          const std::vector<unsigned char>& want = shadow.at(w.chunk.value());
          ASSERT_EQ(std::memcmp(w.src, want.data(), want.size()), 0)
              << "C" << w.chunk.value() << " changed while written back";
          const bool ok = pick(5) != 0;
          if (ok) backend.copy(w.dst, host(), w.src, w.from, w.bytes);
          mm.finish_write_back(w.chunk, ok);
          writing.erase(it);
        } else if (std::optional<WriteBack> w = mm.start_write_back()) {
          ASSERT_TRUE(writing.emplace(w->chunk.value(), *w).second) << "written back twice";
          ++written_back;
        }
      } else if (op < 22) {  // a planned use, of an existing chunk or one to come
        const uint64_t chunk = pick(next_chunk + 2);
        mm.plan_next_use(ChunkId(chunk), pick(4) == 0 ? kNoPlannedUse : pick(1000));
      } else if (op < 55 && !active.empty()) {  // unstage
        auto it = std::next(active.begin(), static_cast<long>(pick(active.size())));
        mm.unstage(it->first);
        active.erase(it);
      } else {  // stage 1-4 chunks
        std::vector<StageRequest> reqs;
        const uint64_t n = 1 + pick(4);
        for (uint64_t i = 0; i < n; ++i) {
          auto it = std::next(shadow.begin(), static_cast<long>(pick(shadow.size())));
          const int m = static_cast<int>(pick(static_cast<uint64_t>(devices) + 1)) - 1;
          reqs.push_back({ChunkId(it->first), space_of(m), pick(3) == 0});
        }
        // A written chunk must not be requested in another memory of the same task.
        for (auto& r : reqs)
          for (const auto& o : reqs)
            if (o.chunk == r.chunk && o.where != r.where) r.will_write = false;
        const bool fits = capacity_ok(reqs);
        const bool idle = active.empty() && writing.empty();
        const uint64_t token = next_token++;
        auto snapshot = [&] {
          std::vector<uint64_t> v;
          for (int m = -1; m < devices; ++m) v.push_back(mm.bytes_used(space_of(m)));
          const MemoryCounters& k = mm.counters();
          for (uint64_t x :
               {k.device_evictions, k.host_evictions, k.disk_writes, k.disk_reads, k.bytes_copied,
                k.zero_fills, k.invalidations, static_cast<uint64_t>(mm.spill_file_count())})
            v.push_back(x);
          return v;
        };
        const std::vector<uint64_t> before = snapshot();
        StageResult result;
        try {
          result = mm.stage(token, reqs);
        } catch (const Error& e) {
          ASSERT_EQ(e.kind(), ErrorKind::kOutOfMemory) << e.what();
          ASSERT_FALSE(fits) << e.what();
          ASSERT_EQ(snapshot(), before) << "a failed stage changed something";
          ++oom;
          continue;
        }
        ASSERT_TRUE(fits) << "staged a request bigger than a memory";
        if (result == StageResult::kRetryLater) {
          if (idle) {
            std::string what;
            for (const auto& r : reqs)
              what += " C" + std::to_string(r.chunk.value()) + "(" +
                      std::to_string(shadow.at(r.chunk.value()).size()) + "B" +
                      (r.will_write ? ",w" : "") + ")@" + r.where.to_string();
            for (int m = -1; m < devices; ++m)
              what += "; " + space_of(m).to_string() + " used " +
                      std::to_string(mm.bytes_used(space_of(m))) + " of " +
                      std::to_string(mm.capacity(space_of(m)).value_or(0));
            FAIL() << "retry with nothing locked, step " << step << ":" << what;
          }
          ASSERT_FALSE(mm.is_staged(token));
          ASSERT_EQ(snapshot(), before) << "a retried stage changed something";
          ++retried;
        } else {
          ++staged;
          Active a;
          a.requests = reqs;
          for (const auto& r : reqs) {
            const uint64_t c = r.chunk.value();
            const int m = r.where.is_device() ? static_cast<int>(r.where.device.value()) : -1;
            a.where[{c, m}] = mm.data(r.chunk, r.where);
            ASSERT_TRUE(holds(mm, c, r.where, shadow.at(c)))
                << "C" << c << " on " << r.where.to_string();
          }
          // The task writes new contents into what it staged for writing.
          for (const auto& r : reqs) {
            if (!r.will_write) continue;
            auto bytes = pattern(shadow.at(r.chunk.value()).size(), version++);
            put(mm, r.chunk.value(), r.where, bytes);
            shadow[r.chunk.value()] = bytes;
          }
          active[token] = std::move(a);
        }
      }
      mm.check_invariants();
      for (const auto& [id, cap] : limits.devices) ASSERT_LE(mm.bytes_used(dev(id.value())), cap);
      if (limits.host_bytes) {
        ASSERT_LE(mm.bytes_used(host()), *limits.host_bytes);
      }
      ASSERT_EQ(mm.spill_file_count(), dir.file_count());
      check_locked();
      if (::testing::Test::HasFatalFailure()) return;
    }
    // Drain, then read every chunk back on every memory.
    for (const auto& [token, a] : active) mm.unstage(token);
    for (const auto& [c, w] : writing) {
      backend.copy(w.dst, host(), w.src, w.from, w.bytes);
      mm.finish_write_back(w.chunk, true);
    }
    for (const auto& [c, bytes] : shadow) {
      for (int m = -1; m < devices; ++m) {
        const std::vector<StageRequest> reqs = {read(c, space_of(m))};
        if (!capacity_ok(reqs)) continue;
        ASSERT_EQ(mm.stage(next_token, reqs), StageResult::kStaged);
        ASSERT_TRUE(holds(mm, c, space_of(m), bytes)) << "C" << c << " on " << m;
        mm.unstage(next_token++);
      }
    }
    mm.check_invariants();
    for (const auto& [c, bytes] : shadow) mm.delete_chunk(ChunkId(c));
    EXPECT_EQ(mm.spill_file_count(), 0u);
    EXPECT_EQ(dir.file_count(), 0u);
    EXPECT_EQ(mm.bytes_used(host()), 0u);
    for (int d = 0; d < devices; ++d) EXPECT_EQ(mm.bytes_used(dev(static_cast<uint64_t>(d))), 0u);
    EXPECT_EQ(backend.live_host_allocations(), 0);
    EXPECT_GT(staged, 0);
    if (std::getenv("LIGHTNING_MODEL_STATS"))
      std::printf(
          "seed %llu: %d staged, %d retried, %d out of memory, %d written back early, %llu "
          "evictions, %llu disk reads\n",
          static_cast<unsigned long long>(seed), staged, retried, oom, written_back,
          static_cast<unsigned long long>(mm.counters().device_evictions +
                                          mm.counters().host_evictions),
          static_cast<unsigned long long>(mm.counters().disk_reads));
  }
  EXPECT_EQ(backend.live_device_pools(), 0);
  EXPECT_TRUE(dir.empty());
}

TEST(MemoryManagerModel, RandomSequencesKeepDataAndInvariants) {
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    run_model(seed);
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace lightning::worker
