#include "driver_case_runner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/config.hpp"
#include "driver/driver.hpp"
#include "interpreted_kernels.hpp"
#include "runtime_fixture.hpp"
#include "worker/memory_pool.hpp"

namespace lightning::runtime_test {

namespace {

using planner::testing::CaseScript;
using planner::testing::CaseStep;
using planner::testing::load_value;
using planner::testing::store_value;

size_t failure_parts() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? static_cast<size_t>(info->result()->total_part_count()) : 0;
}

uint64_t array_bytes(const planner::ArrayDesc& d) {
  return static_cast<uint64_t>(d.extent.product()) * size_of(d.type);
}

uint64_t pool_bytes(uint64_t bytes) {
  return worker::MemoryPool::rounded(bytes);
}

// Memory caps of one case.
struct Caps {
  std::optional<uint64_t> device;
  std::optional<uint64_t> host;
  std::optional<uint64_t> staging;  ///< Config::staging_limit, when not the default
  std::string describe() const {
    auto text = [](const std::optional<uint64_t>& v) {
      return v ? std::to_string(*v) + " B" : std::string("none");
    };
    return "device cap " + text(device) + ", host cap " + text(host) +
           (staging ? ", staging limit " + text(staging) : std::string());
  }
};

// The most memory one task of the case can need on one device, in pool units: an execute task
// binds one chunk (at most its whole array) per array parameter, even when two parameters
// name the same array, plus a partial of the reduced array for reduce(op), plus a partial and
// its fold target for a scalar result; a copy binds two chunks of one array.
uint64_t largest_task_need(const CaseScript& script) {
  std::unordered_map<ArrayId, uint64_t> bytes;
  uint64_t need = worker::MemoryPool::kAlignment;
  for (const CaseStep& s : script.steps) {
    if (s.kind == CaseStep::Kind::kCreate) {
      bytes[s.array] = array_bytes(s.desc);
      need = std::max(need, 2 * pool_bytes(bytes[s.array]));
    } else if (s.kind == CaseStep::Kind::kLaunch) {
      uint64_t sum = 0;
      const auto& arrays = s.request.arrays;
      for (size_t p = 0; p < arrays.size(); ++p) {
        if (!arrays[p].valid()) continue;
        sum += pool_bytes(bytes.at(arrays[p]));
        if (s.kernel->kind == planner::testing::KernelKind::kRowReduce && p == 1)
          sum += pool_bytes(bytes.at(arrays[p]));
      }
      if (s.kernel->has_scalar_result || s.kernel->scans)  // partial and fold target or prefix
        sum += 2 * worker::MemoryPool::kAlignment;
      need = std::max(need, sum);
    }
  }
  return need;
}

Caps choose_caps(CapMode mode, const CaseScript& script, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0xC0FFEE5EEDull);
  int kind = 0;  // 0 none, 1 device, 2 device + host
  switch (mode) {
    case CapMode::kNone:
      kind = 0;
      break;
    case CapMode::kTight:
      kind = 2;
      break;
    case CapMode::kMixed: {
      const int r = std::uniform_int_distribution<int>(0, 99)(rng);
      kind = r < 20 ? 0 : r < 55 ? 1 : 2;
      break;
    }
  }
  Caps caps;
  if (kind == 0) return caps;
  const uint64_t need = largest_task_need(script);
  static const double kFactors[] = {1.0, 1.0, 1.5, 2.5};
  const double f = kFactors[std::uniform_int_distribution<int>(0, 3)(rng)];
  caps.device = pool_bytes(static_cast<uint64_t>(static_cast<double>(need) * f));
  if (kind == 2) caps.host = caps.device;
  // Sometimes stage little ahead: the scheduler then starts tasks one by one.
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) caps.staging = need;
  return caps;
}

std::string failure_header(int index, uint64_t seed, const CaseScript& script, const Caps& caps,
                           int workers, int devices) {
  std::ostringstream os;
  os << "runtime replay of case " << index << " (LIGHTNING_PROPERTY_SEED=" << seed
     << " LIGHTNING_PROPERTY_CASES=1 replays it): " << workers << " worker(s) x " << devices
     << " host device(s), " << caps.describe() << ", " << script.steps.size() << " steps";
  return os.str();
}

std::string describe_step(const CaseStep& s) {
  std::ostringstream os;
  switch (s.kind) {
    case CaseStep::Kind::kCreate:
      os << "create " << s.array << " " << name_of(s.desc.type) << " " << s.desc.extent.to_string()
         << " " << s.desc.distribution.to_string();
      break;
    case CaseStep::Kind::kFill:
      os << "fill " << s.array << " " << s.region.to_string() << " = " << s.value;
      break;
    case CaseStep::Kind::kWrite:
      os << "write " << s.array << " " << s.region.to_string();
      break;
    case CaseStep::Kind::kRead:
      os << "read " << s.array << " " << s.region.to_string();
      break;
    case CaseStep::Kind::kLaunch:
      os << "launch " << s.kernel->name << " domain " << s.request.domain.to_string() << " block "
         << s.request.block_size.to_string() << " " << s.request.work.to_string();
      break;
    case CaseStep::Kind::kDelete:
      os << "delete " << s.array;
      break;
    case CaseStep::Kind::kFence:
      os << "fence";
      break;
  }
  return os.str();
}

}  // namespace

