#include "backend/host/executor.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/host/host_device.hpp"
#include "core/error.hpp"

namespace lightning::host {
namespace {

std::string current_thread_name() {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof name);
  return name;
}

TEST(Executor, ReportsSuccessAndFailureThroughDone) {
  std::exception_ptr success, failure;
  {
    std::promise<std::exception_ptr> ok, failed;  // outlive the executor's callbacks
    Executor exec("copy", 1);
    EXPECT_EQ(exec.name(), "copy");
    EXPECT_EQ(exec.threads(), 1);
    exec.execute([] {}, [&](std::exception_ptr e) { ok.set_value(std::move(e)); });
    exec.execute([] { throw Error(ErrorKind::kTask, "kernel failed"); },
                 [&](std::exception_ptr e) { failed.set_value(std::move(e)); });
    success = ok.get_future().get();
    failure = failed.get_future().get();
  }  // joined: the executor thread's uses of the exception happen before the reads below
  EXPECT_EQ(success, nullptr);
  ASSERT_NE(failure, nullptr);
  try {
    std::rethrow_exception(failure);
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::kTask);
    EXPECT_EQ(err.message(), "kernel failed");
  }
}

TEST(Executor, DoneRunsOnTheExecutorThreadAfterTheJob) {
  std::string job_thread, done_thread;
  bool job_ran_first = false;
  {
    Executor exec("disk", 1);
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

TEST(Executor, DestructionWaitsForEveryJobAndDone) {
  std::atomic<int> jobs{0}, dones{0}, errors{0};
  {
    Executor exec("many", 4);
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

TEST(HostDevice, HasNamedComputeAndCopyEngines) {
  std::promise<std::string> compute_thread, copy_thread;
  HostDevice device(DeviceId(3), 2);
  EXPECT_EQ(device.id(), DeviceId(3));
  EXPECT_EQ(device.compute().name(), "D3 compute");
  EXPECT_EQ(device.compute().threads(), 2);
  EXPECT_EQ(device.copy_engine().name(), "D3 copy");
  EXPECT_EQ(device.copy_engine().threads(), 1);
  EXPECT_EQ(HostDevice(DeviceId(0)).compute().threads(), 1);

  device.execute([&] { compute_thread.set_value(current_thread_name()); }, {});
  device.copy_engine().execute([&] { copy_thread.set_value(current_thread_name()); }, {});
  EXPECT_EQ(compute_thread.get_future().get().substr(0, 11), "D3 compute#");
  EXPECT_EQ(copy_thread.get_future().get(), "D3 copy");
}

TEST(HostDevice, ComputeAndCopyOverlap) {
  // A compute job waits for a copy job: this only finishes if the engines run concurrently.
  std::promise<void> copied;
  std::promise<std::exception_ptr> computed;
  auto copied_future = copied.get_future();
  HostDevice device(DeviceId(0));
  device.execute([&] { copied_future.wait(); },
                 [&](std::exception_ptr e) { computed.set_value(e); });
  device.copy_engine().execute([&] { copied.set_value(); }, {});
  EXPECT_EQ(computed.get_future().get(), nullptr);
}

}  // namespace
}  // namespace lightning::host
