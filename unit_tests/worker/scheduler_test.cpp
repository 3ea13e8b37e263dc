// The scheduler alone: a fake sink records what it is asked to do, the test answers.
#include "worker/scheduler.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace lightning::worker {
namespace {

using planner::ChunkAccessMode;
using planner::Task;
using planner::TaskFailure;

// What a worker hands the scheduler when a task fails: the underlying error only.
TaskFailure cause(const std::string& what, ErrorKind kind = ErrorKind::kTask) {
  TaskFailure f;
  f.error = kind;
  f.what = what;
  return f;
}

class RecordingSink : public SchedulerSink {
 public:
  void stage(const Task& t) override { log.push_back("stage " + t.id.to_string()); }
  void stage_behind(const Task& t, const std::vector<TaskId>& behind) override {
    std::string entry = "stage " + t.id.to_string() + " behind";
    for (TaskId b : behind) entry += " " + b.to_string();
    log.push_back(entry);
  }
  void run(const Task& t) override { log.push_back("run " + t.id.to_string()); }
  void unstage(const Task& t, bool ended) override {
    log.push_back("unstage " + t.id.to_string());
    if (!ended) waiting_again.push_back(t.id);
  }
  void completed(const Task& t, const std::optional<TaskFailure>& failure) override {
    std::string entry = "done " + t.id.to_string();
    if (failure && failure->skipped())
      entry += " (skipped for " + failure->caused_by.to_string() + ")";
    else if (failure)
      entry += " (failed: " + failure->what + ")";
    log.push_back(entry);
    if (failure) failures.push_back(*failure);
  }
  std::vector<std::string> take() {
    std::vector<std::string> out;
    out.swap(log);
    return out;
  }
  std::vector<std::string> log;
  std::vector<TaskFailure> failures;  // every failure reported, in order
  std::vector<TaskId> waiting_again;  // unstaged to be staged again later (not ended)
};

Task create(uint64_t id, uint64_t chunk, uint64_t device, uint64_t bytes) {
  Task t{TaskId(id),
         WorkerId(0),
         planner::CreateChunkTask{ChunkId(chunk), ArrayId(0), Rect(Point{0}, Point{int64_t(bytes)}),
                                  DeviceId(device), false, bytes, DataType::kUInt8, 1},
         {},
         {}};
  t.accesses = planner::accesses_of(t.kind);
  return t;
}

Task fill(uint64_t id, uint64_t chunk, uint64_t bytes, std::vector<uint64_t> deps) {
  Task t{TaskId(id),
         WorkerId(0),
         planner::FillTask{ChunkId(chunk), Rect(Point{0}, Point{int64_t(bytes)}), {0}},
         {},
         {}};
  for (uint64_t d : deps) t.deps.push_back(TaskId(d));
  t.accesses = planner::accesses_of(t.kind);
  return t;
}

Task recv(uint64_t id, uint64_t chunk, uint64_t tag, std::vector<uint64_t> deps) {
  Task t{TaskId(id),
         WorkerId(0),
         planner::RecvTask{ChunkId(chunk), {}, {}, Rect(Point{0}, Point{1}), WorkerId(1), tag},
         {},
         {}};
  for (uint64_t d : deps) t.deps.push_back(TaskId(d));
  t.accesses = planner::accesses_of(t.kind);
  return t;
}

Task barrier(uint64_t id, std::vector<uint64_t> deps) {
  Task t{TaskId(id), WorkerId(0), planner::BarrierTask{LaunchId(0)}, {}, {}};
  for (uint64_t d : deps) t.deps.push_back(TaskId(d));
  return t;
}

Task remove(uint64_t id, uint64_t chunk, std::vector<uint64_t> deps) {
  Task t{TaskId(id),
         WorkerId(0),
         planner::DeleteChunkTask{ChunkId(chunk), Rect(Point{0}, Point{1})},
         {},
         {}};
  for (uint64_t d : deps) t.deps.push_back(TaskId(d));
  t.accesses = planner::accesses_of(t.kind);
  return t;
}

// A launch on `device` writing the whole of `chunk`.
Task execute(uint64_t id, uint64_t chunk, uint64_t device, std::vector<uint64_t> deps) {
  const Rect box(Point{0}, Point{8});
  planner::ExecuteTask e{LaunchId(1), KernelId(1), box, DeviceId(device), {}, ChunkId()};
  e.bindings.push_back({0, ChunkId(chunk), box, ChunkAccessMode::kReadWrite});
  Task t{TaskId(id), WorkerId(0), e, {}, {}};
  for (uint64_t d : deps) t.deps.push_back(TaskId(d));
  t.accesses = planner::accesses_of(t.kind);
  return t;
}

// A read of the whole of `chunk` (`bytes` of it) into a host buffer, folded (a reduction's value).
Task host_read(uint64_t id, uint64_t chunk, uint64_t bytes, std::vector<uint64_t> deps) {
  const Rect box(Point{0}, Point{int64_t(bytes)});
  Task t{TaskId(id),
         WorkerId(0),
         planner::HostReadTask{ChunkId(chunk), {}, box, box, true, {}, LaunchId()},
         {},
         {}};
  for (uint64_t d : deps) t.deps.push_back(TaskId(d));
  t.accesses = planner::accesses_of(t.kind);
  return t;
}

// Chunk 0 on D0 (launches in order) and chunk 1 on D1 (not), created: tasks from T10 on.
void with_two_chunks(Scheduler& s, RecordingSink& sink) {
  s.submit({create(0, 0, 0, 8), create(1, 1, 1, 8)});
  s.on_ran(TaskId(0));
  s.on_ran(TaskId(1));
  sink.take();
}

TEST(Scheduler, LaunchesOnAnInOrderDeviceAreIssuedBehindTheLaunchesTheyWaitFor) {
  RecordingSink sink;
  Scheduler s(sink, 1000, {DeviceId(0)});
  with_two_chunks(s, sink);
  s.submit({execute(10, 0, 0, {}), execute(11, 0, 0, {10}), execute(12, 0, 0, {11})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"stage T10", "stage T11 behind T10",
                                                   "stage T12 behind T11"}));
  s.on_staged(TaskId(10));
  s.on_staged(TaskId(11));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T10", "run T11"}));
  // Submitted while the chain runs: behind the launch it waits for.
  s.submit({execute(13, 0, 0, {12})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"stage T13 behind T12"}));
  for (uint64_t t : {12, 13}) s.on_staged(TaskId(t));
  for (uint64_t t : {10, 11, 12, 13}) s.on_ran(TaskId(t));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T12", "run T13", "unstage T10", "done T10",
                                                   "unstage T11", "done T11", "unstage T12",
                                                   "done T12", "unstage T13", "done T13"}));
  EXPECT_EQ(s.pending(), 0u);
}

