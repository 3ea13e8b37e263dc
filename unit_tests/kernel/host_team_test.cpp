// Teams of threads on a host device: barriers order the members' steps, a member that
// fails releases the others, and its error reaches the caller.
#include "kernel/host_team.hpp"
#include "core/error.hpp"
#include "kernel/kernel_description.hpp"
#include "kernel/kernel_thread.hpp"
#include "kernel/team_shape.hpp"

#include <gtest/gtest.h>

#include <random>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace lightning::kernel {
namespace {

TEST(HostTeam, EveryMemberRunsOnItsOwnThreadAndBarriersOrderTheirSteps) {
  const int size = 7, steps = 50;
  std::vector<int> seen(size * steps, -1);
  std::vector<std::thread::id> ids(size);
  run_host_team(size, 64, 0, [&](int rank, HostTeam& team) {
    ids[static_cast<size_t>(rank)] = std::this_thread::get_id();
    auto* shared = static_cast<int*>(team.scratch(0));
    for (int step = 0; step < steps; ++step) {
      if (rank == 0) shared[0] = step;  // written before the barrier, read after it
      team.barrier();
      seen[static_cast<size_t>(step * size + rank)] = shared[0];
      team.barrier();  // nobody writes the next step before every member has read
    }
  });
  for (int step = 0; step < steps; ++step)
    for (int rank = 0; rank < size; ++rank)
      ASSERT_EQ(seen[static_cast<size_t>(step * size + rank)], step);
  EXPECT_EQ(ids[0], std::this_thread::get_id());  // rank 0 is the caller
  for (int a = 0; a < size; ++a)
    for (int b = a + 1; b < size; ++b)
      EXPECT_NE(ids[static_cast<size_t>(a)], ids[static_cast<size_t>(b)]);
}

TEST(HostTeam, AFailingMemberReleasesTheOthersAndItsErrorReachesTheCaller) {
  std::atomic<int> finished{0};
  try {
    run_host_team(5, 0, 0, [&](int rank, HostTeam& team) {
      team.barrier();
      if (rank == 3) throw std::runtime_error("member 3 failed");
      team.barrier();  // never completes: member 3 does not arrive
      team.barrier();
      ++finished;
    });
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "member 3 failed");
  }
  EXPECT_EQ(finished.load(), 0);
}

