#include "planner/task_failure.hpp"

#include <new>
#include <tuple>

namespace lightning::planner {

namespace {

auto fields(const AccessViolation& v) {
  return std::tie(v.param, v.index, v.region, v.mode, v.kind);
}

auto fields(const TaskFailure::Kernel& k) {
  return std::tie(k.name, k.label, k.launch, k.superblock, k.device, k.bindings);
}

auto fields(const TaskFailure& f) {
  return std::tie(f.task, f.kind, f.detail, f.worker, f.rank, f.kernel, f.error, f.caused_by,
                  f.what, f.violation);
}

std::string describe_violation(const AccessViolation& v) {
  const std::string element =
      "element " + v.index.to_string() + " of kernel parameter " + std::to_string(v.param);
  switch (v.kind) {
    case AccessViolation::Kind::kWroteReadOnly:
      return element + " changed, but its region " + v.region.to_string() +
             " is declared read-only";
    case AccessViolation::Kind::kNotWritten:
      return element + " was not written, but its region " + v.region.to_string() +
             " is declared overwritten";
    case AccessViolation::Kind::kOutside:
      break;
  }
  return element + " is outside the region " + v.region.to_string() + " declared for it";
}

}  // namespace

AccessViolationError::AccessViolationError(AccessViolation violation)
    : Error(ErrorKind::kAnnotation, describe_violation(violation)),
      violation_(std::move(violation)) {}

bool operator==(const AccessViolation& a, const AccessViolation& b) {
  return fields(a) == fields(b);
}
bool operator!=(const AccessViolation& a, const AccessViolation& b) {
  return !(a == b);
}

bool operator==(const TaskFailure::Kernel& a, const TaskFailure::Kernel& b) {
  return fields(a) == fields(b);
}
bool operator!=(const TaskFailure::Kernel& a, const TaskFailure::Kernel& b) {
  return !(a == b);
}
bool operator==(const TaskFailure& a, const TaskFailure& b) {
  return fields(a) == fields(b);
}
bool operator!=(const TaskFailure& a, const TaskFailure& b) {
  return !(a == b);
}

void identify(TaskFailure& failure, const Task& task) {
  failure.task = task.id;
  failure.kind = name_of(task.kind);
  failure.detail = describe(task);
  failure.worker = task.worker;
  if (const auto* e = std::get_if<ExecuteTask>(&task.kind)) {
    if (!failure.kernel) failure.kernel.emplace();
    failure.kernel->launch = e->launch;
    failure.kernel->superblock = e->superblock;
    failure.kernel->device = e->device;
    failure.kernel->bindings = e->bindings;
  }
}

TaskFailure failure_of(const Task& task, ErrorKind error, std::string what) {
  TaskFailure f;
  identify(f, task);
  f.error = error;
  f.what = std::move(what);
  return f;
}

TaskFailure skipped_because(const Task& task, TaskId cause) {
  TaskFailure f;
  identify(f, task);
  f.caused_by = cause;
  return f;
}

TaskFailure failure_of(const std::exception& error) {
  TaskFailure f;
  if (const auto* e = dynamic_cast<const Error*>(&error)) {
    f.error = e->kind();
    f.what = e->message();
    for (const std::string& line : e->context()) f.what += "\n  " + line;
    if (const auto* v = dynamic_cast<const AccessViolationError*>(e)) f.violation = v->violation();
  } else {
    f.error =
        dynamic_cast<const std::bad_alloc*>(&error) ? ErrorKind::kOutOfMemory : ErrorKind::kTask;
    f.what = error.what();
  }
  return f;
}

}  // namespace lightning::planner
