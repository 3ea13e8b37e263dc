// The driver's one formatter of task failures, alone: causes before consequences, the rest
// counted, the kind of the underlying error, and every failure's own words.
#include "driver/task_error.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lightning::driver {
namespace {

using planner::TaskFailure;

TaskFailure kernel_failure(uint64_t task, const std::string& what, int rank = -1) {
  TaskFailure f;
  f.task = TaskId(task);
  f.kind = "Execute";
  f.detail = "T" + std::to_string(task) + " Execute K1 [200, 300) on D1 p0=C1";
  f.worker = WorkerId(rank < 0 ? 0 : static_cast<uint64_t>(rank));
  f.rank = rank;
  f.kernel =
      TaskFailure::Kernel{"saxpy", "saxpy", LaunchId(4), Rect(Point{200}, Point{300}), DeviceId(1)};
  f.error = ErrorKind::kTask;
  f.what = what;
  return f;
}

TaskFailure copy_failure(uint64_t task, ErrorKind kind, const std::string& what) {
  TaskFailure f;
  f.task = TaskId(task);
  f.kind = "Copy";
  f.detail = "T" + std::to_string(task) + " Copy C6 -> C16 [0, 300)";
  f.worker = WorkerId(0);
  f.error = kind;
  f.what = what;
  return f;
}

TaskFailure skipped(uint64_t task, uint64_t cause, int rank = -1) {
  TaskFailure f;
  f.task = TaskId(task);
  f.kind = "Recv";
  f.detail = "T" + std::to_string(task) + " Recv C3 [0, 10) from W1 tag 7";
  f.worker = WorkerId(rank < 0 ? 0 : static_cast<uint64_t>(rank));
  f.rank = rank;
  f.caused_by = TaskId(cause);
  return f;
}

TEST(TaskError, AKernelFailureNamesKernelSuperblockDeviceAndRank) {
  const Error e = task_error({kernel_failure(12, "element 250 is cursed", 1)});
  EXPECT_EQ(e.kind(), ErrorKind::kTask);
  EXPECT_EQ(e.message(),
            "kernel 'saxpy' failed on superblock [200, 300) on D1 (rank 1, T12): element 250 is "
            "cursed");
  EXPECT_EQ(std::string(e.what()),
            "lightning: task failed: kernel 'saxpy' failed on superblock [200, 300) on D1 (rank "
            "1, T12): element 250 is cursed");
}

TEST(TaskError, InOneProcessThereIsNoRankAndADifferentLabelIsNamed) {
  TaskFailure f = kernel_failure(12, "boom");
  f.kernel->label = "my loop";
  EXPECT_EQ(task_error({f}).message(),
            "launch 'my loop' (kernel 'saxpy') failed on superblock [200, 300) on D1 (T12): boom");
}

TEST(TaskError, CausesComeFirstAndTheRestIsCounted) {
  // Over MPI the skipped Recvs were heard of before the failure they depend on.
  const std::vector<TaskFailure> failures = {
      skipped(40, 12, 0), skipped(41, 12, 0), kernel_failure(12, "element 250 is cursed", 1),
      skipped(42, 12, 2), kernel_failure(13, "element 301 is cursed", 1)};
  const Error e = task_error(failures);
  EXPECT_EQ(e.kind(), ErrorKind::kTask);
  EXPECT_EQ(e.message(),
            "kernel 'saxpy' failed on superblock [200, 300) on D1 (rank 1, T12): element 250 is "
            "cursed\n  (and 4 more failed or skipped tasks: 1 failed, 3 skipped)");
}

TEST(TaskError, TheErrorHasTheKindOfTheUnderlyingError) {
  const Error e = task_error({skipped(40, 33), copy_failure(33, ErrorKind::kOutOfMemory,
                                                            "task needs 6.2 KiB on D0 memory")});
  EXPECT_EQ(e.kind(), ErrorKind::kOutOfMemory);
  EXPECT_EQ(std::string(e.what()),
            "lightning: out of memory: T33 Copy C6 -> C16 [0, 300) failed on W0: task needs "
            "6.2 KiB on D0 memory\n  (and 1 more failed or skipped tasks: 1 skipped)");
}

TEST(TaskError, OnlySkippedTasksAreReportedAsSuch) {
  // Their cause was not heard of yet (it comes to a later fence).
  const Error e = task_error({skipped(40, 12, 0), skipped(41, 12, 0)});
  EXPECT_EQ(e.kind(), ErrorKind::kTask);
  EXPECT_EQ(e.message(),
            "T40 Recv C3 [0, 10) from W1 tag 7 on W0 (rank 0) was skipped: it depends on T12, "
            "which failed\n  (and 1 more failed or skipped tasks: 1 skipped)");
}

TEST(TaskError, ASkippedKernelAndAFailedWorker) {
  TaskFailure k = kernel_failure(14, "");
  k.caused_by = TaskId(12);
  k.what.clear();
  EXPECT_EQ(task_error({k}).message(),
            "kernel 'saxpy' on superblock [200, 300) on D1 (T14) was skipped: it depends on T12, "
            "which failed");
  TaskFailure w;
  w.worker = WorkerId(2);
  w.rank = 2;
  w.error = ErrorKind::kInternal;
  w.what = "task T9 submitted twice";
  const Error e = task_error({w});
  EXPECT_EQ(e.kind(), ErrorKind::kInternal);
  EXPECT_EQ(e.message(), "worker W2 (rank 2) failed: task T9 submitted twice");
}

TEST(TaskError, AnAccessViolationIsToldInTheProgramsTerms) {
  TaskFailure f = kernel_failure(9, "element (300) of kernel parameter 1 is outside the region");
  f.error = ErrorKind::kAnnotation;
  f.violation = planner::AccessViolation{1, Point{300}, Rect(Point{199}, Point{300}),
                                         planner::ChunkAccessMode::kRead,
                                         planner::AccessViolation::Kind::kOutside};
  LaunchNames names;
  names.annotation = "global i => read x[i-1:i], readwrite y[i]";
  names.params = {{"y", "field", false, 28}, {"x", "signal", false, 12}, {"a", "", false}};
  const auto lookup = [&](LaunchId l) { return l == LaunchId(4) ? &names : nullptr; };
  const Error e = task_error({f}, lookup);
  EXPECT_EQ(e.kind(), ErrorKind::kAnnotation);
  EXPECT_EQ(e.message(),
            "kernel 'saxpy' failed on superblock [200, 300) on D1 (T9): View 'signal' (parameter "
            "'x'): element (300) is outside the region [199, 300) that the annotation declares "
            "to read\n"
            "annotation:1:13: the rule for 'x'\n"
            "global i => read x[i-1:i], readwrite y[i]\n"
            "            ^");

  // A write to a read-only region, of a View indexed in reverse (LayoutLeft): the element and
  // the region in the View's order.
  f.violation = planner::AccessViolation{1, Point{7, 2}, Rect(Point{0, 0}, Point{8, 4}),
                                         planner::ChunkAccessMode::kRead,
                                         planner::AccessViolation::Kind::kWroteReadOnly};
  names.params[1].axes_reversed = true;
  EXPECT_NE(
      task_error({f}, lookup)
          .message()
          .find("View 'signal' (parameter 'x'): element (2, 7) was written, but the annotation "
                "declares [0, 4) x [0, 8) only to read it"),
      std::string::npos);
  // An element of an `overwrite` region the kernel left alone.
  f.violation = planner::AccessViolation{0, Point{250}, Rect(Point{200}, Point{300}),
                                         planner::ChunkAccessMode::kOverwrite,
                                         planner::AccessViolation::Kind::kNotWritten};
  EXPECT_NE(task_error({f}, lookup)
                .message()
                .find("View 'field' (parameter 'y'): element (250) was not written, but the "
                      "annotation declares that the kernel overwrites all of [200, 300) (write "
                      "it, or declare it 'write')"),
            std::string::npos);

  // A launch the driver does not know: the worker's own words.
  const auto none = [](LaunchId) -> const LaunchNames* { return nullptr; };
  EXPECT_EQ(task_error({kernel_failure(9, "as the worker says")}, none).message(),
            "kernel 'saxpy' failed on superblock [200, 300) on D1 (T9): as the worker says");
}

}  // namespace
}  // namespace lightning::driver
