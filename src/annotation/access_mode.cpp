#include "annotation/access_mode.hpp"

namespace lightning::annotation {

std::string_view name_of(AccessMode mode) {
  switch (mode) {
    case AccessMode::kRead:
      return "read";
    case AccessMode::kWrite:
      return "write";
    case AccessMode::kOverwrite:
      return "overwrite";
    case AccessMode::kReadWrite:
      return "readwrite";
    case AccessMode::kReduce:
      return "reduce";
  }
  return "?";
}

}  // namespace lightning::annotation
