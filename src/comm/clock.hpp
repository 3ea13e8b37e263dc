// Where the transport reads the time: an interface, so that deadlines and peer timeouts can be
// tested with a clock the test moves instead of waiting for real time to pass.
#pragma once

#include <chrono>

namespace lightning::comm {

/// A monotonic clock.
class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual time_point now() const = 0;
};

/// The real time: std::chrono::steady_clock (never jumps, unlike the system clock).
class SteadyClock final : public Clock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace lightning::comm