TEST(Scheduler, OnlyLaunchesBehindLaunchesOfTheSameInOrderDeviceAreIssuedEarly) {
  RecordingSink sink;
  Scheduler s(sink, 1000, {DeviceId(0)});
  with_two_chunks(s, sink);
  // D1 does not run its launches in order; a fill is not a launch; nor is a launch on
  // another device one this device's queue orders.
  s.submit({execute(10, 1, 1, {}), execute(11, 1, 1, {10}), fill(12, 0, 8, {}),
            execute(13, 0, 0, {12}), execute(14, 0, 0, {10, 13})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"stage T10", "stage T12"}));
  s.on_staged(TaskId(12));
  s.on_ran(TaskId(12));
  EXPECT_EQ(sink.take(),
            (std::vector<std::string>{"run T12", "unstage T12", "done T12", "stage T13"}));
  s.on_staged(TaskId(10));
  s.on_ran(TaskId(10));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T10", "unstage T10", "done T10",
                                                   "stage T11", "stage T14 behind T13"}));
}

// A reduction's value read into the program's buffer follows its launch in the device's queue
// (Device::run_on_host_behind_launches); a large read, a read on a device that does not run
// its launches in order, or one that also waits for a task that is no launch, waits.
TEST(Scheduler, SmallReadsOfAnInOrderDevicesChunksAreIssuedBehindItsLaunches) {
  RecordingSink sink;
  Scheduler s(sink, 1 << 30, {DeviceId(0)});
  with_two_chunks(s, sink);
  const uint64_t large = (64 << 10) + 1;
  s.submit({create(2, 2, 0, large)});
  s.on_ran(TaskId(2));
  sink.take();
  s.submit({execute(10, 0, 0, {}), host_read(11, 0, 8, {10}), execute(12, 2, 0, {}),
            host_read(13, 2, large, {12}), execute(14, 1, 1, {}), host_read(15, 1, 8, {14}),
            fill(16, 0, 8, {}), host_read(17, 0, 8, {10, 16})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"stage T10", "stage T11 behind T10", "stage T12",
                                                   "stage T14", "stage T16"}));
  for (uint64_t t : {10, 11, 12, 14}) s.on_staged(TaskId(t));
  for (uint64_t t : {10, 11, 12, 14}) s.on_ran(TaskId(t));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{
                             "run T10", "run T11", "run T12", "run T14", "unstage T10", "done T10",
                             "unstage T11", "done T11", "unstage T12", "done T12", "stage T13",
                             "unstage T14", "done T14", "stage T15"}));
}