TEST(HostTeam, MembersAtDifferentBarriersFailTheTeamInsteadOfWaiting) {
  try {
    run_host_team(4, 0, 0, [&](int rank, HostTeam& team) {
      if (rank != 2) team.barrier();  // member 2 returned from its kernel early
      team.barrier(HostTeam::Barrier::kTeamEnd);
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reached different barriers"), std::string::npos);
  }
}

TEST(HostTeam, ATeamOfOneRunsOnTheCallersThreadAndItsBarriersReturn) {
  std::thread::id ran;
  run_host_team(1, 0, 128, [&](int rank, HostTeam& team) {
    EXPECT_EQ(rank, 0);
    team.barrier();
    team.barrier();
    EXPECT_NE(team.scratch(1), nullptr);
    ran = std::this_thread::get_id();
  });
  EXPECT_EQ(ran, std::this_thread::get_id());
}

// An access error on a member thread names the kernel parameter, as on the caller's.
TEST(HostTeam, MemberThreadsRunTheCallersKernel) {
  KernelDescription description;
  description.signature.add_array("x", DataType::kFloat32, 1).add_array("y", DataType::kFloat32, 1);
  description.arrays = {{0, 0, 1}, {1, 64, 1}};
  const unsigned char bytes[128] = {};
  EXPECT_FALSE(in_kernel_body());
  const KernelThreadScope in_kernel({bytes, &description});
  std::vector<std::string> named(4), unnamed(4);
  std::vector<int> inside(4);
  run_host_team(4, 0, 0, [&](int rank, HostTeam&) {
    const auto r = static_cast<size_t>(rank);
    inside[r] = in_kernel_body();
    named[r] = array_parameter_at(bytes + 64);
    unnamed[r] = array_parameter_at(bytes + 32);
  });
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_TRUE(inside[r]) << r;
    EXPECT_EQ(named[r], "y") << r;
    EXPECT_EQ(unnamed[r], "") << r;
  }
  EXPECT_EQ(array_parameter_at(bytes), "x");
}

TEST(HostTeam, OutsideAKernelNoParameterIsNamed) {
  const unsigned char bytes[8] = {};
  EXPECT_EQ(array_parameter_at(bytes), "");
  const KernelThreadScope untold;  // a scope without the kernel's bytes
  EXPECT_TRUE(in_kernel_body());
  EXPECT_EQ(array_parameter_at(bytes), "");
}

TEST(TeamShape, NamesTheLimitAShapeBreaks) {
  TeamShape s;
  s.league_size = 10;
  s.team_size = 256;
  s.vector_length = 4;
  EXPECT_EQ(s.limit_violation(), "");
  s.vector_length = 8;
  EXPECT_EQ(s.limit_violation(),
            "team size 256 x vector length 8 is more than 1024 threads per team");
  s.vector_length = 64;
  EXPECT_EQ(s.limit_violation(), "vector length 64 is not a power of two up to 32");
  s.vector_length = 1;
  s.team_scratch[0] = 40 * 1024;
  s.thread_scratch[0] = 64;
  EXPECT_EQ(s.scratch_bytes(0), 40u * 1024 + 64 * 256);
  EXPECT_NE(s.limit_violation().find("scratch level 0 of 56 KiB per team (40960 bytes per team "
                                     "+ 64 per thread x 256 threads) is more than the 48 KiB"),
            std::string::npos)
      << s.limit_violation();
  s.team_scratch[0] = 0;
  s.team_size = 0;
  EXPECT_EQ(s.limit_violation(), "team size 0 is not positive");
}

TEST(TeamShape, AutoTeamSizeIsOneOnHostDevicesAndKokkosCudaChoiceOnGpus) {
  TeamShape s;
  s.league_size = 1000;
  s.team_size = 7;  // ignored
  EXPECT_EQ(recommended_team_size(s, false), 1);
  // Without scratch every block of 128 to 1024 threads keeps 2048 threads on an SM; the
  // smallest of them wins.
  for (int vector : {1, 2, 4, 8, 16, 32}) {
    s.vector_length = vector;
    EXPECT_EQ(recommended_team_size(s, true), 128 / vector) << vector;
  }
  s.vector_length = 1;
  // 40 KiB per team: 5 blocks fit the SM's shared memory, so 512 threads x 4 blocks is best.
  s.team_scratch[0] = 40 * 1024;
  EXPECT_EQ(recommended_team_size(s, true), 512);
  // 1 KiB per thread: no team of more than 47 threads fits 48 KiB; of blocks of whole warps,
  // 32 threads (6 blocks, 33 KiB each).
  s.team_scratch[0] = 0;
  s.thread_scratch[0] = 1024;
  EXPECT_EQ(recommended_team_size(s, true), 32);
  // Nothing fits: one thread, which the launch then refuses, naming the limit.
  s.team_scratch[0] = 64 * 1024;
  EXPECT_EQ(recommended_team_size(s, true), 1);
  // Whatever it picks can run.
  std::mt19937 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    TeamShape r;
    r.league_size = 10;
    r.vector_length = 1 << std::uniform_int_distribution<int>(0, 5)(rng);
    r.team_scratch[0] = std::uniform_int_distribution<uint64_t>(0, 40 * 1024)(rng);
    r.thread_scratch[0] = std::uniform_int_distribution<uint64_t>(0, 256)(rng);
    r.thread_scratch[1] = std::uniform_int_distribution<uint64_t>(0, 64 * 1024)(rng);
    r.team_size = recommended_team_size(r, true);
    EXPECT_EQ(r.limit_violation(), "") << trial;
    EXPECT_EQ(r.team_size * r.vector_length % 32, 0) << trial;
  }
}

}  // namespace
}  // namespace lightning::kernel
