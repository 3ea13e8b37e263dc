#include "worker/trace_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

using nlohmann::json;

/// Microseconds with nanosecond resolution, as Chrome's JSON format takes them.
double micros(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

std::string dump(const json& j) {
  // Invalid UTF-8 in a name must not lose the whole trace.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json args_json(const std::vector<TraceArg>& args) {
  json out = json::object();
  for (const TraceArg& a : args) std::visit([&](const auto& v) { out[a.key] = v; }, a.value);
  return out;
}

}  // namespace

TraceWriter::TraceWriter(int pid, std::string process_name, Clock::time_point epoch, int shards)
    : pid_(pid), process_name_(std::move(process_name)), epoch_(epoch) {
  if (process_name_.empty()) process_name_ = "worker " + std::to_string(pid);
  const int n = std::max(1, shards);
  shards_.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) shards_.push_back(std::make_unique<Shard>());
}

TraceWriter::~TraceWriter() = default;

int TraceWriter::track(std::string_view name) {
  std::lock_guard<std::mutex> lock(tracks_mutex_);
  auto [it, inserted] =
      track_ids_.try_emplace(std::string(name), static_cast<int>(track_names_.size()) + 1);
  if (inserted) track_names_.emplace_back(name);
  return it->second;
}

void TraceWriter::record(int track, std::string name, Clock::time_point start,
                         Clock::time_point end, std::vector<TraceArg> args) {
  const int64_t start_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(start - epoch_).count();
  const int64_t dur_ns = std::max<int64_t>(
      0, std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
  Shard& shard =
      *shards_[std::hash<std::thread::id>{}(std::this_thread::get_id()) % shards_.size()];
  std::lock_guard<std::mutex> lock(shard.mutex);
  shard.events.push_back(Event{track, start_ns, dur_ns, std::move(name), std::move(args)});
}

size_t TraceWriter::size() const {
  size_t n = 0;
  for (const auto& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard->mutex);
    n += shard->events.size();
  }
  return n;
}

std::string TraceWriter::to_string() const {
  // Snapshot under the locks, format outside them: recording threads wait only for copies.
  std::vector<Event> events;
  for (const auto& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard->mutex);
    events.insert(events.end(), shard->events.begin(), shard->events.end());
  }
  std::vector<std::string> tracks;
  {
    std::lock_guard<std::mutex> lock(tracks_mutex_);
    tracks = track_names_;
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.dur_ns != b.dur_ns) return a.dur_ns > b.dur_ns;
    return a.track < b.track;
  });

  // One event per line: the file stays readable and diffable.
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto line = [&](const json& j) {
    if (!first) out += ",\n";
    first = false;
    out += dump(j);
  };
  line({{"name", "process_name"}, {"ph", "M"}, {"pid", pid_}, {"args", {{"name", process_name_}}}});
  line({{"name", "process_sort_index"},
        {"ph", "M"},
        {"pid", pid_},
        {"args", {{"sort_index", pid_}}}});
  for (size_t i = 0; i < tracks.size(); ++i) {
    const int tid = static_cast<int>(i) + 1;
    line({{"name", "thread_name"},
          {"ph", "M"},
          {"pid", pid_},
          {"tid", tid},
          {"args", {{"name", tracks[i]}}}});
    line({{"name", "thread_sort_index"},
          {"ph", "M"},
          {"pid", pid_},
          {"tid", tid},
          {"args", {{"sort_index", tid}}}});
  }
  for (const Event& e : events) {
    json j = {{"name", e.name},          {"ph", "X"},   {"ts", micros(e.start_ns)},
              {"dur", micros(e.dur_ns)}, {"pid", pid_}, {"tid", e.track}};
    if (!e.args.empty()) j["args"] = args_json(e.args);
    line(j);
  }
  out += "\n]}\n";
  return out;
}

void TraceWriter::flush(const std::string& path) const {
  const std::string text = to_string();
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what, int err) {
    throw Error(ErrorKind::kConfig,
                "trace file '" + path + "': " + what + ": " + std::strerror(err));
  };
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) fail("cannot create '" + tmp + "'", errno);
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0 || !written) {
    const int err = written ? errno : write_errno;
    std::remove(tmp.c_str());
    fail("cannot write '" + tmp + "'", err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    fail("cannot rename '" + tmp + "' to it", err);
  }
}

}  // namespace lightning::worker
