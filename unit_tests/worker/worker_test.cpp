// The worker alone, with a recording device platform and the in-process transport: what it
// asks of its devices for each task, what it reports, and how two workers exchange a region.
#include "worker/worker.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "backend/host/host_memory_backend.hpp"
#include "backend/host/host_platform.hpp"
#include "comm/loopback_transport.hpp"
#include "kernel/native_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "worker/region_ops.hpp"

namespace lightning::worker {
namespace {

using planner::Task;

// What the devices were asked to do, in order, across every device of the test.
struct Log {
  std::mutex mutex;
  std::vector<std::string> entries;
  void add(std::string e) {
    std::lock_guard<std::mutex> lock(mutex);
    entries.push_back(std::move(e));
  }
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::string> out;
    out.swap(entries);
    return out;
  }
};

// A device that records each operation and runs it at once, on the caller's thread (the
// worker's scheduler or staging thread): the Device contract allows `done` on any thread.
class RecordingDevice final : public Device {
 public:
  RecordingDevice(DeviceId id, Log& log) : id_(id), log_(log) {}
  DeviceId id() const override { return id_; }
  std::string description() const override { return "recording device"; }
  void launch(KernelRun run, Done done) override {
    log_.add(id_.to_string() + " launch " + run.name + " " + run.superblock.to_string());
    std::exception_ptr error;
    try {
      run.info->run_host(run.functor.data(), run.superblock, run.partial);
    } catch (...) {
      error = kernel_failure();
    }
    done(error, {});
  }
  void copy(PlacedBuffer dst, PlacedBuffer src, Rect region, Done done) override {
    log_.add(id_.to_string() + " copy " + region.to_string());
    copy_region(dst.view(), src.view(), region);
    done(nullptr, {});
  }
  void run_on_host(std::vector<HostAccess> accesses, HostJob job, Done done) override {
    log_.add(id_.to_string() + " host job on " + std::to_string(accesses.size()) + " buffer(s)");
    std::vector<BoxBuffer> views;
    for (const HostAccess& a : accesses) views.push_back(a.buffer.view());
    std::exception_ptr error;
    try {
      job(views);
    } catch (...) {
      error = std::current_exception();
    }
    done(error, {});
  }

 private:
  DeviceId id_;
  Log& log_;
};

class RecordingPlatform final : public DevicePlatform {
 public:
  explicit RecordingPlatform(Log& log) : log_(log) {}
  MemoryBackend& memory() override { return memory_; }
  std::unique_ptr<Device> open(DeviceId id, size_t) override {
    return std::make_unique<RecordingDevice>(id, log_);
  }
  bool host_addresses_device_memory() const override { return true; }

 private:
  Log& log_;
  host::HostMemoryBackend memory_;
};

// Doubles every element; throws at element 13.
struct Double {
  ArrayHandle<double, 1> a;
  void operator()(int64_t i) const {
    if (i == 13) throw std::runtime_error("thirteen");
    a(i) = 2 * a(i);
  }
};

const KernelId kDouble = kernel::KernelRegistry::add(kernel::native_kernel<Double, 1>(
    "worker_test::Double", "global i => readwrite a[i]",
    annotation::KernelSignature().add_array("a", DataType::kFloat64, 1),
    {{0, offsetof(Double, a), 1}}));

// Sets every element to 7, and declares so.
struct Sevens {
  ArrayHandle<double, 1> a;
  void operator()(int64_t i) const { a(i) = 7; }
};

const KernelId kSevens = kernel::KernelRegistry::add(kernel::native_kernel<Sevens, 1>(
    "worker_test::Sevens", "global i => overwrite a[i]",
    annotation::KernelSignature().add_array("a", DataType::kFloat64, 1),
    {{0, offsetof(Sevens, a), 1}}));

// Completions as the worker reports them.
struct Completions {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<TaskId, std::optional<planner::TaskFailure>> failures;
  Worker::CompletionHandler handler() {
    return [this](WorkerId, TaskId t, const std::optional<planner::TaskFailure>& f) {
      std::lock_guard<std::mutex> lock(mutex);
      failures[t] = f;
      changed.notify_all();
    };
  }
  // Waits (at most 10 s) until `n` tasks completed.
  bool wait(size_t n) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(10), [&] { return failures.size() >= n; });
  }
};

