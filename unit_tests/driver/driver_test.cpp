// The driver alone, over a fake group of workers that records what it is handed and completes
// (or fails) each task at once: what reaches which worker, and how completions, failures and a
// lost rank come back to the application.
#include "driver/driver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "distribution/data_distribution.hpp"
#include "kernel/native_kernel.hpp"

namespace lightning::driver {
namespace {

struct Record {
  std::map<uint64_t, std::vector<std::string>> tasks;  // by worker: describe(task)
  std::vector<TaskId> fail;                            // tasks to report failed (once each)
  bool lose_on_next_submit = false;
  bool break_on_next_submit = false;  // the worker fails itself and never ends these tasks
  bool stopped = false;
  // Set: the workers' wait policy, and their tasks end 20 ms after their submission, on
  // another thread (or their rank is lost then, with lose_later).
  WaitPolicy* wait = nullptr;
  bool lose_later = false;
  // Each Execute's launch data, in submission order (kept: their identity is what is tested).
  std::vector<std::shared_ptr<const worker::LaunchData>> launch_data;
  // Set: deletions of temporaries are held (not ended) until release_held() is called.
  bool hold_temporary_deletions = false;
  std::function<void()> release_held;
};

class FakeWorkers final : public WorkerGroup {
 public:
  explicit FakeWorkers(Record& record) : record_(record), devices_(DeviceSet::uniform(2, 1)) {}
  const DeviceSet& devices() const override { return devices_; }
  const WaitPolicy* wait_policy() const override { return record_.wait; }
  void start(WorkerEvents events) override {
    events_ = std::move(events);
    record_.release_held = [this] {
      std::vector<TaskId> held;
      {
        std::lock_guard<std::mutex> lock(held_mutex_);
        held.swap(held_);
      }
      for (TaskId t : held) events_.completed(t, std::nullopt);
    };
  }
  void submit(WorkerId worker, std::vector<planner::Task> tasks,
              const std::shared_ptr<const worker::FragmentContext>& context) override {
    if (record_.wait) {
      std::vector<TaskId> ids;
      for (const planner::Task& t : tasks) ids.push_back(t.id);
      later_.emplace_back([events = events_, ids, lose = record_.lose_later] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (lose) return events.lost("rank 1 (worker W1) was lost: test");
        for (TaskId t : ids) events.completed(t, std::nullopt);
      });
      return;
    }
    if (record_.lose_on_next_submit) {
      record_.lose_on_next_submit = false;
      events_.lost("rank 1 (worker W1) was lost: test");
    }
    if (record_.break_on_next_submit) {
      record_.break_on_next_submit = false;
      planner::TaskFailure f;
      f.worker = worker;
      f.error = ErrorKind::kInternal;
      f.what = "a broken invariant";
      events_.completed(TaskId(), f);
      return;
    }
    for (const planner::Task& t : tasks) {
      if (const auto* e = std::get_if<planner::ExecuteTask>(&t.kind))
        record_.launch_data.push_back(context->launch(e->launch));
      record_.tasks[worker.value()].push_back(planner::describe(t));
      if (const auto* c = std::get_if<planner::CreateChunkTask>(&t.kind); c && c->temporary)
        temporaries_.push_back(c->chunk);
      if (const auto* d = std::get_if<planner::DeleteChunkTask>(&t.kind);
          d && record_.hold_temporary_deletions &&
          std::find(temporaries_.begin(), temporaries_.end(), d->chunk) != temporaries_.end()) {
        std::lock_guard<std::mutex> lock(held_mutex_);
        held_.push_back(t.id);
        continue;
      }
      std::optional<planner::TaskFailure> failure;
      for (TaskId f : record_.fail)
        if (f == t.id) failure = planner::failure_of(t, ErrorKind::kTask, "injected");
      events_.completed(t.id, failure);
    }
  }
  std::vector<worker::Worker::MemoryReport> memory_reports() override { return {{}, {}}; }
  void stop() override {  // the driver's destructor stops its workers before it goes
    for (std::thread& t : later_) t.join();
    record_.stopped = true;
  }
  std::string describe() const override { return "2 fake workers"; }

