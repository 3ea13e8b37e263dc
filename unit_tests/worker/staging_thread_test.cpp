// The staging thread alone over host memory: every request answered once, staging that must
// wait for space retried when space is freed, oldest first; and an Execute task's kernel run
// bound to its staged chunks (pure).
#include "worker/staging_thread.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backend/host/host_memory_backend.hpp"
#include "core/error.hpp"
#include "kernel/native_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "memory_test_support.hpp"
#include "worker/kernel_run_binding.hpp"
#include "worker/planned_uses.hpp"

namespace lightning::worker {
namespace {

// The answers, in order, as "staged T1", "failed T2: ...", "done T3".
struct Answers {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> log;
  std::vector<std::vector<void*>> pointers;

  StagingThread::Replies replies() {
    return {
        [this](TaskId t, std::vector<void*> p) { add("staged " + t.to_string(), std::move(p)); },
        [this](TaskId t, planner::TaskFailure f) {
          add("failed " + t.to_string() + ": " + f.what);
        },
        [this](TaskId t, std::optional<planner::TaskFailure> f) {
          add((f ? "error " : "done ") + t.to_string());
        },
        [this](TaskId t) { add("not in place " + t.to_string()); }};
  }
  void add(std::string entry, std::optional<std::vector<void*>> staged = std::nullopt) {
    std::lock_guard<std::mutex> lock(mutex);
    if (staged) pointers.push_back(std::move(*staged));
    log.push_back(std::move(entry));
    changed.notify_all();
  }
  // The log once it has `n` entries (or after 10 s, whatever it has).
  std::vector<std::string> wait(size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait_for(lock, std::chrono::seconds(10), [&] { return log.size() >= n; });
    return log;
  }
};

MemoryLimits one_device(uint64_t bytes) {
  MemoryLimits limits;
  limits.devices = {{DeviceId(0), bytes}};
  return limits;
}

const MemorySpace kDevice = MemorySpace::of_device(DeviceId(0));

TEST(StagingThread, AnswersEveryRequestAndReportsTheMemory) {
  host::HostMemoryBackend backend;
  Answers answers;
  StagingThread staging(one_device(4096), backend, {DeviceId(0)}, answers.replies());
  staging.create(TaskId(1), ChunkId(1), 512, 0);
  staging.stage(TaskId(2), {{ChunkId(1), kDevice, true, false}});
  EXPECT_EQ(answers.wait(2), (std::vector<std::string>{"done T1", "staged T2"}));
  ASSERT_EQ(answers.pointers.size(), 1u);
  EXPECT_NE(answers.pointers[0].at(0), nullptr);
  const MemoryReport report = staging.report();
  EXPECT_EQ(report.chunks, 1u);
  EXPECT_EQ(report.device_bytes, 512u);
  staging.unstage(TaskId(2));
  staging.remove(TaskId(3), ChunkId(1));
  staging.create(TaskId(4), ChunkId(1), 512, 0);
  staging.create(TaskId(5), ChunkId(1), 512, 0);  // it exists
  EXPECT_EQ(answers.wait(5),
            (std::vector<std::string>{"done T1", "staged T2", "done T3", "done T4", "error T5"}));
  EXPECT_EQ(staging.report().chunks, 1u);
}

TEST(StagingThread, StagingThatMustWaitForSpaceIsRetriedOldestFirstWhenSpaceIsFreed) {
  host::HostMemoryBackend backend;
  Answers answers;
  StagingThread staging(one_device(1024), backend, {DeviceId(0)}, answers.replies());
  for (uint64_t c = 1; c <= 3; ++c) staging.create(TaskId(c), ChunkId(c), 768, 0);
  staging.stage(TaskId(10), {{ChunkId(1), kDevice, true, false}});
  // Neither fits beside the first chunk, which T10 holds.
  staging.stage(TaskId(12), {{ChunkId(3), kDevice, true, false}});
  staging.stage(TaskId(11), {{ChunkId(2), kDevice, true, false}});
  EXPECT_EQ(answers.wait(4).back(), "staged T10");
  EXPECT_EQ(staging.report().chunks, 3u);  // answered after the waiting ones were tried
  EXPECT_EQ(answers.wait(4).size(), 4u);
  staging.unstage(TaskId(10));  // T11 is older than T12: it goes first
  EXPECT_EQ(answers.wait(5).back(), "staged T11");
  staging.unstage(TaskId(11));
  EXPECT_EQ(answers.wait(6).back(), "staged T12");
}

// Host memory whose copies from a device to the host wait at a gate while it is closed (the
// write-back engine's copies: the staging thread's own go to the device in these tests).
class GatedBackend final : public testing::HostBackedMemory {
 public:
  void copy(void* dst, MemorySpace dst_space, const void* src, MemorySpace src_space,
            uint64_t bytes) override {
    if (src_space.is_device() && !dst_space.is_device()) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++waiting_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return open_; });
      --waiting_;
      if (failing_) throw Error(ErrorKind::kCuda, "the copy failed");
    }
    HostBackedMemory::copy(dst, dst_space, src, src_space, bytes);
  }
  // Waits (at most 10 s) until a copy waits at the gate.
  bool wait_for_a_copy() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return waiting_ > 0; });
  }
  // Lets the copies through, or makes them fail from now on (`failing`).
  void open(bool failing = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    failing_ = failing;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int waiting_ = 0;
  bool open_ = false;
  bool failing_ = false;
};

