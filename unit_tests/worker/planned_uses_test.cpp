// PlannedUses against a brute-force model: per chunk, the set of tasks added and not ended.
#include "worker/planned_uses.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace lightning::worker {
namespace {

std::vector<NextUse> changes_of(PlannedUses& uses) {
  std::vector<NextUse> out;
  uses.take_changes(out);
  return out;
}

TEST(PlannedUses, TheNextUseIsTheOldestTaskNotEnded) {
  PlannedUses uses;
  const ChunkId c(1);
  EXPECT_EQ(uses.next_use(c), kNoPlannedUse);
  uses.add(TaskId(5), c);
  uses.add(TaskId(5), c);  // a second access of the same task
  uses.add(TaskId(7), c);
  uses.add(TaskId(9), c);
  EXPECT_EQ(uses.next_use(c), 5u);
  auto changes = changes_of(uses);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].chunk, c);
  EXPECT_EQ(changes[0].task, 5u);
  uses.end(TaskId(7), c);  // out of order: 5 is still to come
  EXPECT_EQ(uses.next_use(c), 5u);
  EXPECT_FALSE(uses.has_changes());
  uses.end(TaskId(5), c);  // 7 has ended too: 9 is next
  EXPECT_EQ(uses.next_use(c), 9u);
  uses.end(TaskId(5), c);  // ended twice, or never added: nothing changes
  uses.end(TaskId(8), c);
  EXPECT_EQ(uses.next_use(c), 9u);
  changes = changes_of(uses);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].task, 9u);
  uses.end(TaskId(9), c);
  uses.add(TaskId(11), c);  // changed and changed back within one batch: nothing to send
  uses.end(TaskId(11), c);
  uses.add(TaskId(12), c);
  changes = changes_of(uses);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].task, 12u);
}

TEST(PlannedUses, AForgottenChunkWithdrawsItsNextUseAndLeaves) {
  PlannedUses uses;
  uses.add(TaskId(1), ChunkId(1));
  uses.add(TaskId(2), ChunkId(2));
  changes_of(uses);
  uses.forget(ChunkId(1));
  EXPECT_EQ(uses.next_use(ChunkId(1)), kNoPlannedUse);
  const auto changes = changes_of(uses);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].chunk, ChunkId(1));
  EXPECT_EQ(changes[0].task, kNoPlannedUse);
  EXPECT_EQ(uses.chunk_count(), 1u);
  uses.forget(ChunkId(3));  // never known
  EXPECT_FALSE(uses.has_changes());
}

// Until the staging thread wants them, no one takes the changes: temporaries that come and
// go with every launch must not pile up meanwhile.
TEST(PlannedUses, EntriesStayBoundedWhenNoOneTakesTheChanges) {
  PlannedUses uses;
  for (uint64_t t = 1; t <= 1000; ++t) {
    const ChunkId temporary(1000 + t);
    uses.add(TaskId(t), ChunkId(1));
    uses.add(TaskId(t), temporary);
    uses.end(TaskId(t), temporary);
    uses.forget(temporary);
    uses.end(TaskId(t), ChunkId(1));
  }
  EXPECT_EQ(uses.chunk_count(), 1u);
  auto changes = changes_of(uses);
  ASSERT_EQ(changes.size(), 0u);  // C1 went back to no planned use, as it was last reported
  uses.add(TaskId(2000), ChunkId(1));
  uses.add(TaskId(2000), ChunkId(5));
  changes = changes_of(uses);
  ASSERT_EQ(changes.size(), 2u);
  uses.forget(ChunkId(5));  // reported: its withdrawal waits for the next changes
  EXPECT_EQ(uses.chunk_count(), 2u);
  changes = changes_of(uses);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].chunk, ChunkId(5));
  EXPECT_EQ(changes[0].task, kNoPlannedUse);
  EXPECT_EQ(uses.chunk_count(), 1u);
}

// Random adds (growing task ids, a few chunks per task), ends in any order (some twice, some
// of tasks never added) and forgets, against per-chunk sets; the changes taken, applied to a
// copy of what was reported, must give every chunk's next use.
TEST(PlannedUses, MatchesABruteForceModel) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto pick = [&](uint64_t n) { return rng() % n; };
    PlannedUses uses;
    std::map<uint64_t, std::set<uint64_t>> model;  // chunk -> tasks not ended
    std::map<uint64_t, uint64_t> reported;         // chunk -> next use as taken
    std::vector<std::pair<uint64_t, uint64_t>> added;
    const uint64_t chunks = 1 + pick(8);
    uint64_t next_task = 1;
    for (int step = 0; step < 2000; ++step) {
      const uint64_t op = pick(100);
      if (op < 45) {
        const uint64_t t = next_task++;
        for (uint64_t k = pick(3) + 1; k > 0; --k) {
          const uint64_t c = 1 + pick(chunks);
          uses.add(TaskId(t), ChunkId(c));
          model[c].insert(t);
          added.emplace_back(t, c);
        }
      } else if (op < 90 && !added.empty()) {
        const size_t i = pick(added.size());
        const auto [t, c] = added[i];
        uses.end(TaskId(t), ChunkId(c));
        model[c].erase(t);
        if (pick(3) != 0) added.erase(added.begin() + static_cast<long>(i));
      } else if (op < 93) {
        const uint64_t c = 1 + pick(chunks);
        uses.end(TaskId(next_task + pick(4)), ChunkId(c));  // never added
      } else if (op < 95) {
        const uint64_t c = 1 + pick(chunks);
        uses.forget(ChunkId(c));
        model.erase(c);
        for (size_t i = added.size(); i-- > 0;)
          if (added[i].second == c) added.erase(added.begin() + static_cast<long>(i));
      } else {
        std::set<uint64_t> seen;
        for (const NextUse& u : changes_of(uses)) {
          EXPECT_TRUE(seen.insert(u.chunk.value()).second) << "reported twice";
          reported[u.chunk.value()] = u.task;
        }
        for (uint64_t c = 1; c <= chunks; ++c) {
          auto m = model.find(c);
          const uint64_t want =
              m == model.end() || m->second.empty() ? kNoPlannedUse : *m->second.begin();
          auto r = reported.find(c);
          EXPECT_EQ(r == reported.end() ? kNoPlannedUse : r->second, want) << "C" << c;
        }
      }
      for (uint64_t c = 1; c <= chunks; ++c) {
        auto m = model.find(c);
        const uint64_t want =
            m == model.end() || m->second.empty() ? kNoPlannedUse : *m->second.begin();
        ASSERT_EQ(uses.next_use(ChunkId(c)), want) << "C" << c << " at step " << step;
      }
    }
  }
}

}  // namespace
}  // namespace lightning::worker
