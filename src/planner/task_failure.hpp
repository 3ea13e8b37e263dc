// Why a task did not complete, as a value: what the task was, where it ran, what went wrong,
// and whether it was skipped because of another task's failure. Workers report it unchanged;
// the driver formats it once, when it throws at a fence, read or reduction.
#pragma once

#include <exception>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/rect.hpp"
#include "planner/task.hpp"

namespace lightning::planner {

/// An element access that a kernel's annotation does not allow, found in checked mode: the
/// driver names the View, the kernel parameter and the annotation rule from `param`.
struct AccessViolation {
  int param = -1;  ///< the kernel parameter (signature position) the handle belongs to
  Point index;     ///< the element, in global coordinates (the array's stored axis order)
  Rect region;     ///< what the annotation declares for the superblock
  ChunkAccessMode mode = ChunkAccessMode::kRead;  ///< how it declares it
  enum class Kind : uint8_t {
    kOutside,        ///< `index` is outside `region`
    kWroteReadOnly,  ///< `index` is inside `region`, which is read-only, and changed
    kNotWritten,     ///< `index` is inside `region`, which the kernel overwrites, and kept the
                     ///< bytes checked mode put there (AccessCheck::kUnwrittenByte)
  };
  Kind kind = Kind::kOutside;
};

bool operator==(const AccessViolation& a, const AccessViolation& b);
bool operator!=(const AccessViolation& a, const AccessViolation& b);

/// The error a checked run throws: its message says what happened in terms the worker
/// knows; failure_of keeps `violation` for the driver to describe in the user's terms.
class AccessViolationError : public Error {
 public:
  explicit AccessViolationError(AccessViolation violation);
  const AccessViolation& violation() const { return violation_; }

 private:
  AccessViolation violation_;
};

/// A task that failed, or that was skipped because a task it depends on failed.
struct TaskFailure {
  /// What an Execute ran: its kernel and superblock.
  struct Kernel {
    std::string name;   ///< the registered kernel's name (filled in by the worker)
    std::string label;  ///< the launch's label (filled in by the worker)
    LaunchId launch;
    Rect superblock;
    DeviceId device;
    /// What it touched: the regions of the launch's arrays a failure leaves invalid.
    std::vector<ExecuteTask::Binding> bindings = {};
  };

  TaskId task;         ///< invalid: a failure of the worker itself, not of one of its tasks
  std::string kind;    ///< the task's kind (name_of(TaskKind)): "Execute", "Copy", ...
  std::string detail;  ///< the task in one line (describe): "T12 Copy C3 -> C7 [0, 64)"
  WorkerId worker;     ///< where it ran
  int rank = -1;       ///< the MPI rank of `worker` (set on rank 0); -1 in one process
  std::optional<Kernel> kernel;  ///< set for an Execute
  /// The kind of the underlying error: kTask for a kernel's own exception, kOutOfMemory,
  /// kCuda, kCommunication, ... (kTask for a skipped task).
  ErrorKind error = ErrorKind::kTask;
  /// Valid when the task was skipped: the failed task it depends on, directly or through
  /// other skipped tasks (the root cause, never an intermediate skipped task).
  TaskId caused_by;
  /// The underlying error: its message and context lines, without the "lightning: <kind>: "
  /// prefix. Empty for a skipped task.
  std::string what;
  /// Set when a checked run found an access its annotation does not allow.
  std::optional<AccessViolation> violation;

  bool skipped() const { return caused_by.valid(); }
};

bool operator==(const TaskFailure::Kernel& a, const TaskFailure::Kernel& b);
bool operator!=(const TaskFailure::Kernel& a, const TaskFailure::Kernel& b);
bool operator==(const TaskFailure& a, const TaskFailure& b);
bool operator!=(const TaskFailure& a, const TaskFailure& b);

/// Sets what `task` was and where it ran (task, kind, detail, worker, kernel but its names);
/// leaves the rest of `failure` as it is.
void identify(TaskFailure& failure, const Task& task);

/// A failure of `task` with an underlying error of `error` saying `what`.
TaskFailure failure_of(const Task& task, ErrorKind error, std::string what);

/// `task`, skipped because `cause` failed.
TaskFailure skipped_because(const Task& task, TaskId cause);

/// The kind and the text (message and context lines, without prefix) of an error, as a
/// TaskFailure's `error` and `what`: a lightning::Error gives its own (an
/// AccessViolationError its violation too); std::bad_alloc is out of memory; any other
/// exception is kTask with its what().
TaskFailure failure_of(const std::exception& error);

}  // namespace lightning::planner