// A staging thread over a gated backend, its device of four chunks filled with dirty ones
// that later tasks use, C1 last (tasks 1-4 create, 11-14 stage and unstage; 5 creates C5 and
// takes the next uses along, which the staging thread wants once the device is more than half
// full): C1 is written back at once, and its copy waits at the gate.
struct WritingBack {
  GatedBackend backend;
  Answers answers;
  PlannedUses planned;
  std::optional<StagingThread> staging;

  WritingBack() {
    staging.emplace(one_device(4 * MemoryPool::kAlignment), backend, std::vector{DeviceId(0)},
                    answers.replies(), nullptr, -1, &planned);
    for (uint64_t c = 1; c <= 4; ++c) planned.add(TaskId(100 - c), ChunkId(c));
    for (uint64_t c = 1; c <= 4; ++c) {
      staging->create(TaskId(c), ChunkId(c), MemoryPool::kAlignment, 0);
      staging->stage(TaskId(10 + c), {{ChunkId(c), kDevice, true, false}});
      staging->unstage(TaskId(10 + c));
    }
    answers.wait(8);
    staging->report();  // the batch that filled the device has ended
    staging->create(TaskId(5), ChunkId(5), MemoryPool::kAlignment, 0);
    answers.wait(9);
  }
};

// A full device of dirty chunks that later tasks use is written back ahead of eviction, on a
// thread of its own: staging goes on meanwhile, while the chunk written back waits, and so do
// its deletion and the thread's end.
TEST(StagingThread, WritesBackOnAThreadOfItsOwnWhileStagingGoesOn) {
  {
    WritingBack rig;
    StagingThread& staging = *rig.staging;
    ASSERT_TRUE(rig.backend.wait_for_a_copy());  // C1, used last, is being written back
    staging.stage(TaskId(20), {{ChunkId(2), kDevice, false, false}});
    staging.stage(TaskId(21), {{ChunkId(1), kDevice, false, false}});
    staging.remove(TaskId(22), ChunkId(3));
    std::vector<std::string> log = rig.answers.wait(11);
    ASSERT_EQ(log.size(), 11u);
    EXPECT_EQ(std::vector<std::string>(log.begin() + 9, log.end()),
              (std::vector<std::string>{"staged T20", "done T22"}));
    EXPECT_EQ(staging.report().counters.written_back_early, 0u);
    rig.backend.open();
    EXPECT_EQ(rig.answers.wait(12).back(), "staged T21");
    EXPECT_EQ(staging.report().counters.written_back_early, 1u);
    staging.unstage(TaskId(20));
    staging.unstage(TaskId(21));
  }
  {
    WritingBack rig;
    StagingThread& staging = *rig.staging;
    ASSERT_TRUE(rig.backend.wait_for_a_copy());
    staging.remove(TaskId(30), ChunkId(1));
    EXPECT_EQ(staging.report().chunks, 5u);  // not yet
    EXPECT_EQ(rig.answers.wait(9).size(), 9u);
    rig.backend.open();
    EXPECT_EQ(rig.answers.wait(10).back(), "done T30");
    EXPECT_EQ(staging.report().chunks, 4u);
  }
  {  // a failed write-back loses nothing: the device copy stays the only one
    WritingBack rig;
    StagingThread& staging = *rig.staging;
    ASSERT_TRUE(rig.backend.wait_for_a_copy());
    rig.backend.open(/*failing=*/true);
    staging.stage(TaskId(40), {{ChunkId(1), kDevice, false, false}});
    EXPECT_EQ(rig.answers.wait(10).back(), "staged T40");
    const MemoryReport report = staging.report();
    EXPECT_EQ(report.counters.written_back_early, 0u);
    EXPECT_EQ(report.host_bytes, 0u);
    staging.unstage(TaskId(40));
  }
  WritingBack rig;
  ASSERT_TRUE(rig.backend.wait_for_a_copy());
  std::atomic<bool> opened{false};
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    opened = true;
    rig.backend.open();
  });
  rig.staging.reset();  // the copy writes the manager's host memory: the end waits for it
  EXPECT_TRUE(opened);
  opener.join();
}

