#include "driver/task_error.hpp"

#include <algorithm>
#include <string>

#include "annotation/diagnostic.hpp"

namespace lightning::driver {

namespace {

// "rank 1, T12" or "T12": where and which task, for the parenthesis after a kernel's device.
std::string rank_and_task(const planner::TaskFailure& f) {
  std::string text = f.rank >= 0 ? "rank " + std::to_string(f.rank) : "";
  if (f.task.valid()) text += (text.empty() ? "" : ", ") + f.task.to_string();
  return text;
}

// " (rank 1)" or "".
std::string on_rank(const planner::TaskFailure& f) {
  return f.rank >= 0 ? " (rank " + std::to_string(f.rank) + ")" : "";
}

const char* declared_as(planner::ChunkAccessMode mode) {
  switch (mode) {
    case planner::ChunkAccessMode::kRead:
      return "to read";
    case planner::ChunkAccessMode::kWrite:
      return "to write";
    case planner::ChunkAccessMode::kOverwrite:
      return "to overwrite";
    case planner::ChunkAccessMode::kReadWrite:
      break;
  }
  return "to read and write";
}

// A point in the View's own index order.
std::string in_view_order(const Point& p, bool axes_reversed) {
  return (axes_reversed ? p.reversed() : p).to_string();
}

// The violation in the program's terms, or empty when the launch is not known.
std::string describe_violation(const planner::AccessViolation& v, const LaunchNames* names) {
  if (!names || v.param < 0 || static_cast<size_t>(v.param) >= names->params.size()) return {};
  const LaunchNames::Param& p = names->params[static_cast<size_t>(v.param)];
  std::string text = "View '" + p.view + "' (parameter '" + p.name + "'): element " +
                     in_view_order(v.index, p.axes_reversed);
  const std::string region =
      p.axes_reversed ? v.region.reversed().to_string() : v.region.to_string();
  switch (v.kind) {
    case planner::AccessViolation::Kind::kWroteReadOnly:
      text += " was written, but the annotation declares " + region + " only to read it";
      break;
    case planner::AccessViolation::Kind::kNotWritten:
      text += " was not written, but the annotation declares that the kernel overwrites all of " +
              region + " (write it, or declare it 'write')";
      break;
    case planner::AccessViolation::Kind::kOutside:
      text += " is outside the region " + region + " that the annotation declares " +
              declared_as(v.mode);
      break;
  }
  if (p.rule != std::string::npos)
    text += "\n" + annotation::format_diagnostic(names->annotation, p.rule,
                                                 "the rule for '" + p.name + "'");
  return text;
}

std::string describe(const planner::TaskFailure& f, const LaunchNamesOf& names) {
  std::string text;
  const bool named_kernel = f.kernel && !(f.kernel->name.empty() && f.kernel->label.empty());
  if (named_kernel) {
    const planner::TaskFailure::Kernel& k = *f.kernel;
    const std::string where = " superblock " + k.superblock.to_string() + " on " +
                              k.device.to_string() + " (" + rank_and_task(f) + ")";
    text = kernel_title(k) + (f.skipped() ? " on" : " failed on") + where;
  } else if (f.task.valid()) {
    text = f.detail + (f.skipped() ? " on " : " failed on ") + f.worker.to_string() + on_rank(f);
  } else {
    text = "worker " + f.worker.to_string() + on_rank(f) + " failed";
  }
  if (f.skipped())
    return text + " was skipped: it depends on " + f.caused_by.to_string() + ", which failed";
  if (f.violation && f.kernel && names) {
    const std::string violation = describe_violation(*f.violation, names(f.kernel->launch));
    if (!violation.empty()) return text + ": " + violation;
  }
  return f.what.empty() ? text : text + ": " + f.what;
}

}  // namespace

std::string launch_title(const std::string& label, const std::string& kernel) {
  const std::string& name = kernel.empty() ? label : kernel;
  if (!label.empty() && label != name) return "launch '" + label + "' (kernel '" + name + "')";
  return "kernel '" + name + "'";
}

std::string kernel_title(const planner::TaskFailure::Kernel& k) {
  return launch_title(k.label, k.name);
}

Error task_error(const std::vector<planner::TaskFailure>& failures, const LaunchNamesOf& names) {
  if (failures.empty()) return Error(ErrorKind::kInternal, "task_error of no failures");
  // Report a cause, not a consequence: over MPI, a task skipped on one rank may be heard of
  // before the failure on another rank that it depends on.
  auto first = std::find_if(failures.begin(), failures.end(),
                            [](const planner::TaskFailure& f) { return !f.skipped(); });
  if (first == failures.end()) first = failures.begin();
  std::string message = describe(*first, names);
  if (failures.size() > 1) {
    const auto skipped = std::count_if(failures.begin(), failures.end(),
                                       [](const planner::TaskFailure& f) { return f.skipped(); }) -
                         (first->skipped() ? 1 : 0);
    const auto failed = static_cast<std::ptrdiff_t>(failures.size() - 1) - skipped;
    std::string counts;
    if (failed > 0) counts = std::to_string(failed) + " failed";
    if (skipped > 0) counts += (counts.empty() ? "" : ", ") + std::to_string(skipped) + " skipped";
    message += "\n  (and " + std::to_string(failures.size() - 1) +
               " more failed or skipped tasks: " + counts + ")";
  }
  return Error(first->error, std::move(message));
}

}  // namespace lightning::driver
