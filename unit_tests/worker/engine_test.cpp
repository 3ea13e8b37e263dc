#include "worker/engine.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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
    exec.execute([] {}, [&](std::exception_ptr e) { ok.set_value(std::move(e)); });
    exec.execute([] { throw Error(ErrorKind::kTask, "kernel failed"); },
                 [&](std::exception_ptr e) { failed.set_value(std::move(e)); });
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
                 [&](std::exception_ptr) {
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
          [&](std::exception_ptr e) {
            dones.fetch_add(1);
            if (e) errors.fetch_add(1);
          });
    exec.execute([&] { jobs.fetch_add(1); }, {});  // no callback wanted
  }
  EXPECT_EQ(jobs.load(), 501);
  EXPECT_EQ(dones.load(), 500);
  EXPECT_EQ(errors.load(), 72);  // 0, 7, ..., 497
}

}  // namespace
}  // namespace lightning::worker
