// A timeline of what a worker did, as a Chrome/Perfetto trace (JSON "traceEvents").
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace lightning::worker {

/// One argument of a trace event: a key and an integer, floating-point or text value.
struct TraceArg {
  using Value = std::variant<int64_t, uint64_t, double, std::string>;

  template <class T, std::enable_if_t<std::is_integral_v<T> && std::is_signed_v<T>, int> = 0>
  TraceArg(std::string k, T v) : key(std::move(k)), value(static_cast<int64_t>(v)) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && std::is_unsigned_v<T> &&
                                          !std::is_same_v<T, bool>,
                                      int> = 0>
  TraceArg(std::string k, T v) : key(std::move(k)), value(static_cast<uint64_t>(v)) {}
  TraceArg(std::string k, bool v) : key(std::move(k)), value(int64_t{v}) {}
  TraceArg(std::string k, double v) : key(std::move(k)), value(v) {}
  TraceArg(std::string k, std::string v) : key(std::move(k)), value(std::move(v)) {}
  TraceArg(std::string k, const char* v) : key(std::move(k)), value(std::string(v)) {}
  TraceArg(std::string k, std::string_view v) : key(std::move(k)), value(std::string(v)) {}

  std::string key;
  Value value;
};

/// Collects complete events ("ph": "X") on named tracks of one process and writes them as a
/// Chrome trace file, which Perfetto (ui.perfetto.dev) and chrome://tracing open.
///
///  - pid is the worker's number, shown as the process "<process_name>";
///  - each track is a tid, named by a metadata event ("D0 compute", "D0 copy", "disk",
///    "network") and sorted in the order tracks were registered;
///  - ts and dur are microseconds (fractional: nanosecond resolution) since `epoch`: workers
///    given the same epoch line up.
///
/// record() is thread-safe and cheap: events go to one of `shards` mutex-protected vectors,
/// chosen by the calling thread's id, so threads rarely contend (see docs/runtime.md for the
/// measured cost). Everything stays in memory until flush().
class TraceWriter {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TraceWriter(int pid, std::string process_name = {},
                       Clock::time_point epoch = Clock::now(), int shards = 16);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  /// The id of the track called `name`, registering it on first use. Thread-safe.
  int track(std::string_view name);

  /// Records that `name` ran on `track` from `start` to `end` (an end before the start is
  /// recorded with duration 0). Thread-safe. `track` should come from track(); another
  /// number makes an unnamed track.
  void record(int track, std::string name, Clock::time_point start, Clock::time_point end,
              std::vector<TraceArg> args = {});

  /// Number of events recorded so far.
  size_t size() const;

  /// Writes every event recorded so far (and the track names) to `path`, replacing it
  /// atomically (a temporary file renamed). Events are ordered by start time, longer first on
  /// a tie, so nested slices come after their parents. Recording may go on meanwhile; the
  /// events stay, so a later flush writes a superset. Error(kConfig) naming the path when the
  /// file cannot be written.
  void flush(const std::string& path) const;

  /// The trace as flush() writes it.
  std::string to_string() const;

  int pid() const { return pid_; }

 private:
  struct Event {
    int track;
    int64_t start_ns;
    int64_t dur_ns;
    std::string name;
    std::vector<TraceArg> args;
  };
  struct Shard {
    std::mutex mutex;
    std::vector<Event> events;
  };

  int pid_;
  std::string process_name_;
  Clock::time_point epoch_;
  std::vector<std::unique_ptr<Shard>> shards_;
  mutable std::mutex tracks_mutex_;
  std::unordered_map<std::string, int> track_ids_;
  std::vector<std::string> track_names_;  // track id - 1 -> name
};

}  // namespace lightning::worker