Task task(uint64_t id, WorkerId worker, planner::TaskKind kind, std::vector<uint64_t> deps) {
  Task t{TaskId(id), worker, std::move(kind), {}, {}};
  for (uint64_t d : deps) t.deps.push_back(TaskId(d));
  t.accesses = planner::accesses_of(t.kind);
  return t;
}

planner::CreateChunkTask create(uint64_t chunk, const Rect& box, DeviceId device) {
  return {ChunkId(chunk),     ArrayId(1), box, device, false, uint64_t(box.volume()) * 8,
          DataType::kFloat64, 8};
}

std::vector<uint8_t> bytes_of(double v) {
  std::vector<uint8_t> b(8);
  std::memcpy(b.data(), &v, 8);
  return b;
}

WorkerOptions options_for(WorkerId id, DeviceId device, Log& log) {
  WorkerOptions o;
  o.id = id;
  o.devices = {device};
  o.memory.devices = {{device, 1 << 20}};
  o.platform = std::make_shared<RecordingPlatform>(log);
  return o;
}

// The fragment of a launch over [0, 8) of one chunk, then a host read.
std::vector<Task> double_and_read(const Rect& box, uint64_t first) {
  const WorkerId w(0);
  planner::ExecuteTask exec{LaunchId(1), kDouble, box, DeviceId(0), {}, ChunkId()};
  exec.bindings.push_back({0, ChunkId(1), box, planner::ChunkAccessMode::kReadWrite});
  return {task(first, w, create(1, box, DeviceId(0)), {}),
          task(first + 1, w, planner::FillTask{ChunkId(1), box, bytes_of(1.5)}, {first}),
          task(first + 2, w, exec, {first + 1}),
          task(first + 3, w, planner::HostReadTask{ChunkId(1), {7}, box, box, false, {}, {}},
               {first + 2}),
          task(first + 4, w, planner::DeleteChunkTask{ChunkId(1), box}, {first + 3})};
}

std::shared_ptr<FragmentContext> context_for(const Rect& box, std::vector<double>& host) {
  auto context = std::make_shared<FragmentContext>();
  auto launch = std::make_shared<LaunchData>();
  launch->kernel = kDouble;
  launch->name = "double";
  launch->functor.resize(sizeof(Double));
  launch->extents = {Point{box.hi()[0]}};
  launch->arrays = kernel::KernelRegistry::get(kDouble).description.arrays;
  context->add_launch(LaunchId(1), launch);
  context->add_host_buffer(7, {host.data(), box, 8});
  return context;
}

TEST(Worker, RunsAFragmentOnItsDevicesInDependencyOrder) {
  Log log;
  Completions done;
  comm::LoopbackTransport transport;
  Worker worker(options_for(WorkerId(0), DeviceId(0), log), transport, done.handler());
  const Rect box(Point{0}, Point{8});
  std::vector<double> host(8, -1);
  worker.submit(double_and_read(box, 1), context_for(box, host));
  ASSERT_TRUE(done.wait(5));
  for (const auto& [id, failure] : done.failures) EXPECT_FALSE(failure) << id;
  EXPECT_EQ(host, std::vector<double>(8, 3.0));
  // The fill and the host read are host jobs on the chunk's device; the kernel runs once
  // over its superblock.
  EXPECT_EQ(log.take(), (std::vector<std::string>{"D0 host job on 1 buffer(s)",
                                                  "D0 launch double [0, 8)", "D0 copy [0, 8)"}));
  EXPECT_EQ(worker.memory_report().chunks, 0u);
}

