// Shared staging: who may share a token, what a sharer's pointers are, when a token is
// released, and how a pending share is settled with its holder.
#include "worker/staging_leases.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

const MemorySpace kD0 = MemorySpace::of_device(DeviceId(0));
const MemorySpace kD1 = MemorySpace::of_device(DeviceId(1));

StageRequest read(uint64_t chunk, MemorySpace where = kD0) {
  return {ChunkId(chunk), where, false};
}
StageRequest write(uint64_t chunk, MemorySpace where = kD0) {
  return {ChunkId(chunk), where, true};
}

void* at(uintptr_t a) {
  return reinterpret_cast<void*>(a);
}

TEST(StagingLeases, ALaunchNeedingTheSameChunksSharesTheTokenAndGetsItsPointersPerRequest) {
  StagingLeases leases;
  // saxpy: reads x (chunk 1), reads and writes y (chunk 2, two accesses).
  leases.requested(TaskId(10), {read(1), read(2), write(2)});
  EXPECT_TRUE(leases.staged(TaskId(10), {at(0x100), at(0x200), at(0x200)}).empty());
  EXPECT_EQ(leases.holders(TaskId(10)), 1);

  // The same requests: the holder's pointers.
  EXPECT_EQ(leases.share(TaskId(11), {read(1), read(2), write(2)}, {TaskId(10)}),
            StagingLeases::Share::kShared);
  EXPECT_EQ(leases.pointers(TaskId(11)), (std::vector<void*>{at(0x100), at(0x200), at(0x200)}));
  EXPECT_EQ(leases.token(TaskId(11)), TaskId(10));
  EXPECT_EQ(leases.holders(TaskId(10)), 2);
  // A third shares with the second, under the first's token.
  EXPECT_EQ(leases.share(TaskId(12), {read(1), read(2), write(2)}, {TaskId(11)}),
            StagingLeases::Share::kShared);
  EXPECT_EQ(leases.token(TaskId(12)), TaskId(10));
  EXPECT_EQ(leases.holders(TaskId(10)), 3);

  // The token goes only with its last holder, whichever order they end in.
  EXPECT_EQ(leases.release(TaskId(10)), std::nullopt);
  EXPECT_EQ(leases.release(TaskId(12)), std::nullopt);
  EXPECT_EQ(leases.release(TaskId(11)), TaskId(10));
  EXPECT_EQ(leases.holders(TaskId(10)), 0);
  EXPECT_EQ(leases.size(), 0u);
  EXPECT_TRUE(leases.pointers(TaskId(11)).empty());
}

TEST(StagingLeases, OnlyTheSameRequestsAreShared) {
  StagingLeases leases;
  leases.requested(TaskId(1), {read(1), write(2)});
  leases.staged(TaskId(1), {at(1), at(2)});
  const std::vector<std::vector<StageRequest>> different = {
      {read(1)},                     // fewer chunks: the token would lock more than it uses
      {read(1), write(2), read(3)},  // more chunks
      {read(1), read(2)},            // a chunk read that the holder writes
      {write(1), write(2)},          // a chunk written that the holder reads
      {read(1), write(2, kD1)},      // a chunk in another memory
      {read(1), write(3)},           // another chunk
  };
  for (size_t i = 0; i < different.size(); ++i) {
    EXPECT_EQ(leases.share(TaskId(100 + i), different[i], {TaskId(1)}), StagingLeases::Share::kNo)
        << i;
  }
  EXPECT_EQ(leases.holders(TaskId(1)), 1);
  EXPECT_EQ(leases.size(), 1u);
  // Tasks not known (done, or never staged here) are no holders.
  EXPECT_EQ(leases.share(TaskId(7), {read(1), write(2)}, {TaskId(2)}), StagingLeases::Share::kNo);
  // The first matching holder of several is taken.
  leases.requested(TaskId(3), {read(4)});
  leases.staged(TaskId(3), {at(4)});
  EXPECT_EQ(leases.share(TaskId(8), {read(4)}, {TaskId(1), TaskId(3)}),
            StagingLeases::Share::kShared);
  EXPECT_EQ(leases.token(TaskId(8)), TaskId(3));
  EXPECT_EQ(leases.pointers(TaskId(8)), std::vector<void*>{at(4)});
}

TEST(StagingLeases, SharersOfALaunchStillBeingStagedAreStagedWithItInOrder) {
  StagingLeases leases;
  leases.requested(TaskId(1), {read(1), write(2)});
  EXPECT_EQ(leases.share(TaskId(2), {read(1), write(2)}, {TaskId(1)}),
            StagingLeases::Share::kPending);
  EXPECT_EQ(leases.share(TaskId(3), {read(1), write(2)}, {TaskId(2)}),
            StagingLeases::Share::kPending);
  EXPECT_EQ(leases.holders(TaskId(1)), 0);
  EXPECT_TRUE(leases.pointers(TaskId(2)).empty());  // not staged yet
  EXPECT_EQ(leases.staged(TaskId(1), {at(0x10), at(0x20)}),
            (StagingLeases::Settled{TaskId(2), TaskId(3)}));
  EXPECT_EQ(leases.pointers(TaskId(2)), (std::vector<void*>{at(0x10), at(0x20)}));
  EXPECT_EQ(leases.pointers(TaskId(3)), (std::vector<void*>{at(0x10), at(0x20)}));
  EXPECT_EQ(leases.holders(TaskId(1)), 3);
  // A staged answer for a sharer (it comes back through the worker's queue) changes nothing.
  EXPECT_TRUE(leases.staged(TaskId(2), {}).empty());
  EXPECT_EQ(leases.holders(TaskId(1)), 3);
  EXPECT_EQ(leases.pointers(TaskId(2)), (std::vector<void*>{at(0x10), at(0x20)}));
}

TEST(StagingLeases, SharersOfALaunchNotStagedAreNotStagedEither) {
  StagingLeases leases;
  leases.requested(TaskId(1), {write(1)});
  leases.share(TaskId(2), {write(1)}, {TaskId(1)});
  leases.share(TaskId(3), {write(1)}, {TaskId(2)});
  EXPECT_EQ(leases.not_staged(TaskId(1)), (StagingLeases::Settled{TaskId(2), TaskId(3)}));
  EXPECT_EQ(leases.size(), 0u);
  EXPECT_TRUE(leases.pointers(TaskId(2)).empty());
  // Each asks for itself next time.
  leases.requested(TaskId(2), {write(1)});
  EXPECT_EQ(leases.token(TaskId(2)), TaskId(2));
  EXPECT_TRUE(leases.staged(TaskId(2), {at(8)}).empty());
  EXPECT_EQ(leases.release(TaskId(2)), TaskId(2));
}

TEST(StagingLeases, ReleasingWhatATaskDoesNotHoldIsAnInternalError) {
  StagingLeases leases;
  EXPECT_THROW(leases.release(TaskId(4)), Error);
  leases.requested(TaskId(4), {read(1)});
  try {
    leases.release(TaskId(4));  // asked for, not staged yet
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    EXPECT_NE(std::string(e.what()).find("T4"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lightning::worker