TEST(Scheduler, AReadIssuedBehindAFailedLaunchIsReportedSkippedBecauseOfIt) {
  RecordingSink sink;
  Scheduler s(sink, 1000, {DeviceId(0)});
  with_two_chunks(s, sink);
  s.submit({execute(10, 0, 0, {}), host_read(11, 0, 8, {10})});
  s.on_staged(TaskId(10));
  s.on_staged(TaskId(11));
  sink.take();
  s.on_ran(TaskId(10), cause("boom"));
  s.on_ran(TaskId(11));  // whatever it did
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T10", "done T10 (failed: boom)",
                                                   "unstage T11", "done T11 (skipped for T10)"}));
  EXPECT_EQ(s.pending(), 0u);
}

// The staging thread creates and stages in the order it is asked: a task that waits only for
// creations it was given is staged at once, and runs once they are done.
TEST(Scheduler, TasksWaitingOnlyForCreationsUnderWayAreStagedAtOnce) {
  RecordingSink sink;
  Scheduler s(sink, 1000, {DeviceId(0)});
  s.submit({create(0, 0, 0, 8), create(1, 1, 0, 8), execute(2, 0, 0, {0, 1}), fill(3, 1, 8, {1}),
            execute(4, 0, 0, {0, 3})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T0", "run T1", "stage T2", "stage T3"}));
  s.on_ran(TaskId(0));
  s.on_ran(TaskId(1));
  s.on_staged(TaskId(2));
  s.on_staged(TaskId(3));
  // T4 waits for a fill, which is no creation.
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"done T0", "done T1", "run T2", "run T3"}));
  s.on_ran(TaskId(3));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T3", "done T3", "stage T4"}));
}

// A creation that fails: what was staged after it is skipped because of it, whether its
// staging failed (the chunk is unknown) or not.
TEST(Scheduler, TasksStagedAfterAFailedCreationAreSkippedBecauseOfIt) {
  RecordingSink sink;
  Scheduler s(sink, 1000);
  s.submit({create(0, 0, 0, 8), fill(1, 0, 8, {0}), fill(2, 0, 8, {0})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T0", "stage T1", "stage T2"}));
  s.on_ran(TaskId(0), cause("no room"));
  s.on_failed(TaskId(1), cause("unknown chunk C0", ErrorKind::kInvalidArgument));
  s.on_staged(TaskId(2));
  EXPECT_EQ(sink.take(),
            (std::vector<std::string>{"done T0 (failed: no room)", "done T1 (skipped for T0)",
                                      "unstage T2", "done T2 (skipped for T0)"}));
  EXPECT_EQ(s.pending(), 0u);
  EXPECT_EQ(s.staged_bytes(DeviceId(0)), 0u);
}

TEST(Scheduler, ALaunchNotInPlaceWaitsForItsDependenciesAsAnyTask) {
  RecordingSink sink;
  Scheduler s(sink, 1000, {DeviceId(0)});
  with_two_chunks(s, sink);
  s.submit({execute(10, 0, 0, {}), execute(11, 0, 0, {10}), execute(12, 0, 0, {11})});
  sink.take();
  s.on_staged(TaskId(10));
  s.on_not_in_place(TaskId(11));
  s.on_not_in_place(TaskId(12));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T10"}));
  EXPECT_EQ(s.staged_bytes(DeviceId(0)), 8u);
  // Staged the ordinary way once T10 is done; T12 behind it again.
  s.on_ran(TaskId(10));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T10", "done T10", "stage T11",
                                                   "stage T12 behind T11"}));
  // A failed staging behind others is tried again once T11 runs, and the ordinary way once
  // it is done.
  s.on_failed(TaskId(12), cause("refused"));
  s.on_staged(TaskId(11));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T11", "stage T12 behind T11"}));
  s.on_not_in_place(TaskId(12));
  s.on_ran(TaskId(11));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T11", "done T11", "stage T12"}));
}

