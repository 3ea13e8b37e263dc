// Strong ids: one type per kind of thing, so a ChunkId is never passed where an ArrayId goes.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <string>

namespace lightning {

/// An integer id tagged with the kind of thing it names. Default-constructed ids are invalid.
template <class Tag>
class StrongId {
 public:
  using value_type = uint64_t;
  static constexpr value_type kInvalid = std::numeric_limits<value_type>::max();

  constexpr StrongId() = default;
  constexpr explicit StrongId(value_type v) : v_(v) {}

  constexpr value_type value() const { return v_; }
  constexpr bool valid() const { return v_ != kInvalid; }

  friend constexpr bool operator==(StrongId a, StrongId b) { return a.v_ == b.v_; }
  friend constexpr bool operator!=(StrongId a, StrongId b) { return a.v_ != b.v_; }
  friend constexpr bool operator<(StrongId a, StrongId b) { return a.v_ < b.v_; }
  friend std::ostream& operator<<(std::ostream& os, StrongId id) {
    return os << Tag::kPrefix << id.v_;
  }
  /// "C12" for chunk 12: short, for logs, DOT graphs and error messages.
  std::string to_string() const { return Tag::kPrefix + std::to_string(v_); }

 private:
  value_type v_ = kInvalid;
};

// clang-format off
struct ArrayIdTag   { static constexpr const char* kPrefix = "A"; };
struct ChunkIdTag   { static constexpr const char* kPrefix = "C"; };
struct DeviceIdTag  { static constexpr const char* kPrefix = "D"; };
struct WorkerIdTag  { static constexpr const char* kPrefix = "W"; };
struct TaskIdTag    { static constexpr const char* kPrefix = "T"; };
struct KernelIdTag  { static constexpr const char* kPrefix = "K"; };
struct LaunchIdTag  { static constexpr const char* kPrefix = "L"; };
// clang-format on

/// A distributed array.
using ArrayId = StrongId<ArrayIdTag>;
/// One chunk (a box of an array with a home) of a data distribution.
using ChunkId = StrongId<ChunkIdTag>;
/// A device, numbered globally over all workers (0..n-1).
using DeviceId = StrongId<DeviceIdTag>;
/// A worker: one process (MPI rank); worker 0 is also the driver.
using WorkerId = StrongId<WorkerIdTag>;
/// A task of a plan.
using TaskId = StrongId<TaskIdTag>;
/// A registered kernel, identical in every process of one binary.
using KernelId = StrongId<KernelIdTag>;
/// One submitted request (launch, copy, fill, ...).
using LaunchId = StrongId<LaunchIdTag>;

}  // namespace lightning

template <class Tag>
struct std::hash<lightning::StrongId<Tag>> {
  size_t operator()(lightning::StrongId<Tag> id) const noexcept {
    return std::hash<uint64_t>{}(id.value());
  }
};