 private:
  Record& record_;
  DeviceSet devices_;
  WorkerEvents events_;
  std::vector<std::thread> later_;
  std::vector<ChunkId> temporaries_;
  std::mutex held_mutex_;
  std::vector<TaskId> held_;  // deletions of temporaries not yet ended
};

size_t count_of(const std::vector<std::string>& tasks, const std::string& kind) {
  size_t n = 0;
  for (const std::string& t : tasks) n += t.find(" " + kind) != std::string::npos;
  return n;
}

TEST(Driver, HandsEachWorkerItsFragmentAndStopsThemAtTheEnd) {
  Record record;
  {
    Driver d(Config{}, std::make_unique<FakeWorkers>(record));
    EXPECT_EQ(d.devices().size(), 2u);
    const ArrayId a = d.create_array("a", DataType::kFloat64, Point{8}, dist::block(4));
    const double one = 1;
    d.fill(a, Rect(Point{0}, Point{8}), &one);
    d.fence();
    // One chunk per device, each filled on its own worker. The fence waits for every task
    // submitted to end, and plans none of its own.
    for (uint64_t w : {0u, 1u}) {
      EXPECT_EQ(count_of(record.tasks[w], "CreateChunk"), 1u) << w;
      EXPECT_EQ(count_of(record.tasks[w], "Fill"), 1u) << w;
      EXPECT_EQ(count_of(record.tasks[w], "Barrier"), 0u) << w;
    }
    EXPECT_EQ(d.memory_reports().size(), 2u);
    EXPECT_FALSE(record.stopped);
  }
  EXPECT_TRUE(record.stopped);
}

// b is listed but no rule mentions it.
struct Unmentioned {
  void operator()(int64_t) const {}
};
const KernelId kUnmentioned = kernel::KernelRegistry::add(
    kernel::native_kernel<Unmentioned, 1>("driver_test::Unmentioned", "global i => write a[i]",
                                          annotation::KernelSignature()
                                              .add_array("a", DataType::kFloat64, 1)
                                              .add_array("b", DataType::kFloat64, 1),
                                          {}));

// A launch of `k` over `arrays`, threads [0, 8).
Launch unmentioned_launch(const Unmentioned& k, std::vector<ArrayId> arrays) {
  Launch l;
  l.kernel = kUnmentioned;
  l.functor = &k;
  l.arrays = std::move(arrays);
  l.domain = Rect(Point{0}, Point{8});
  return l;
}

TEST(Driver, AnArrayNoRuleMentionsIsLoggedOncePerKernel) {
  Record record;
  Driver d(Config{}, std::make_unique<FakeWorkers>(record));
  const ArrayId a = d.create_array("a", DataType::kFloat64, Point{8}, dist::block(4));
  const ArrayId b = d.create_array("b", DataType::kFloat64, Point{8}, dist::block(4));
  Unmentioned k;
  Launch l = unmentioned_launch(k, {a, b});
  ::testing::internal::CaptureStderr();
  d.launch(l);
  d.launch(l);
  d.fence();
  const std::string logged = ::testing::internal::GetCapturedStderr();
  const std::string warning = "kernel 'driver_test::Unmentioned': annotation:1:";
  ASSERT_NE(logged.find(warning), std::string::npos) << logged;
  EXPECT_EQ(logged.find(warning, logged.find(warning) + 1), std::string::npos) << logged;
  EXPECT_NE(logged.find("'b'"), std::string::npos) << logged;
}

// A loop's launches hand the workers one LaunchData (not a copy each); a launch whose data
// differs (here the extent of its first array) gets its own.
TEST(Driver, ALaunchWithTheDataOfTheLastOneSharesIt) {
  Record record;
  Driver d(Config{}, std::make_unique<FakeWorkers>(record));
  const ArrayId a = d.create_array("a", DataType::kFloat64, Point{8}, dist::block(4));
  const ArrayId b = d.create_array("b", DataType::kFloat64, Point{8}, dist::block(4));
  const ArrayId c = d.create_array("c", DataType::kFloat64, Point{16}, dist::block(8));
  Unmentioned k;
  Launch l = unmentioned_launch(k, {a, b});
  ::testing::internal::CaptureStderr();  // the unmentioned array's warning
  d.launch(l);
  d.launch(l);
  l.arrays = {c, b};
  d.launch(l);
  d.launch(l);
  d.fence();
  ::testing::internal::GetCapturedStderr();
  const std::vector<std::shared_ptr<const worker::LaunchData>>& data = record.launch_data;
  // Two superblocks a launch over a and b; one over c's first chunk, which the launch follows.
  ASSERT_EQ(data.size(), 6u);
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(data[i], data[0]) << i;
  EXPECT_NE(data[4], data[0]);
  EXPECT_EQ(data[5], data[4]);
  EXPECT_EQ(data[4]->extents.at(0), Point{16});
  EXPECT_EQ(data[0]->extents.at(0), Point{8});
}

// Sums a: a reduction, whose plan creates a temporary (its partial) and deletes it.
struct Sum {
  ArrayHandle<const double, 1> a;
  void operator()(int64_t i, double& acc) const { acc += a(i); }
};
const KernelId kSum = kernel::KernelRegistry::add(kernel::native_reduce_kernel<Sum, 1, double>(
    "driver_test::Sum", "global i => read a[i]",
    annotation::KernelSignature().add_array("a", DataType::kFloat64, 1),
    {{0, offsetof(Sum, a), 1}}));

// Kokkos fences after every value a parallel_reduce returns: that fence does not wait for
// the deletion of the reduction's partial, which nothing can observe; a memory report (and
// the driver's end) waits for it.
TEST(Driver, AFenceDoesNotWaitForTheDeletionOfATemporaryButAMemoryReportDoes) {
  Record record;
  record.hold_temporary_deletions = true;
  Driver d(Config{}, std::make_unique<FakeWorkers>(record));
  struct ReleaseAtEnd {  // however the test ends: the driver's end waits for them
    Record& record;
    ~ReleaseAtEnd() { record.release_held(); }
  } release_at_end{record};
  const ArrayId a = d.create_array("a", DataType::kFloat64, Point{8}, dist::block(4));
  Sum k{};
  Launch l;
  l.kernel = kSum;
  l.functor = &k;
  l.arrays = {a};
  l.domain = Rect(Point{0}, Point{8});
  double value = -1;
  l.result = &value;
  d.launch(l);  // returns with the value: its read ended
  size_t deletions = 0;
  for (const auto& [worker, tasks] : record.tasks) deletions += count_of(tasks, "DeleteChunk");
  ASSERT_GT(deletions, 0u) << "the reduction has no temporary";
  auto fence = std::async(std::launch::async, [&] { d.fence(); });
  const bool fenced = fence.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  auto reports = std::async(std::launch::async, [&] { return d.memory_reports(); });
  const bool reported_early =
      reports.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready;
  record.release_held();
  EXPECT_TRUE(fenced) << "the fence waited for the temporary's deletion";
  EXPECT_FALSE(reported_early) << "the memory report did not wait for it";
  EXPECT_EQ(reports.get().size(), 2u);
  fence.get();
}

TEST(Driver, AFailureIsThrownAtTheNextFenceOnceAndTheDriverStaysUsable) {
  Record record;
  Driver d(Config{}, std::make_unique<FakeWorkers>(record));
  const ArrayId a = d.create_array("a", DataType::kFloat64, Point{8}, dist::block(4));
  d.fence();
  const double one = 1;
  d.fill(a, Rect(Point{0}, Point{8}), &one);
  EXPECT_NO_THROW(d.fence());
  // Every task of the next fill (on worker 1) fails.
  const size_t before = record.tasks[1].size();
  for (uint64_t id = 1; id < 200; ++id) record.fail.push_back(TaskId(id));
  d.fill(a, Rect(Point{4}, Point{8}), &one);
  ASSERT_GT(record.tasks[1].size(), before);
  record.fail.clear();
  try {
    d.fence();
    FAIL() << "the failed fill was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTask);
    EXPECT_NE(std::string(e.what()).find("injected"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(d.fence());  // reported once
}

TEST(Driver, ALostRankEndsEveryWaitWithACommunicationError) {
  Record record;
  Driver d(Config{}, std::make_unique<FakeWorkers>(record));
  record.lose_on_next_submit = true;
  try {
    d.create_array("a", DataType::kFloat64, Point{8}, dist::block(4));
    d.fence();
    FAIL() << "a lost rank was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCommunication);
    EXPECT_EQ(e.message(), "rank 1 (worker W1) was lost: test");
  }
}

// A worker that fails itself (a broken invariant: an invalid task id with the failure) may
// never end its tasks: every wait fails at once, naming it, instead of waiting for ever.
TEST(Driver, AWorkerThatFailsItselfEndsEveryWait) {
  Record record;
  Driver d(Config{}, std::make_unique<FakeWorkers>(record));
  const ArrayId a = d.create_array("a", DataType::kFloat64, Point{8}, dist::block(4));
  d.fence();
  record.break_on_next_submit = true;
  const double one = 1;
  d.fill(a, Rect(Point{0}, Point{8}), &one);
  for (int wait = 0; wait < 2; ++wait) {
    try {
      d.fence();
      FAIL() << "the broken worker was not reported";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInternal);
      EXPECT_EQ(e.message(), "W0 failed and cannot go on: a broken invariant") << e.what();
    }
  }
}

// With a GPU at work the program's waits poll for completions instead of sleeping (see
// WaitPolicy): they still end when their tasks end, and when a rank is lost. The policy would
// poll for a minute; a wait that missed its completion would take that long.
TEST(Driver, WaitsThatPollEndWithTheirTasksOrALostRank) {
  Record record;
  WaitPolicy policy(std::chrono::seconds(60));
  const GpuOperationCount busy(&policy);
  record.wait = &policy;
  const auto start = std::chrono::steady_clock::now();
  {
    Driver d(Config{}, std::make_unique<FakeWorkers>(record));
    const ArrayId a = d.create_array("a", DataType::kFloat64, Point{8}, dist::block(4));
    const double one = 1;
    d.fill(a, Rect(Point{0}, Point{8}), &one);
    d.fence();
    double back[8] = {};
    d.read(a, Rect(Point{0}, Point{8}), back);  // a wait for particular tasks
    record.lose_later = true;
    d.fill(a, Rect(Point{0}, Point{8}), &one);
    try {
      d.fence();
      FAIL() << "a lost rank was not reported";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kCommunication);
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

}  // namespace
}  // namespace lightning::driver