TEST(Scheduler, LaunchesIssuedBehindAFailedLaunchAreReportedSkippedBecauseOfIt) {
  RecordingSink sink;
  Scheduler s(sink, 1000, {DeviceId(0)});
  with_two_chunks(s, sink);
  s.submit({execute(10, 0, 0, {}), execute(11, 0, 0, {10}), execute(12, 0, 0, {11}),
            execute(13, 0, 0, {12})});
  for (uint64_t t : {10, 11, 12}) s.on_staged(TaskId(t));
  sink.take();
  // T11 and T12 run behind T10 already; T13 is staged but not yet run when T10 fails.
  s.on_ran(TaskId(10), cause("boom"));
  s.on_ran(TaskId(11));  // whatever it did
  s.on_ran(TaskId(12), cause("garbage in"));
  s.on_staged(TaskId(13));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T10", "done T10 (failed: boom)",
                                                   "unstage T11", "done T11 (skipped for T10)",
                                                   "unstage T12", "done T12 (skipped for T10)",
                                                   "unstage T13", "done T13 (skipped for T10)"}));
  EXPECT_EQ(s.pending(), 0u);
  EXPECT_EQ(s.staged_bytes(DeviceId(0)), 0u);
}

// T12 is staged behind T11, T11 behind T10 and T13. T10 fails before T11's staging is
// answered: T11 goes back to waiting for T13 (still running), and T12, whose own dependency
// has not failed, must not run before T11.
TEST(Scheduler, ALaunchStagedBehindOneThatWentBackToWaitingDoesNotRun) {
  RecordingSink sink;
  Scheduler s(sink, 1000, {DeviceId(0)});
  with_two_chunks(s, sink);
  s.submit({execute(10, 0, 0, {}), execute(13, 0, 0, {}), execute(11, 0, 0, {10, 13}),
            execute(12, 0, 0, {11})});
  EXPECT_EQ(sink.take(),
            (std::vector<std::string>{"stage T10", "stage T13", "stage T11 behind T10 T13",
                                      "stage T12 behind T11"}));
  s.on_staged(TaskId(10));
  s.on_staged(TaskId(13));
  s.on_ran(TaskId(10), cause("boom"));
  s.on_staged(TaskId(11));
  s.on_staged(TaskId(12));
  EXPECT_EQ(sink.take(),
            (std::vector<std::string>{"run T10", "run T13", "unstage T10",
                                      "done T10 (failed: boom)", "unstage T11", "unstage T12"}));
  // Both wait to be staged again: their chunks are still to be used (PlannedUses).
  EXPECT_EQ(sink.waiting_again, (std::vector<TaskId>{TaskId(11), TaskId(12)}));
  s.on_ran(TaskId(13));
  EXPECT_EQ(sink.take(),
            (std::vector<std::string>{"unstage T13", "done T13", "done T11 (skipped for T10)",
                                      "done T12 (skipped for T10)"}));
  EXPECT_EQ(s.pending(), 0u);
  EXPECT_EQ(s.staged_bytes(DeviceId(0)), 0u);
}

TEST(Scheduler, TasksRunAfterTheirDependenciesAndStageBeforeRunning) {
  RecordingSink sink;
  Scheduler s(sink, 1000);
  // A creation needs no staging; the fill is staged after it (the staging thread's order).
  s.submit({create(0, 0, 0, 8), fill(1, 0, 8, {0}), fill(2, 0, 8, {1})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T0", "stage T1"}));
  s.on_ran(TaskId(0));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"done T0"}));
  s.on_staged(TaskId(1));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T1"}));
  s.on_ran(TaskId(1));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T1", "done T1", "stage T2"}));
  s.on_staged(TaskId(2));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T2"}));
  s.on_ran(TaskId(2));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T2", "done T2"}));
  EXPECT_EQ(s.pending(), 0u);
}

