#include "worker/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

TEST(ThreadPool, RunsEveryJob) {
  std::atomic<int> count{0};
  {
    ThreadPool pool("test", 3);
    EXPECT_EQ(pool.size(), 3);
    EXPECT_EQ(pool.name(), "test");
    for (int i = 0; i < 1000; ++i) pool.submit([&] { count.fetch_add(1); });
  }
  EXPECT_EQ(count.load(), 1000);
}

TEST(ThreadPool, OneThreadRunsJobsInOrder) {
  std::vector<int> order;
  {
    ThreadPool pool("ordered", 1);
    for (int i = 0; i < 100; ++i) pool.submit([&order, i] { order.push_back(i); });
  }
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

TEST(ThreadPool, DestructorFinishesQueuedWorkIncludingJobsSubmittedByJobs) {
  std::atomic<int> count{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::thread releaser;
  {
    ThreadPool pool("drain", 2);
    // Both threads block, so everything else is still queued when the destructor starts.
    for (int i = 0; i < 2; ++i) pool.submit([released] { released.wait(); });
    for (int i = 0; i < 50; ++i)
      pool.submit([&] {
        count.fetch_add(1);
        pool.submit([&] { count.fetch_add(1); });
      });
    releaser = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      release.set_value();
    });
  }  // the destructor starts while both threads block and 50 jobs are queued
  releaser.join();
  EXPECT_EQ(count.load(), 100);
}

// Threads polling for jobs while a GPU works (WaitPolicy) still see the pool stop at once,
// and run jobs that come while they poll.
TEST(ThreadPool, PollingThreadsRunJobsAndStopAtOnce) {
  WaitPolicy wait(std::chrono::seconds(60));
  const GpuOperationCount busy(&wait);
  const auto start = std::chrono::steady_clock::now();
  {
    ThreadPool pool("poller", 2, &wait);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the threads are polling
    std::promise<void> ran;
    pool.submit([&] { ran.set_value(); });
    ran.get_future().wait();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(ThreadPool, ThreadsAreNamed) {
  std::mutex mutex;
  std::set<std::string> names;
  std::promise<void> both;
  std::atomic<int> arrived{0};
  auto shared = both.get_future().share();
  {
    ThreadPool pool("D0 compute", 2);
    // Two jobs that wait for each other: they must run on the two different threads.
    for (int i = 0; i < 2; ++i)
      pool.submit([&, shared] {
        {
          std::lock_guard<std::mutex> lock(mutex);
          names.insert(current_thread_name());
        }
        if (arrived.fetch_add(1) == 1) both.set_value();
        shared.wait();
      });
  }
  EXPECT_EQ(names, (std::set<std::string>{"D0 compute#0", "D0 compute#1"}));

  std::string single, longer;
  {
    ThreadPool one("disk", 1);
    one.submit([&] { single = current_thread_name(); });
    ThreadPool many("a-very-long-pool-name", 12);
    many.submit([&] { longer = current_thread_name(); });
  }
  EXPECT_EQ(single, "disk");
  EXPECT_EQ(longer.size(), 15u);  // Linux keeps 15 characters: the suffix survives
  EXPECT_EQ(longer.substr(0, 12), "a-very-long-");
  EXPECT_NE(longer.find('#'), std::string::npos) << longer;
}

TEST(ThreadPool, RejectsBadArguments) {
  EXPECT_THROW(ThreadPool("none", 0), Error);
  ThreadPool pool("p", 1);
  EXPECT_THROW(pool.submit({}), Error);
}

TEST(ThreadPoolDeathTest, AnExceptionEscapingAJobTerminates) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ThreadPool pool("thrower", 1);
        pool.submit([] { throw std::runtime_error("boom"); });
      },
      "thread pool 'thrower': a job threw: boom");
}

}  // namespace
}  // namespace lightning::worker