// Aborts the process, after printing the case, when a case makes no progress: a hung runtime
// (a lost completion, a deadlocked staging) would otherwise hang the whole test binary.
struct DriverCaseRunner::Watchdog {
  explicit Watchdog(int seconds) : limit(seconds), thread([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    wake.notify_all();
    thread.join();
  }
  void begin(std::string what) {
    std::lock_guard<std::mutex> lock(mutex);
    context = std::move(what);
    active = true;
    last = std::chrono::steady_clock::now();
  }
  void step(std::string what) {
    std::lock_guard<std::mutex> lock(mutex);
    current = std::move(what);
    last = std::chrono::steady_clock::now();
  }
  void end() {
    std::lock_guard<std::mutex> lock(mutex);
    active = false;
  }
  void watch() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stop) {
      wake.wait_for(lock, std::chrono::seconds(1));
      if (active && std::chrono::steady_clock::now() - last > std::chrono::seconds(limit)) {
        std::fprintf(stderr, "\nHANG: no progress for %d s at step '%s' of\n%s\n", limit,
                     current.c_str(), context.c_str());
        std::fflush(stderr);
        std::abort();
      }
    }
  }

  int limit;
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  bool active = false;
  std::string context, current;
  std::chrono::steady_clock::time_point last;
  std::thread thread;
};

DriverCaseRunner::DriverCaseRunner(DriverCaseOptions options)
    : options_([&] {
        options.limits.uniform_clusters = true;
        return options;
      }()),
      generator_(options_.limits),
      watchdog_(std::make_unique<Watchdog>(options_.hang_seconds)) {}

DriverCaseRunner::~DriverCaseRunner() = default;