// A kernel overwriting the middle of a chunk whose valid copy is on another device gets a copy
// filled around what it overwrites: the bytes before and after come over, its own do not.
TEST(Worker, AKernelThatOverwritesPartOfAChunkHasOnlyTheRestFilled) {
  Log log;
  Completions done;
  comm::LoopbackTransport transport;
  WorkerOptions options = options_for(WorkerId(0), DeviceId(0), log);
  options.devices = {DeviceId(0), DeviceId(1)};
  options.memory.devices = {{DeviceId(0), 1 << 20}, {DeviceId(1), 1 << 20}};
  Worker worker(options, transport, done.handler());
  const Rect box(Point{0}, Point{8}), middle(Point{2}, Point{6});
  const WorkerId w(0);
  std::vector<double> host(8, -1);
  auto context = std::make_shared<FragmentContext>();
  auto launch = std::make_shared<LaunchData>();
  launch->kernel = kSevens;
  launch->name = "sevens";
  launch->functor.resize(sizeof(Sevens));
  launch->extents = {Point{8}};
  launch->arrays = kernel::KernelRegistry::get(kSevens).description.arrays;
  context->add_launch(LaunchId(1), launch);
  context->add_host_buffer(7, {host.data(), box, 8});
  planner::ExecuteTask exec{LaunchId(1), kSevens, middle, DeviceId(1), {}, ChunkId()};
  exec.bindings.push_back({0, ChunkId(1), middle, planner::ChunkAccessMode::kOverwrite});
  worker.submit(
      {task(1, w, create(1, box, DeviceId(0)), {}),
       task(2, w, planner::FillTask{ChunkId(1), box, bytes_of(1.5)}, {1}), task(3, w, exec, {2}),
       task(4, w, planner::HostReadTask{ChunkId(1), {7}, box, box, false, {}, {}}, {3}),
       task(5, w, planner::DeleteChunkTask{ChunkId(1), box}, {4})},
      context);
  ASSERT_TRUE(done.wait(5));
  for (const auto& [id, failure] : done.failures) EXPECT_FALSE(failure) << id;
  EXPECT_EQ(host, (std::vector<double>{1.5, 1.5, 7, 7, 7, 7, 1.5, 1.5}));
  const MemoryCounters counters = worker.memory_report().counters;
  EXPECT_EQ(counters.partial_fills, 1u);
  // Two elements on each side to D1, then the whole chunk back to D0 for the read.
  EXPECT_EQ(counters.bytes_copied, 4u * 8 + 8u * 8);
}

// A handler that gathers completions and sends them at the end of each burst (as a worker
// rank does) sends every one, in the order they finished.
TEST(Worker, EveryCompletionIsFollowedByTheEndOfItsBurst) {
  Log log;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<TaskId> pending;            // touched on the scheduler thread only
  std::vector<std::vector<TaskId>> sent;  // under `mutex`
  comm::LoopbackTransport transport;
  Worker worker(
      options_for(WorkerId(0), DeviceId(0), log), transport,
      [&](WorkerId, TaskId t, const std::optional<planner::TaskFailure>&) { pending.push_back(t); },
      [&] {
        if (pending.empty()) return;
        std::lock_guard<std::mutex> lock(mutex);
        sent.push_back(std::move(pending));
        pending.clear();
        changed.notify_all();
      });
  const Rect box(Point{0}, Point{8});
  std::vector<double> host(8, -1);
  worker.submit(double_and_read(box, 1), context_for(box, host));
  std::vector<TaskId> all;
  {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(10), [&] {
      size_t n = 0;
      for (const auto& burst : sent) n += burst.size();
      return n >= 5;
    })) << "completions left unsent after their burst";
    for (const auto& burst : sent) all.insert(all.end(), burst.begin(), burst.end());
  }
  // The fragment is a chain: it finishes in order.
  EXPECT_EQ(all, (std::vector<TaskId>{TaskId(1), TaskId(2), TaskId(3), TaskId(4), TaskId(5)}));
  EXPECT_EQ(host, std::vector<double>(8, 3.0));
}

TEST(Worker, AFailedKernelSkipsItsDependentsButFreesItsMemory) {
  Log log;
  Completions done;
  comm::LoopbackTransport transport;
  Worker worker(options_for(WorkerId(0), DeviceId(0), log), transport, done.handler());
  const Rect box(Point{0}, Point{16});  // element 13 throws
  std::vector<double> host(16, -1);
  worker.submit(double_and_read(box, 1), context_for(box, host));
  ASSERT_TRUE(done.wait(5));
  EXPECT_FALSE(done.failures.at(TaskId(2)));
  // The kernel's failure names what ran where, with the kernel's own error.
  const auto& failed = done.failures.at(TaskId(3));
  ASSERT_TRUE(failed);
  EXPECT_FALSE(failed->skipped());
  EXPECT_EQ(failed->error, ErrorKind::kTask);
  EXPECT_EQ(failed->what, "thirteen");
  EXPECT_EQ(failed->worker, WorkerId(0));
  ASSERT_TRUE(failed->kernel);
  EXPECT_EQ(failed->kernel->name, "worker_test::Double");
  EXPECT_EQ(failed->kernel->label, "double");
  EXPECT_EQ(failed->kernel->superblock, box);
  EXPECT_EQ(failed->kernel->device, DeviceId(0));
  // The read is skipped because of it; the delete runs anyway.
  ASSERT_TRUE(done.failures.at(TaskId(4)));
  EXPECT_EQ(done.failures.at(TaskId(4))->caused_by, TaskId(3));
  EXPECT_FALSE(done.failures.at(TaskId(5)));
  EXPECT_EQ(host, std::vector<double>(16, -1));
  EXPECT_EQ(worker.memory_report().chunks, 0u);
}

