#include "worker/trace_writer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

using nlohmann::json;
using Clock = TraceWriter::Clock;
using std::chrono::microseconds;

std::string temp_path(const std::string& name) {
  return (std::string(::testing::TempDir()) + "lk_trace_" + std::to_string(::getpid()) + "_" +
          name);
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in);
}

TEST(TraceWriter, ManyThreadsWriteAParsableOrderedTrace) {
  const Clock::time_point epoch = Clock::now();
  TraceWriter trace(2, "worker 2", epoch);
  const int compute = trace.track("D0 compute");
  const int copy = trace.track("D0 copy");
  const int disk = trace.track("disk");
  EXPECT_EQ(trace.track("D0 copy"), copy);  // idempotent
  EXPECT_NE(compute, copy);

  constexpr int kThreads = 4, kPerThread = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const int track = t == 0 ? compute : t == 1 ? copy : disk;
      for (int i = 0; i < kPerThread; ++i) {
        // Distinct start times, not in recording order across threads.
        const auto start = epoch + microseconds((kPerThread - i) * 10 * kThreads + t);
        trace.record(track, "task " + std::to_string(t) + "/" + std::to_string(i), start,
                     start + microseconds(3),
                     {{"bytes", uint64_t{1} << 40},
                      {"superblock", std::string_view("[0, 64)")},
                      {"thread", t},
                      {"ratio", 0.5}});
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(trace.size(), static_cast<size_t>(kThreads * kPerThread));

  const std::string path = temp_path("many.json");
  trace.flush(path);
  const json doc = read_json(path);
  std::remove(path.c_str());
  ASSERT_TRUE(doc.contains("traceEvents"));
  const json& events = doc["traceEvents"];

  std::map<int, std::string> thread_names;
  std::string process_name;
  int complete = 0;
  double last_ts = -1;
  std::set<std::string> names;
  for (const json& e : events) {
    ASSERT_EQ(e["pid"], 2);
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name") thread_names[e["tid"].get<int>()] = e["args"]["name"];
      if (e["name"] == "process_name") process_name = e["args"]["name"];
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    ++complete;
    const double ts = e["ts"].get<double>();
    EXPECT_GE(ts, last_ts) << "events must be in start order";
    last_ts = ts;
    EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 3.0);
    const int t = e["args"]["thread"].get<int>();
    EXPECT_EQ(e["tid"].get<int>(), t == 0 ? compute : t == 1 ? copy : disk);
    EXPECT_EQ(e["args"]["bytes"].get<uint64_t>(), uint64_t{1} << 40);
    EXPECT_EQ(e["args"]["superblock"], "[0, 64)");
    EXPECT_DOUBLE_EQ(e["args"]["ratio"].get<double>(), 0.5);
    // ts is microseconds since the epoch: the value the thread recorded.
    const int i =
        std::stoi(e["name"].get<std::string>().substr(e["name"].get<std::string>().find('/') + 1));
    EXPECT_DOUBLE_EQ(ts, (kPerThread - i) * 10 * kThreads + t);
    names.insert(e["name"]);
  }
  EXPECT_EQ(complete, kThreads * kPerThread);
  EXPECT_EQ(names.size(), static_cast<size_t>(kThreads * kPerThread));
  EXPECT_EQ(process_name, "worker 2");
  EXPECT_EQ(thread_names, (std::map<int, std::string>{
                              {compute, "D0 compute"}, {copy, "D0 copy"}, {disk, "disk"}}));
}

TEST(TraceWriter, NestedSlicesFollowTheirParentAndTimesAreSubMicrosecond) {
  const Clock::time_point epoch = Clock::now();
  TraceWriter trace(0, "", epoch);
  const int t = trace.track("network");
  trace.record(t, "inner", epoch + std::chrono::nanoseconds(1500),
               epoch + std::chrono::nanoseconds(2000));
  trace.record(t, "outer", epoch + std::chrono::nanoseconds(1500),
               epoch + std::chrono::nanoseconds(9000));
  trace.record(t, "backwards", epoch + microseconds(20), epoch + microseconds(10));
  const json doc = json::parse(trace.to_string());
  std::vector<json> slices;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "X") slices.push_back(e);
  ASSERT_EQ(slices.size(), 3u);
  EXPECT_EQ(slices[0]["name"], "outer");
  EXPECT_EQ(slices[1]["name"], "inner");
  EXPECT_DOUBLE_EQ(slices[1]["ts"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(slices[1]["dur"].get<double>(), 0.5);
  EXPECT_EQ(slices[2]["dur"], 0);
  EXPECT_FALSE(slices[0].contains("args"));
  // The default process name.
  for (const json& e : doc["traceEvents"]) {
    if (e["name"] == "process_name") {
      EXPECT_EQ(e["args"]["name"], "worker 0");
    }
  }
}

TEST(TraceWriter, BadNamesDoNotLoseTheTrace) {
  TraceWriter trace(1);
  const auto now = Clock::now();
  trace.record(trace.track("D1 compute"), std::string("bad \xff utf-8 \"quoted\"\n"), now, now);
  const json doc = json::parse(trace.to_string());
  bool found = false;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "X") found = e["name"].get<std::string>().find("quoted") != std::string::npos;
  EXPECT_TRUE(found);
}

TEST(TraceWriter, FlushReplacesTheFileAndReportsFailures) {
  TraceWriter trace(0);
  const std::string path = temp_path("replace.json");
  trace.flush(path);
  const auto now = Clock::now();
  trace.record(trace.track("disk"), "spill", now, now + microseconds(5));
  trace.flush(path);
  int slices = 0;
  const json doc = read_json(path);
  for (const json& e : doc["traceEvents"]) slices += e["ph"] == "X" ? 1 : 0;
  EXPECT_EQ(slices, 1);
  std::remove(path.c_str());

  try {
    trace.flush("/nonexistent-dir/for/sure/trace.json");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConfig);
    EXPECT_NE(e.message().find("/nonexistent-dir/for/sure/trace.json"), std::string::npos);
  }
}

/// Cost of record() (with the three arguments a task slice carries), for docs/runtime.md.
double ns_per_record(int shards, int threads, int per_thread, bool with_args) {
  const auto epoch = Clock::now();
  TraceWriter trace(0, "", epoch, shards);
  const int track = trace.track("D0 compute");
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i) {
        const auto s = Clock::now();
        trace.record(
            track, "stencil", s, s + microseconds(1),
            {{"bytes", uint64_t{4096}}, {"superblock", "[0, 64000)"}, {"kernel", "stencil"}});
      }
    });
  for (auto& th : pool) th.join();
  const auto t1 = Clock::now();
  EXPECT_EQ(trace.size(), static_cast<size_t>(threads * per_thread));
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / (threads * per_thread);
}

TEST(TraceWriter, RecordIsCheap) {
  // Best of three runs each: the machine may be shared.
  auto best = [](int shards, int threads, bool with_args) {
    double b = 1e30;
    for (int run = 0; run < 3; ++run)
      b = std::min(b, ns_per_record(shards, threads, 50000, with_args));
    return b;
  };
  for (bool with_args : {false, true})
    for (int threads : {1, 4})
      std::printf("record() %s, %d thread(s): %.0f ns/event with one mutex, %.0f sharded (16)\n",
                  with_args ? "with 3 args" : "no args", threads, best(1, threads, with_args),
                  best(16, threads, with_args));
}

}  // namespace
}  // namespace lightning::worker
