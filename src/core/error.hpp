// The one exception type of the project: a kind, a message, and the context it crossed.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lightning {

/// What went wrong, coarsely: lets callers and tests react without parsing messages.
enum class ErrorKind {
  kInvalidArgument,  ///< a caller passed a bad value (sizes, ids, shapes)
  kConfig,           ///< a configuration key or value is bad
  kAnnotation,       ///< an annotation does not parse or does not fit its kernel
  kDistribution,     ///< chunks or superblocks are invalid (gaps, overlap, unknown device)
  kOutOfMemory,      ///< data does not fit even after eviction
  kTask,             ///< a task failed while running
  kCommunication,    ///< a peer process failed or a message never came
  kCuda,             ///< the CUDA driver or NVRTC reported an error
  kInternal,         ///< a broken invariant: a bug in lightning_kokkos
};

std::string_view name_of(ErrorKind kind);

/// An error with a kind, a message that names the culprit, and context lines added as it
/// propagates ("while planning launch 'stencil'"). what() gives all of it.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message);

  ErrorKind kind() const { return kind_; }
  /// The message alone, without context lines.
  const std::string& message() const { return message_; }
  /// Context lines, innermost first.
  const std::vector<std::string>& context() const { return context_; }
  /// Adds a context line; returns *this so that `throw e.with_context(...)` reads well.
  Error& with_context(std::string line);

  const char* what() const noexcept override { return full_.c_str(); }

 private:
  void rebuild();

  ErrorKind kind_;
  std::string message_;
  std::vector<std::string> context_;
  std::string full_;
};

}  // namespace lightning
