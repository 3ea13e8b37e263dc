#include "worker/engine.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../support/allocation_count.hpp"
#include "core/error.hpp"
#include "worker/thread_pool.hpp"

namespace lightning::worker {
namespace {

TEST(Engine, ReportsSuccessAndFailureThroughDone) {
  std::exception_ptr success, failure;
  {
    std::promise<std::exception_ptr> ok, failed;  // outlive the engine's callbacks
    Engine exec("copy", 1);
    EXPECT_EQ(exec.name(), "copy");
    EXPECT_EQ(exec.threads(), 1);
    exec.execute([] {}, [&](std::exception_ptr e, OpSpan) { ok.set_value(std::move(e)); });
    exec.execute([] { throw Error(ErrorKind::kTask, "kernel failed"); },
                 [&](std::exception_ptr e, OpSpan) { failed.set_value(std::move(e)); });
    success = ok.get_future().get();
    failure = failed.get_future().get();
  }  // joined: the engine thread's uses of the exception happen before the reads below
  EXPECT_EQ(success, nullptr);
  ASSERT_NE(failure, nullptr);
  try {
    std::rethrow_exception(failure);
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::kTask);
    EXPECT_EQ(err.message(), "kernel failed");
  }
}

TEST(Engine, DoneRunsOnTheEngineThreadAfterTheJob) {
  std::string job_thread, done_thread;
  bool job_ran_first = false;
  {
    Engine exec("disk", 1);
    exec.execute([&] { job_thread = current_thread_name(); },
                 [&](std::exception_ptr, OpSpan) {
                   done_thread = current_thread_name();
                   job_ran_first = !job_thread.empty();
                 });
  }
  EXPECT_EQ(job_thread, "disk");
  EXPECT_EQ(done_thread, "disk");
  EXPECT_TRUE(job_ran_first);
}

TEST(Engine, DestructionWaitsForEveryJobAndDone) {
  std::atomic<int> jobs{0}, dones{0}, errors{0};
  {
    Engine exec("many", 4);
    for (int i = 0; i < 500; ++i)
      exec.execute(
          [&, i] {
            jobs.fetch_add(1);
            if (i % 7 == 0) throw std::runtime_error("odd one");
          },
          [&](std::exception_ptr e, OpSpan) {
            dones.fetch_add(1);
            if (e) errors.fetch_add(1);
          });
    exec.execute([&] { jobs.fetch_add(1); }, {});  // no callback wanted
  }
  EXPECT_EQ(jobs.load(), 501);
  EXPECT_EQ(dones.load(), 500);
  EXPECT_EQ(errors.load(), 72);  // 0, 7, ..., 497
}

TEST(Engine, DoneGetsWhenTheJobRan) {
  std::promise<OpSpan> reported;
  const auto before = std::chrono::steady_clock::now();
  {
    Engine exec("timed", 1);
    exec.execute([] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); },
                 [&](std::exception_ptr, OpSpan span) { reported.set_value(span); });
  }
  const auto after = std::chrono::steady_clock::now();
  const OpSpan span = reported.get_future().get();
  EXPECT_LE(before, span.start);
  EXPECT_GE(span.end - span.start, std::chrono::milliseconds(20));
  EXPECT_LE(span.end, after);
}

// A chain of small tasks submits a job or two per task: once warm, submitting one allocates
// nothing beyond what its own functions need (these need nothing: a pointer each).
TEST(Engine, SubmittingAJobAllocatesNothingOnceWarm) {
  Engine exec("alloc", 1);
  std::atomic<int> dones{0};
  auto one = [&] {
    const int before = dones.load();
    exec.execute([] {}, [&dones](std::exception_ptr, OpSpan) { dones.fetch_add(1); });
    while (dones.load() == before) std::this_thread::yield();
  };
  for (int i = 0; i < 10; ++i) one();
  ASSERT_TRUE(lightning::testing::allocations_are_counted());
  const long before = lightning::testing::allocations_on_this_thread();
  for (int i = 0; i < 1000; ++i) one();
  // A finished job's item returns just after its `done`: a submission that comes first makes
  // one more item. That happens a few times at most, never once a job.
  EXPECT_LE(lightning::testing::allocations_on_this_thread() - before, 4);
}

TEST(Engine, KeepsTheFunctionsOfOnlyAFewFinishedJobs) {
  auto held = std::make_shared<int>(0);
  std::promise<void> go;
  std::shared_future<void> started = go.get_future().share();
  std::atomic<int> dones{0};
  Engine exec("keep", 4);
  for (int i = 0; i < 100; ++i)
    exec.execute([held, started] { started.wait(); },
                 [held, &dones](std::exception_ptr, OpSpan) { dones.fetch_add(1); });
  EXPECT_EQ(held.use_count(), 201);
  go.set_value();
  while (dones.load() < 100) std::this_thread::yield();
  // Items come back just after their `done`; the engine releases the functions of all but a
  // few (what they hold, here `held`, goes with them).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (held.use_count() > 1 + 2 * 4 && std::chrono::steady_clock::now() < until)
    std::this_thread::yield();
  EXPECT_LE(held.use_count(), 1 + 2 * 4);
}

}  // namespace
}  // namespace lightning::worker