// Staging in place is answered at once, in request order: behind a task staged before it,
// or refused (never kept waiting for space) when a task it runs behind is not staged.
TEST(StagingThread, StagingInPlaceIsAnsweredAtOnceInOrder) {
  host::HostMemoryBackend backend;
  Answers answers;
  StagingThread staging(one_device(1024), backend, {DeviceId(0)}, answers.replies());
  staging.create(TaskId(1), ChunkId(1), 512, 0);
  staging.create(TaskId(2), ChunkId(2), 1024, 0);
  staging.stage(TaskId(3), {{ChunkId(1), kDevice, true, false}});
  staging.stage_in_place(TaskId(4), {{ChunkId(1), kDevice, true, false}}, {TaskId(3)});
  staging.stage(TaskId(5), {{ChunkId(2), kDevice, true, false}});  // waits for space
  staging.stage_in_place(TaskId(6), {{ChunkId(2), kDevice, true, false}}, {TaskId(5)});
  EXPECT_EQ(answers.wait(5), (std::vector<std::string>{"done T1", "done T2", "staged T3",
                                                       "staged T4", "not in place T6"}));
  ASSERT_EQ(answers.pointers.size(), 2u);
  EXPECT_EQ(answers.pointers[0], answers.pointers[1]);
  staging.unstage(TaskId(3));
  staging.unstage(TaskId(4));
  EXPECT_EQ(answers.wait(6).back(), "staged T5");
  staging.unstage(TaskId(5));
}

TEST(StagingThread, StagingThatCanNeverFitFails) {
  host::HostMemoryBackend backend;
  Answers answers;
  StagingThread staging(one_device(1024), backend, {DeviceId(0)}, answers.replies());
  staging.create(TaskId(1), ChunkId(1), 4096, 0);
  staging.stage(TaskId(2), {{ChunkId(1), kDevice, true, false}});
  const std::vector<std::string> log = answers.wait(2);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1].rfind("failed T2: ", 0), 0u) << log[1];
}

// A device whose memory runs out before the pool's cap (another process holds it): a task
// that waits for a chunk another holds is staged once that one is released, within what the
// pool reached, and a task that needs more than it reached fails saying so; the thread goes on.
TEST(StagingThread, APoolThatStoppedGrowingStagesWithinItAndFailsWhatNeedsMore) {
  testing::FiniteDeviceBackend backend(3 * 1024);
  Answers answers;
  StagingThread staging(one_device(16 * 1024), backend, {DeviceId(0)}, answers.replies());
  staging.create(TaskId(1), ChunkId(1), 2048, 0);
  staging.create(TaskId(2), ChunkId(2), 2048, 0);
  staging.stage(TaskId(3), {{ChunkId(1), kDevice, true, false}});
  EXPECT_EQ(answers.wait(3).back(), "staged T3");
  staging.stage(TaskId(4), {{ChunkId(2), kDevice, true, false}});  // waits: C1 is held
  staging.stage(TaskId(5),
                {{ChunkId(1), kDevice, false, false}, {ChunkId(2), kDevice, false, false}});
  std::vector<std::string> log = answers.wait(4);
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[3],
            "failed T5: task needs 4 KiB on D0 memory (chunks C1 2 KiB, C2 2 KiB), which holds "
            "2 KiB of its cap of 16 KiB: its pool could not grow further, the device had no "
            "memory left (other processes or pools hold it)");
  staging.unstage(TaskId(3));
  EXPECT_EQ(answers.wait(5).back(), "staged T4");  // C1 evicted to the host for it
  staging.unstage(TaskId(4));
  staging.stage(TaskId(6), {{ChunkId(1), kDevice, false, false}});
  EXPECT_EQ(answers.wait(6).back(), "staged T6");
  staging.unstage(TaskId(6));
}