// Fails slowly: long enough for the launches behind it to be queued on its device first.
struct SlowFailure {
  ArrayHandle<double, 1> a;
  void operator()(int64_t i) const {
    if (i != 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    throw std::runtime_error("slow failure");
  }
};
// Counts its runs (at its first index).
std::atomic<int> counted_runs{0};
struct CountRuns {
  ArrayHandle<double, 1> a;
  void operator()(int64_t i) const {
    if (i == 0) ++counted_runs;
    a(i) += 1;
  }
};

const KernelId kSlowFailure = kernel::KernelRegistry::add(kernel::native_kernel<SlowFailure, 1>(
    "worker_test::SlowFailure", "global i => readwrite a[i]",
    annotation::KernelSignature().add_array("a", DataType::kFloat64, 1),
    {{0, offsetof(SlowFailure, a), 1}}));
const KernelId kCountRuns = kernel::KernelRegistry::add(kernel::native_kernel<CountRuns, 1>(
    "worker_test::CountRuns", "global i => readwrite a[i]",
    annotation::KernelSignature().add_array("a", DataType::kFloat64, 1),
    {{0, offsetof(CountRuns, a), 1}}));

// One worker on one emulated host device (one compute thread: it runs launches in order).
WorkerOptions on_one_host_device() {
  WorkerOptions o;
  o.id = WorkerId(0);
  o.devices = {DeviceId(0)};
  o.memory.devices = {{DeviceId(0), 1 << 20}};
  o.platform = std::make_shared<host::HostPlatform>();
  return o;
}

// The data of a launch of `kernel` (CountRuns-sized functor) over 8 elements.
std::shared_ptr<LaunchData> launch_of(KernelId kernel, const char* name) {
  auto data = std::make_shared<LaunchData>();
  data->kernel = kernel;
  data->name = name;
  data->functor.resize(sizeof(CountRuns));
  data->extents = {Point{8}};
  data->arrays = kernel::KernelRegistry::get(kernel).description.arrays;
  return data;
}

// On an emulated host device (one compute thread: launches in order), launches that wait for
// a launch of the same device are issued behind it; when it fails they do not run, and are
// reported skipped because of it. The launches after those run as usual.
TEST(Worker, LaunchesIssuedBehindAFailedLaunchDoNotRun) {
  Completions done;
  comm::LoopbackTransport transport;
  Worker worker(on_one_host_device(), transport, done.handler());
  const Rect box(Point{0}, Point{8});
  const WorkerId w(0);
  auto launch = [&](uint64_t id, KernelId kernel, std::vector<uint64_t> deps) {
    planner::ExecuteTask exec{LaunchId(id), kernel, box, DeviceId(0), {}, ChunkId()};
    exec.bindings.push_back({0, ChunkId(1), box, planner::ChunkAccessMode::kReadWrite});
    return task(id, w, exec, std::move(deps));
  };
  auto context = std::make_shared<FragmentContext>();
  for (auto [id, kernel, name] : {std::tuple{3, kSlowFailure, "fails"},
                                  {4, kCountRuns, "count"},
                                  {5, kCountRuns, "count"},
                                  {7, kCountRuns, "count"}})
    context->add_launch(LaunchId(static_cast<uint64_t>(id)), launch_of(kernel, name));
  std::vector<double> host(8, -1);
  context->add_host_buffer(7, {host.data(), box, 8});
  counted_runs = 0;
  worker.submit(
      {task(1, w, create(1, box, DeviceId(0)), {}),
       task(2, w, planner::FillTask{ChunkId(1), box, bytes_of(1.5)}, {1}),
       launch(3, kSlowFailure, {2}), launch(4, kCountRuns, {3}), launch(5, kCountRuns, {4}),
       task(6, w, planner::HostReadTask{ChunkId(1), {7}, box, box, false, {}, {}}, {5})},
      context);
  ASSERT_TRUE(done.wait(6));
  ASSERT_TRUE(done.failures.at(TaskId(3)));
  EXPECT_EQ(done.failures.at(TaskId(3))->what, "slow failure");
  for (uint64_t t : {4, 5, 6}) {
    ASSERT_TRUE(done.failures.at(TaskId(t))) << t;
    EXPECT_EQ(done.failures.at(TaskId(t))->caused_by, TaskId(3)) << t;
  }
  EXPECT_EQ(counted_runs, 0);
  // The read, issued behind the chain, did not write the program's buffer.
  EXPECT_EQ(host, std::vector<double>(8, -1));
  // The device goes on: a launch after the failed chain runs.
  worker.submit({launch(7, kCountRuns, {5}),
                 task(8, w, planner::HostReadTask{ChunkId(1), {7}, box, box, false, {}, {}}, {7}),
                 task(9, w, planner::DeleteChunkTask{ChunkId(1), box}, {8})},
                context);
  ASSERT_TRUE(done.wait(9));
  EXPECT_TRUE(done.failures.at(TaskId(7)));  // its dependency failed: skipped as well
  EXPECT_EQ(counted_runs, 0);
  EXPECT_FALSE(done.failures.at(TaskId(9)));
}

// A chain of launches of one kernel on an in-order device: each is issued behind the one before
// and shares its staging (the memory manager stages the first only), and they run in order.
TEST(Worker, AChainOfLaunchesOnTheSameChunksSharesOneStaging) {
  Completions done;
  comm::LoopbackTransport transport;
  Worker worker(on_one_host_device(), transport, done.handler());
  const Rect box(Point{0}, Point{8});
  const WorkerId w(0);
  auto context = std::make_shared<FragmentContext>();
  context->add_launch(LaunchId(1), launch_of(kCountRuns, "count"));
  std::vector<double> host(8, -1);
  context->add_host_buffer(7, {host.data(), box, 8});
  constexpr uint64_t kLaunches = 20;
  std::vector<Task> tasks = {task(1, w, create(1, box, DeviceId(0)), {}),
                             task(2, w, planner::FillTask{ChunkId(1), box, bytes_of(1.5)}, {1})};
  for (uint64_t i = 0; i < kLaunches; ++i) {
    planner::ExecuteTask exec{LaunchId(1), kCountRuns, box, DeviceId(0), {}, ChunkId()};
    exec.bindings.push_back({0, ChunkId(1), box, planner::ChunkAccessMode::kReadWrite});
    tasks.push_back(task(3 + i, w, exec, {2 + i}));
  }
  const uint64_t read = 3 + kLaunches;
  tasks.push_back(
      task(read, w, planner::HostReadTask{ChunkId(1), {7}, box, box, false, {}, {}}, {read - 1}));
  tasks.push_back(task(read + 1, w, planner::DeleteChunkTask{ChunkId(1), box}, {read}));
  counted_runs = 0;
  worker.submit(std::move(tasks), context);
  ASSERT_TRUE(done.wait(read + 1));
  for (const auto& [id, failure] : done.failures) EXPECT_FALSE(failure) << id;
  EXPECT_EQ(counted_runs, static_cast<int>(kLaunches));
  EXPECT_EQ(host, std::vector<double>(8, 1.5 + kLaunches));
  const Worker::MemoryReport report = worker.memory_report();
  // The fill, the first launch and the read: the other launches shared the first's.
  EXPECT_EQ(report.counters.stagings, 3u);
  EXPECT_EQ(report.chunks, 0u);
}

// Two passes over sixteen chunks on a device that holds ten: evicting least recently used
// first, every chunk of the second pass comes back from the host (each pass evicts the chunk
// the next task needs); evicting the chunk whose next planned use is farthest keeps what the
// second pass reads first.
TEST(Worker, EvictionKeepsWhatTheNextTasksUse) {
  Completions done;
  comm::LoopbackTransport transport;
  WorkerOptions options = on_one_host_device();
  options.memory.devices = {{DeviceId(0), 10 * MemoryPool::kAlignment}};  // ten chunks
  Worker worker(options, transport, done.handler());
  const Rect box(Point{0}, Point{8});
  const WorkerId w(0);
  constexpr uint64_t kChunks = 16;
  auto context = std::make_shared<FragmentContext>();
  context->add_launch(LaunchId(1), launch_of(kCountRuns, "count"));
  std::vector<std::vector<double>> host(kChunks, std::vector<double>(8, -1));
  std::vector<Task> tasks;
  uint64_t id = 1;
  std::vector<uint64_t> last(kChunks);  // each chunk's last task
  for (uint64_t c = 0; c < kChunks; ++c) {
    tasks.push_back(task(id, w, create(1 + c, box, DeviceId(0)), {}));
    tasks.push_back(task(id + 1, w, planner::FillTask{ChunkId(1 + c), box, bytes_of(1.5)}, {id}));
    last[c] = id + 1;
    id += 2;
  }
  uint64_t previous = last[kChunks - 1];
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t c = 0; c < kChunks; ++c) {  // one chunk after the other
      planner::ExecuteTask exec{LaunchId(1), kCountRuns, box, DeviceId(0), {}, ChunkId()};
      exec.bindings.push_back({0, ChunkId(1 + c), box, planner::ChunkAccessMode::kReadWrite});
      tasks.push_back(task(id, w, exec, {last[c], previous}));
      last[c] = previous = id++;
    }
  for (uint64_t c = 0; c < kChunks; ++c) {
    context->add_host_buffer(100 + c, {host[c].data(), box, 8});
    tasks.push_back(task(id, w,
                         planner::HostReadTask{ChunkId(1 + c), {100 + c}, box, box, false, {}, {}},
                         {last[c]}));
    tasks.push_back(task(id + 1, w, planner::DeleteChunkTask{ChunkId(1 + c), box}, {id}));
    id += 2;
  }
  worker.submit(std::move(tasks), context);
  ASSERT_TRUE(done.wait(id - 1));
  for (const auto& [t, failure] : done.failures) EXPECT_FALSE(failure) << t;
  for (uint64_t c = 0; c < kChunks; ++c) EXPECT_EQ(host[c], std::vector<double>(8, 3.5)) << c;
  const Worker::MemoryReport report = worker.memory_report();
  // The number depends on how far staging runs ahead of the launches (thread timing): over
  // 1,200 runs, four at once on two cores, least recently used first wrote back 23-26 chunks,
  // planned eviction 14-20.
  EXPECT_LE(report.counters.write_backs_to_host, 21u);
  EXPECT_EQ(report.chunks, 0u);
}

