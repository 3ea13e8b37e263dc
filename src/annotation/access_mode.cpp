#include "annotation/access_mode.hpp"

namespace lightning::annotation {

std::string_view name_of(AccessMode mode) {
  switch (mode) {
    case AccessMode::kRead:
      return "read";
    case AccessMode::kWrite:
      return "write";
    case AccessMode::kReadWrite:
      return "readwrite";
    case AccessMode::kReduce:
      return "reduce";
  }
  return "?";
}

std::string_view name_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "+";
    case ReduceOp::kProd:
      return "*";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
  }
  return "?";
}

}  // namespace lightning::annotation