// Adds its second array into its first.
struct AddInto {
  ArrayHandle<float, 1> out;
  ArrayHandle<float, 1> in;
  void operator()(int64_t i) const { out(i) += in(i); }
};

const KernelId kAddInto = kernel::KernelRegistry::add(kernel::native_kernel<AddInto, 1>(
    "staging_thread_test::AddInto", "global i => readwrite out[i], read in[i]",
    annotation::KernelSignature()
        .add_array("out", DataType::kFloat32, 1)
        .add_array("in", DataType::kFloat32, 1),
    {{0, offsetof(AddInto, out), 1}, {1, offsetof(AddInto, in), 1}}));

TEST(KernelRunBinding, BindsEachArrayToItsStagedChunkInArrayCoordinates) {
  ChunkTable chunks;
  const Rect owned(Point{8}, Point{16});
  chunks.add({ChunkId(1), ArrayId(1), owned, DeviceId(0), false, 32, DataType::kFloat32, 4});
  chunks.add({ChunkId(2), ArrayId(2), owned, DeviceId(0), false, 32, DataType::kFloat32, 4});
  planner::ExecuteTask exec{LaunchId(1), kAddInto, owned, DeviceId(0), {}, ChunkId()};
  exec.bindings.push_back({0, ChunkId(1), owned, planner::ChunkAccessMode::kReadWrite});
  exec.bindings.push_back({1, ChunkId(2), owned, planner::ChunkAccessMode::kRead});
  planner::Task task{TaskId(1), WorkerId(0), exec, {}, {}};
  task.accesses = planner::accesses_of(task.kind);
  LaunchData launch;
  launch.kernel = kAddInto;
  launch.name = "add";
  launch.functor.assign(sizeof(AddInto), 0xff);  // garbage where handles go: all overwritten
  launch.extents = {Point{32}, Point{32}};
  launch.arrays = kernel::KernelRegistry::get(kAddInto).description.arrays;
  std::vector<float> out(8, 1.0f), in(8, 2.0f);
  const KernelRun run = bound_kernel_run(task, exec, launch, {out.data(), in.data()}, chunks);
  EXPECT_EQ(run.name, "add");
  EXPECT_EQ(run.superblock, owned);
  EXPECT_EQ(run.partial, nullptr);
  run.info->run_host(run.functor.data(), run.superblock, nullptr);
  EXPECT_EQ(out, std::vector<float>(8, 3.0f));
  EXPECT_EQ(in, std::vector<float>(8, 2.0f));
  EXPECT_EQ(launch.functor, std::vector<uint8_t>(sizeof(AddInto), 0xff));  // a copy was bound
}

TEST(ChunkTable, HoldsWhatTheCreateTaskSaysUntilRemoved) {
  ChunkTable chunks;
  const Rect box(Point{0, 0}, Point{4, 2});
  chunks.add({ChunkId(3), ArrayId(1), box, DeviceId(1), false, 64, DataType::kFloat64, 8});
  ASSERT_NE(chunks.find(ChunkId(3)), nullptr);
  EXPECT_EQ(chunks.at(ChunkId(3)).box, box);
  EXPECT_EQ(chunks.at(ChunkId(3)).bytes, 64u);
  EXPECT_EQ(chunks.at(ChunkId(3)).device, DeviceId(1));
  chunks.remove(ChunkId(3));
  EXPECT_EQ(chunks.find(ChunkId(3)), nullptr);
  EXPECT_THROW(chunks.at(ChunkId(3)), Error);
}

}  // namespace
}  // namespace lightning::worker