// Worker 0 fills a region and sends it; worker 1 receives it into its own chunk and reads it
// into a host buffer: the Send/Recv protocol over the in-process transport.
TEST(Worker, TwoWorkersExchangeARegionThroughTheTransport) {
  Log log;
  Completions done;
  comm::LoopbackTransport transport;
  Worker w0(options_for(WorkerId(0), DeviceId(0), log), transport, done.handler());
  Worker w1(options_for(WorkerId(1), DeviceId(1), log), transport, done.handler());
  const Rect box(Point{0}, Point{4});
  std::vector<double> host(4, 0);
  auto context = std::make_shared<FragmentContext>();
  context->add_host_buffer(7, {host.data(), box, 8});
  // The receiver first: its Recv waits for the message.
  w1.submit(
      {task(11, WorkerId(1), create(2, box, DeviceId(1)), {}),
       task(12, WorkerId(1), planner::RecvTask{ChunkId(2), {}, {}, box, WorkerId(0), 99}, {11}),
       task(13, WorkerId(1), planner::HostReadTask{ChunkId(2), {7}, box, box, false, {}, {}},
            {12})},
      context);
  w0.submit(
      {task(1, WorkerId(0), create(1, box, DeviceId(0)), {}),
       task(2, WorkerId(0), planner::FillTask{ChunkId(1), box, bytes_of(4.25)}, {1}),
       task(3, WorkerId(0), planner::SendTask{ChunkId(1), {}, {}, box, WorkerId(1), 99}, {2})},
      std::make_shared<FragmentContext>());
  ASSERT_TRUE(done.wait(6));
  for (const auto& [id, failure] : done.failures) EXPECT_FALSE(failure) << id;
  EXPECT_EQ(host, std::vector<double>(4, 4.25));
}

}  // namespace
}  // namespace lightning::worker
