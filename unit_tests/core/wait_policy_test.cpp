// WaitPolicy: how long a wait polls before it sleeps, with and without GPU work counted.
#include "core/wait_policy.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace lightning {
namespace {

using Clock = std::chrono::steady_clock;

TEST(WaitPolicy, ReadyAtOnceReturnsAtOnce) {
  int calls = 0;
  EXPECT_TRUE(WaitPolicy::poll(nullptr, [&] { return ++calls > 0; }));
  EXPECT_EQ(calls, 1);
}

TEST(WaitPolicy, WithoutGpuWorkAWaitPollsBrieflyThenSleeps) {
  const WaitPolicy idle(std::chrono::seconds(60));
  for (const WaitPolicy* policy : {static_cast<const WaitPolicy*>(nullptr), &idle}) {
    const auto start = Clock::now();
    EXPECT_FALSE(WaitPolicy::poll(policy, [] { return false; }));
    const auto waited = Clock::now() - start;
    EXPECT_GE(waited, WaitPolicy::kShortPoll);
    EXPECT_LT(waited, std::chrono::seconds(10));  // not the 60 s a busy GPU would get
  }
}

TEST(WaitPolicy, CountsGpuOperationsFromStartToEnd) {
  WaitPolicy policy(std::chrono::milliseconds(1));
  {
    const GpuOperationCount a(&policy);
    const GpuOperationCount b(&policy);
    EXPECT_EQ(policy.gpu_operations(), 2);
  }
  EXPECT_EQ(policy.gpu_operations(), 0);
  const GpuOperationCount none(nullptr);  // counts nowhere
  EXPECT_EQ(policy.gpu_operations(), 0);
}

// While a GPU works, a wait keeps polling past the short poll: what it waits for, coming
// 20 ms later, is seen by polling (the policy would poll for a minute).
TEST(WaitPolicy, WhileAGpuWorksAWaitPollsUntilReady) {
  WaitPolicy policy(std::chrono::seconds(60));
  const GpuOperationCount kernel(&policy);
  std::atomic<bool> ready{false};
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ready = true;
  });
  EXPECT_TRUE(WaitPolicy::poll(&policy, [&] { return ready.load(); }));
  later.join();
}

// After the GPU's last operation ends, a wait polls on for kAfterGpu: the next launch of a
// loop comes within microseconds of the last one's value, and the threads it passes through
// would otherwise each be asleep.
TEST(WaitPolicy, AWaitPollsOnForAWhileAfterTheGpuWentIdle) {
  WaitPolicy policy(std::chrono::seconds(60));
  auto kernel = std::make_unique<GpuOperationCount>(&policy);
  const auto before_end = Clock::now();
  kernel.reset();
  EXPECT_FALSE(WaitPolicy::poll(&policy, [] { return false; }));
  EXPECT_GE(Clock::now() - before_end, WaitPolicy::kAfterGpu);
  // Long after, only the short poll.
  std::this_thread::sleep_for(2 * WaitPolicy::kAfterGpu);
  const auto start = Clock::now();
  EXPECT_FALSE(WaitPolicy::poll(&policy, [] { return false; }));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));

  // Never longer than gpu_poll: a policy of 200 µs polls on for 200 µs at most.
  WaitPolicy brief(std::chrono::microseconds(200));
  { const GpuOperationCount op(&brief); }
  EXPECT_TRUE(brief.gpu_busy_or_just_idle(Clock::now()));
  EXPECT_FALSE(brief.gpu_busy_or_just_idle(Clock::now() + std::chrono::microseconds(200)));
  WaitPolicy none(std::chrono::microseconds(0));
  { const GpuOperationCount op(&none); }
  EXPECT_FALSE(none.gpu_busy_or_just_idle(Clock::now()));
}

// The poll ends when the GPU's last operation does (or at gpu_poll), so a thread never polls
// an idle machine for long.
TEST(WaitPolicy, AWaitStopsPollingWhenTheGpuIsDoneOrAtTheLimit) {
  WaitPolicy policy(std::chrono::seconds(60));
  auto kernel = std::make_unique<GpuOperationCount>(&policy);
  const auto start = Clock::now();  // before the thread's sleep begins, so that it is a bound
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kernel.reset();
  });
  EXPECT_FALSE(WaitPolicy::poll(&policy, [] { return false; }));
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
  later.join();

  WaitPolicy short_poll(std::chrono::milliseconds(5));
  const GpuOperationCount busy(&short_poll);
  const auto begin = Clock::now();
  EXPECT_FALSE(WaitPolicy::poll(&short_poll, [] { return false; }));
  EXPECT_GE(Clock::now() - begin, std::chrono::milliseconds(5));
  EXPECT_LT(Clock::now() - begin, std::chrono::seconds(30));
}

}  // namespace
}  // namespace lightning
