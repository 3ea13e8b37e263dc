#include "planner/fold_identity.hpp"

#include <cstring>
#include <limits>

#include "core/error.hpp"

namespace lightning::planner {

namespace {

template <class T>
std::vector<uint8_t> bytes_of(T value) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &value, sizeof(T));
  return b;
}

template <class T>
std::vector<uint8_t> identity_of(FoldOp op) {
  using L = std::numeric_limits<T>;
  switch (op) {
    case FoldOp::kSum:
      return bytes_of<T>(T(0));
    case FoldOp::kProd:
      return bytes_of<T>(T(1));
    case FoldOp::kMin:
      return bytes_of<T>(L::has_infinity ? L::infinity() : L::max());
    case FoldOp::kMax:
      return bytes_of<T>(L::has_infinity ? -L::infinity() : L::lowest());
    case FoldOp::kCustom:
      break;
  }
  throw Error(ErrorKind::kInternal, "a custom reducer has no built-in identity");
}

}  // namespace

FoldOp fold_op_of(annotation::ReduceOp op) {
  switch (op) {
    case annotation::ReduceOp::kSum:
      return FoldOp::kSum;
    case annotation::ReduceOp::kProd:
      return FoldOp::kProd;
    case annotation::ReduceOp::kMin:
      return FoldOp::kMin;
    case annotation::ReduceOp::kMax:
      return FoldOp::kMax;
  }
  return FoldOp::kSum;
}

std::vector<uint8_t> fold_identity(FoldOp op, DataType type) {
  switch (type) {
    case DataType::kInt8:
      return identity_of<int8_t>(op);
    case DataType::kInt16:
      return identity_of<int16_t>(op);
    case DataType::kInt32:
      return identity_of<int32_t>(op);
    case DataType::kInt64:
      return identity_of<int64_t>(op);
    case DataType::kUInt8:
      return identity_of<uint8_t>(op);
    case DataType::kUInt16:
      return identity_of<uint16_t>(op);
    case DataType::kUInt32:
      return identity_of<uint32_t>(op);
    case DataType::kUInt64:
      return identity_of<uint64_t>(op);
    case DataType::kFloat32:
      return identity_of<float>(op);
    case DataType::kFloat64:
      return identity_of<double>(op);
  }
  return {};
}

}  // namespace lightning::planner
