#include "core/error.hpp"

namespace lightning {

std::string_view name_of(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return "invalid argument";
    case ErrorKind::kConfig:
      return "configuration error";
    case ErrorKind::kAnnotation:
      return "annotation error";
    case ErrorKind::kDistribution:
      return "distribution error";
    case ErrorKind::kOutOfMemory:
      return "out of memory";
    case ErrorKind::kTask:
      return "task failed";
    case ErrorKind::kCommunication:
      return "communication error";
    case ErrorKind::kCuda:
      return "CUDA error";
    case ErrorKind::kInternal:
      return "internal error";
  }
  return "error";
}

Error::Error(ErrorKind kind, std::string message)
    : std::runtime_error(message), kind_(kind), message_(std::move(message)) {
  rebuild();
}

Error& Error::with_context(std::string line) {
  context_.push_back(std::move(line));
  rebuild();
  return *this;
}

void Error::rebuild() {
  full_ = "lightning: ";
  full_ += name_of(kind_);
  full_ += ": ";
  full_ += message_;
  for (const auto& c : context_) {
    full_ += "\n  ";
    full_ += c;
  }
}

}  // namespace lightning