// Answered out of order (a staging before the creation it follows ends): the task waits for
// the creation after all, unstaged, and is staged again.
TEST(Scheduler, ATaskStagedBeforeItsCreationEndedWaitsForIt) {
  RecordingSink sink;
  Scheduler s(sink, 1000);
  s.submit({create(0, 0, 0, 8), fill(1, 0, 8, {0})});
  sink.take();
  s.on_staged(TaskId(1));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T1"}));
  EXPECT_EQ(sink.waiting_again, std::vector<TaskId>{TaskId(1)});
  s.on_ran(TaskId(0));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"done T0", "stage T1"}));
  s.on_staged(TaskId(1));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T1"}));
  s.on_ran(TaskId(1));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"unstage T1", "done T1"}));
  EXPECT_EQ(sink.waiting_again, std::vector<TaskId>{TaskId(1)});  // the last one ended it
  EXPECT_EQ(s.pending(), 0u);
}

// A device's memory bounds what is staged ahead on it: a quarter at most (the rest keeps
// chunks for later tasks); a device of which nothing is said has the staging limit alone.
TEST(Scheduler, AtMostAQuarterOfADevicesMemoryIsStagedAhead) {
  RecordingSink sink;
  Scheduler s(sink, 1000, {}, {{DeviceId(0), 400}});
  s.submit({create(0, 0, 0, 40), create(1, 1, 0, 40), create(2, 2, 0, 40), create(3, 3, 1, 40),
            create(4, 4, 1, 40), create(5, 5, 1, 40)});
  for (uint64_t t = 0; t <= 5; ++t) s.on_ran(TaskId(t));
  sink.take();
  s.submit({fill(6, 0, 40, {}), fill(7, 1, 40, {}), fill(8, 2, 40, {}), fill(9, 3, 40, {}),
            fill(10, 4, 40, {}), fill(11, 5, 40, {})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"stage T6", "stage T7", "stage T9", "stage T10",
                                                   "stage T11"}));
  EXPECT_EQ(s.staged_bytes(DeviceId(0)), 80u);  // T8 would make 120 > 400 / 4
  s.on_staged(TaskId(6));
  s.on_ran(TaskId(6));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T6", "unstage T6", "done T6", "stage T8"}));
}

TEST(Scheduler, TheStagingLimitHoldsBackWorkButNeverStarvesADevice) {
  RecordingSink sink;
  Scheduler s(sink, 100);
  s.submit({create(0, 0, 0, 80), create(1, 1, 0, 80), create(2, 2, 0, 500), create(6, 3, 0, 10)});
  for (uint64_t t : {0, 1, 2, 6}) s.on_ran(TaskId(t));
  sink.take();
  // Four ready fills on device D0. Two tasks are always staged, whatever their size (the next
  // one is issued while one runs); beyond two, the bytes must stay within 100: so T3 and T4
  // go at once, and T5 (500 bytes) and T7 wait, oldest first, for one of them to finish.
  s.submit({fill(3, 0, 80, {}), fill(4, 1, 80, {}), fill(5, 2, 500, {}), fill(7, 3, 10, {})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"stage T3", "stage T4"}));
  EXPECT_EQ(s.staged_bytes(DeviceId(0)), 160u);
  s.on_staged(TaskId(3));
  s.on_ran(TaskId(3));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T3", "unstage T3", "done T3", "stage T5"}));
  EXPECT_EQ(s.staged_bytes(DeviceId(0)), 580u);
  s.on_staged(TaskId(4));
  s.on_ran(TaskId(4));
  // 500 + 10 exceed 100, but one task alone is always joined by a second.
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"run T4", "unstage T4", "done T4", "stage T7"}));
  EXPECT_EQ(s.staged_bytes(DeviceId(0)), 510u);
}

TEST(Scheduler, ARecvWaitsForItsMessageWhicheverComesFirst) {
  RecordingSink sink;
  Scheduler s(sink, 1000);
  s.submit({create(0, 0, 0, 8)});
  s.on_ran(TaskId(0));
  sink.take();
  s.submit({recv(1, 0, 7, {})});
  EXPECT_TRUE(sink.take().empty());  // no message yet
  s.on_message(7);
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"stage T1"}));
  s.on_message(9);  // early: its Recv comes later
  s.submit({recv(2, 0, 9, {})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"stage T2"}));
}