bool DriverCaseRunner::run(uint64_t seed, int index) {
  const size_t failures_before = failure_parts();
  CaseScript script;
  generator_.run(seed, index, &script);
  if (!script.complete) return false;  // the generator reported why

  const int workers = static_cast<int>(script.devices.num_workers());
  const int devices = static_cast<int>(script.devices.device_count(WorkerId(0)));
  const Caps caps = choose_caps(options_.caps, script, seed);
  const std::string header = failure_header(index, seed, script, caps, workers, devices);
  watchdog_->begin(header + "\n" + script.description);
  ++stats_.cases;
  ++stats_.shapes[std::to_string(workers) + "x" + std::to_string(devices)];
  if (caps.device) ++stats_.capped_cases;
  if (caps.host) ++stats_.disk_capped_cases;

  // Register the case's kernels before its driver exists (the registry is not locked).
  std::unordered_map<const planner::testing::TestKernel*, KernelId> kernel_ids;
  for (const CaseStep& s : script.steps)
    if (s.kind == CaseStep::Kind::kLaunch) kernel_ids[s.kernel] = interpreted_kernel(*s.kernel);

  Config config;
  config.devices.kind = DeviceSelection::Kind::kHost;
  config.devices.host_count = devices;
  config.device_memory = caps.device;
  config.host_memory = caps.host;
  if (caps.staging) config.staging_limit = *caps.staging;

  std::unique_ptr<driver::Driver> driver;
  std::unordered_map<ArrayId, ArrayId> ids;  // the case's ids -> the driver's
  std::unordered_map<ArrayId, DataType> types;
  size_t at = 0;
  auto id_of = [&](ArrayId a) { return ids.at(a); };
  try {
    driver = make_driver(config, workers);
    if (driver->devices().describe() != script.devices.describe())
      ADD_FAILURE() << header << ": the driver's devices " << driver->devices().describe()
                    << " are not the case's " << script.devices.describe();
    for (at = 0; at < script.steps.size(); ++at) {
      const CaseStep& s = script.steps[at];
      watchdog_->step(std::to_string(at) + ": " + describe_step(s));
      ++stats_.steps;
      switch (s.kind) {
        case CaseStep::Kind::kCreate:
          ids[s.array] =
              driver->create_array(s.desc.name, s.desc.type, s.desc.extent, s.desc.distribution);
          types[s.array] = s.desc.type;
          break;
        case CaseStep::Kind::kFill: {
          const std::vector<uint8_t> v = planner::testing::value_bytes(types.at(s.array), s.value);
          driver->fill(id_of(s.array), s.region, v.data());
          break;
        }
        case CaseStep::Kind::kWrite: {
          const DataType t = types.at(s.array);
          const size_t es = size_of(t);
          std::vector<uint8_t> host(s.values.size() * es);
          for (size_t i = 0; i < s.values.size(); ++i)
            store_value(t, host.data() + i * es, s.values[i]);
          driver->write(id_of(s.array), s.region, host.data());
          break;
        }
        case CaseStep::Kind::kRead: {
          const DataType t = types.at(s.array);
          const size_t es = size_of(t);
          std::vector<uint8_t> host(s.values.size() * es, 0xAB);
          driver->read(id_of(s.array), s.region, host.data());
          size_t i = 0, bad = 0;
          std::ostringstream first;
          s.region.for_each_point([&](const Point& p) {
            const double got = load_value(t, host.data() + i * es);
            if (got != s.values[i] && bad++ < 4)
              first << " " << p.to_string() << ": got " << got << " expected " << s.values[i]
                    << ";";
            ++i;
          });
          ++stats_.reads_checked;
          stats_.elements_checked += s.values.size();
          if (bad)
            ADD_FAILURE() << header << ": step " << at << " (" << describe_step(s) << "): " << bad
                          << " wrong elements:" << first.str();
          break;
        }
        case CaseStep::Kind::kLaunch: {
          const planner::LaunchRequest& r = s.request;
          InterpretedFunctor f = interpreted_functor(*s.kernel, r.scalars);
          driver::Launch l;
          l.kernel = kernel_ids.at(s.kernel);
          l.functor = &f;
          for (ArrayId a : r.arrays) l.arrays.push_back(a.valid() ? id_of(a) : ArrayId());
          l.domain = r.domain;
          l.block_size = r.block_size;
          l.work = r.work;
          alignas(8) unsigned char result[8] = {0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB};
          // A scan returns its total when the planned request asked for one.
          const bool returns_value =
              s.kernel->has_scalar_result || (r.scan && r.scan->total.has_value());
          if (returns_value) l.result = result;
          ++stats_.launches;
          driver->launch(l);
          if (returns_value) {
            const double got = load_value(s.kernel->scalar_type, result);
            ++stats_.scalars_checked;
            if (!s.expected_scalar || got != *s.expected_scalar)
              ADD_FAILURE() << header << ": step " << at << " (" << describe_step(s)
                            << "): scalar result " << got << ", expected "
                            << (s.expected_scalar ? std::to_string(*s.expected_scalar) : "none");
          }
          break;
        }
        case CaseStep::Kind::kDelete:
          driver->delete_array(id_of(s.array));
          ids.erase(s.array);
          break;
        case CaseStep::Kind::kFence:
          driver->fence();
          break;
      }
    }
    watchdog_->step("final fence and leak check");
    driver->fence();
    EXPECT_EQ(driver->array_count(), 0u) << header;
    const auto reports = driver->memory_reports();
    for (size_t w = 0; w < reports.size(); ++w) {
      const auto& m = reports[w];
      if (m.device_bytes || m.host_bytes || m.spill_files || m.chunks)
        ADD_FAILURE() << header << ": worker " << w << " still holds " << m.device_bytes
                      << " device bytes, " << m.host_bytes << " host bytes, " << m.chunks
                      << " chunks, " << m.spill_files << " spill files after every array was "
                      << "deleted and a fence";
      const auto& c = m.counters;
      auto& s = stats_.memory;
      s.device_evictions += c.device_evictions;
      s.host_evictions += c.host_evictions;
      s.write_backs_to_host += c.write_backs_to_host;
      s.disk_writes += c.disk_writes;
      s.disk_reads += c.disk_reads;
      s.bytes_copied += c.bytes_copied;
      s.bytes_written_to_disk += c.bytes_written_to_disk;
      s.bytes_read_from_disk += c.bytes_read_from_disk;
      s.zero_fills += c.zero_fills;
      s.invalidations += c.invalidations;
    }
    watchdog_->step("driver shutdown");
    driver.reset();
  } catch (const std::exception& e) {
    ADD_FAILURE() << header << ": step " << at << " ("
                  << (at < script.steps.size() ? describe_step(script.steps[at]) : "end")
                  << ") threw: " << e.what();
    try {
      driver.reset();
    } catch (...) {
    }
  }
  watchdog_->end();
  const bool ok = failure_parts() == failures_before;
  if (!ok) ADD_FAILURE() << "the failing case (" << header << "):\n" << script.description;
  return ok;
}

std::string DriverCaseRunner::summary() const {
  const auto& s = stats_;
  const auto& p = generator_.stats();
  std::ostringstream os;
  os << s.cases << " cases replayed on the runtime (" << s.capped_cases << " with a device cap, "
     << s.disk_capped_cases << " with a host cap too), shapes (workers x devices):";
  for (const auto& [shape, n] : s.shapes) os << " " << shape << "=" << n;
  os << "\n  " << s.steps << " steps, " << s.launches << " launches, " << s.reads_checked
     << " reads (" << s.elements_checked << " elements), " << s.scalars_checked
     << " scalar results checked; planner side: " << p.plans << " plans, " << p.tasks << " tasks"
     << "\n  memory: " << s.memory.device_evictions << " device evictions, "
     << s.memory.write_backs_to_host << " write-backs to host, " << s.memory.host_evictions
     << " host evictions, " << s.memory.disk_writes << " spill files written, "
     << s.memory.disk_reads << " read back, " << s.memory.zero_fills << " zero fills, "
     << s.memory.invalidations << " invalidations";
  return os.str();
}

}  // namespace lightning::runtime_test