TEST(Scheduler, FailuresSkipDependentsButCleanupAndBarriersRun) {
  RecordingSink sink;
  Scheduler s(sink, 1000);
  s.submit({create(0, 0, 0, 8), fill(1, 0, 8, {0})});
  s.on_ran(TaskId(0));
  s.on_staged(TaskId(1));
  s.on_ran(TaskId(1), cause("boom"));
  sink.take();
  // Submitted after T1 failed and left: still skipped. The delete and the barrier run.
  s.submit({fill(2, 0, 8, {1}), remove(3, 0, {2}), barrier(4, {3})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"done T2 (skipped for T1)", "run T3"}));
  s.on_ran(TaskId(3));
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"done T3", "run T4"}));
}

TEST(Scheduler, AFailureNamesItsTaskAndKeepsTheUnderlyingError) {
  RecordingSink sink;
  Scheduler s(sink, 1000);
  s.submit({create(0, 0, 0, 8), fill(1, 0, 8, {0})});
  s.on_ran(TaskId(0));
  s.on_failed(TaskId(1), cause("task needs 8 bytes", ErrorKind::kOutOfMemory));
  ASSERT_EQ(sink.failures.size(), 1u);
  const TaskFailure& f = sink.failures[0];
  EXPECT_EQ(f.task, TaskId(1));
  EXPECT_EQ(f.kind, "Fill");
  EXPECT_EQ(f.detail, planner::describe(fill(1, 0, 8, {0})));
  EXPECT_EQ(f.worker, WorkerId(0));
  EXPECT_FALSE(f.kernel.has_value());
  EXPECT_EQ(f.error, ErrorKind::kOutOfMemory);
  EXPECT_FALSE(f.skipped());
  EXPECT_EQ(f.what, "task needs 8 bytes");
}

// A task skipped because of a skipped task names the failed task at the root, not the one in
// between, in its fragment and in later ones.
TEST(Scheduler, SkippedTasksNameTheFailedTaskAtTheRoot) {
  RecordingSink sink;
  Scheduler s(sink, 1000);
  s.submit({create(0, 0, 0, 8), fill(1, 0, 8, {0}), fill(2, 0, 8, {1}), fill(3, 0, 8, {2})});
  s.on_ran(TaskId(0));
  s.on_staged(TaskId(1));
  sink.take();
  s.on_ran(TaskId(1), cause("boom"));
  EXPECT_EQ(sink.take(),
            (std::vector<std::string>{"unstage T1", "done T1 (failed: boom)",
                                      "done T2 (skipped for T1)", "done T3 (skipped for T1)"}));
  s.submit({fill(4, 0, 8, {3})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"done T4 (skipped for T1)"}));
  ASSERT_EQ(sink.failures.size(), 4u);
  for (size_t i = 1; i < 4; ++i) {
    const TaskFailure& f = sink.failures[i];
    EXPECT_EQ(f.task, TaskId(i + 1));
    EXPECT_EQ(f.caused_by, TaskId(1)) << f.task;
    EXPECT_EQ(f.error, ErrorKind::kTask);
    EXPECT_TRUE(f.what.empty()) << f.what;
  }
}

TEST(Scheduler, AMessageNamingAFailedTaskSkipsItsRecv) {
  RecordingSink sink;
  Scheduler s(sink, 1000);
  s.submit({create(0, 0, 0, 8)});
  s.on_ran(TaskId(0));
  sink.take();
  s.submit({recv(1, 0, 3, {}), fill(2, 0, 1, {1})});
  s.on_message(3, TaskId(9));  // a Send on another worker was skipped because T9 failed
  EXPECT_EQ(sink.take(),
            (std::vector<std::string>{"done T1 (skipped for T9)", "done T2 (skipped for T9)"}));
  // Early: the Recv comes after its failed message.
  s.on_message(5, TaskId(8));
  s.submit({recv(3, 0, 5, {})});
  EXPECT_EQ(sink.take(), (std::vector<std::string>{"done T3 (skipped for T8)"}));
}

}  // namespace
}  // namespace lightning::worker
