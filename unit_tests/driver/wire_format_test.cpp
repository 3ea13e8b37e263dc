// RPC messages survive encoding: every field of every task kind, launch data and settings
// comes back equal; bytes that are not a message fail naming the rank they came from.
#include "driver/wire_format.hpp"

#include <gtest/gtest.h>

#include <tuple>

#include "core/error.hpp"

namespace lightning::driver::rpc {
namespace {

using namespace lightning::planner;

// Every field of each kind, for comparison (a field left out of the wire format shows up as
// a difference, since the test gives every field a value other than its default).
auto fields(const ChunkAccess& a) {
  return std::tie(a.chunk, a.region, a.mode);
}
auto fields(const CreateChunkTask& t) {
  return std::tie(t.chunk, t.array, t.box, t.device, t.temporary, t.bytes, t.type, t.element_size);
}
auto fields(const DeleteChunkTask& t) {
  return std::tie(t.chunk, t.box);
}
auto fields(const ExecuteTask::Binding& b) {
  return std::tie(b.param, b.chunk, b.region, b.mode);
}
auto fields(const CopyTask& t) {
  return std::tie(t.src, t.dst, t.region);
}
auto fields(const SendTask& t) {
  return std::tie(t.src, t.host_src, t.host_box, t.region, t.to, t.tag);
}
auto fields(const RecvTask& t) {
  return std::tie(t.dst, t.host_dst, t.host_box, t.region, t.from, t.tag);
}
auto fields(const FillTask& t) {
  return std::tie(t.chunk, t.region, t.value);
}
auto fields(const FoldTask& t) {
  return std::tie(t.src, t.dst, t.region, t.reduction, t.launch, t.assign);
}
auto fields(const HostWriteTask& t) {
  return std::tie(t.buffer, t.host_box, t.dst, t.region);
}
auto fields(const HostReadTask& t) {
  return std::tie(t.src, t.buffer, t.host_box, t.region, t.fold, t.reduction, t.launch);
}
auto fields(const BarrierTask& t) {
  return std::tie(t.fence);
}

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (fields(a[i]) != fields(b[i])) return false;
  return true;
}

bool same_kind(const TaskKind& a, const TaskKind& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, ExecuteTask>) {
          return std::tie(x.launch, x.kernel, x.superblock, x.device, x.scalar_partial) ==
                     std::tie(y.launch, y.kernel, y.superblock, y.device, y.scalar_partial) &&
                 same(x.bindings, y.bindings);
        } else {
          return fields(x) == fields(y);
        }
      },
      a);
}

Task task(uint64_t id, TaskKind kind) {
  Task t;
  t.id = TaskId(id);
  t.worker = WorkerId(3);
  t.kind = std::move(kind);
  t.deps = {TaskId(id - 1), TaskId(id - 7)};
  t.accesses = accesses_of(t.kind);
  return t;
}

// One task of every kind, every field set to something other than its default.
std::vector<Task> every_kind() {
  const Rect box(Point{-2, 5}, Point{40, 9});
  const Rect region(Point{0, 6}, Point{3, 8});
  const Rect cube(Point{1, 2, 3}, Point{4, 5, 6});
  std::vector<Task> tasks;
  tasks.push_back(task(100, CreateChunkTask{ChunkId(1), ArrayId(2), box, DeviceId(5), true, 4096,
                                            DataType::kFloat32, 4}));
  tasks.push_back(task(101, DeleteChunkTask{ChunkId(1), box}));
  ExecuteTask e{LaunchId(9), KernelId(0xfeedbeefcafe1234), cube, DeviceId(6), {}, ChunkId(77)};
  e.bindings.push_back({2, ChunkId(11), cube, ChunkAccessMode::kRead, ArrayId(5)});
  e.bindings.push_back({0, ChunkId(12), cube, ChunkAccessMode::kReadWrite, ArrayId(3)});
  tasks.push_back(task(102, e));
  tasks.push_back(task(103, CopyTask{ChunkId(3), ChunkId(4), region}));
  tasks.push_back(task(104, SendTask{ChunkId(), HostBufferId{8}, box, region, WorkerId(2), 1234}));
  tasks.push_back(task(105, RecvTask{ChunkId(6), HostBufferId{9}, box, region, WorkerId(1), 99}));
  tasks.push_back(task(106, FillTask{ChunkId(7), region, {1, 2, 3, 4, 5, 6, 7, 8}}));
  tasks.push_back(
      task(107, FoldTask{ChunkId(8), ChunkId(9), Rect(),
                         Reduction::builtin(ReduceOp::kMax, DataType::kInt32), LaunchId(4), true}));
  tasks.push_back(task(108, HostWriteTask{HostBufferId{5}, box, ChunkId(10), region}));
  tasks.push_back(task(109, HostReadTask{ChunkId(11), HostBufferId{6}, box, region, true,
                                         Reduction::custom(24), LaunchId(3)}));
  tasks.push_back(task(110, BarrierTask{LaunchId(12)}));
  return tasks;
}

// One completion, sent alone in a TasksCompleted from `rank` and decoded.
TaskCompleted one_completion(const TaskCompleted& c, int rank) {
  const auto done = std::get<TasksCompleted>(decode(encode(TasksCompleted{{c}}), rank));
  EXPECT_EQ(done.tasks.size(), 1u);
  return done.tasks.empty() ? TaskCompleted{} : done.tasks[0];
}

TEST(WireFormat, CompletionsOfABurstTravelTogetherInOrder) {
  TaskFailure f;
  f.task = TaskId(8);
  f.what = "failed";
  TasksCompleted m{{{TaskId(9), {}}, {TaskId(8), f}, {TaskId(10), {}}}};
  const auto back = std::get<TasksCompleted>(decode(encode(m), 1));
  ASSERT_EQ(back.tasks.size(), 3u);
  EXPECT_EQ(back.tasks[0].task, TaskId(9));
  EXPECT_FALSE(back.tasks[0].failure);
  EXPECT_EQ(back.tasks[1].task, TaskId(8));
  ASSERT_TRUE(back.tasks[1].failure);
  EXPECT_EQ(*back.tasks[1].failure, f);
  EXPECT_EQ(back.tasks[2].task, TaskId(10));
  EXPECT_FALSE(back.tasks[2].failure);
  EXPECT_TRUE(std::get<TasksCompleted>(decode(encode(TasksCompleted{}), 1)).tasks.empty());
}

TEST(WireFormat, EveryTaskKindRoundTrips) {
  SubmitFragment m;
  m.tasks = every_kind();
  ASSERT_EQ(m.tasks.size(), std::variant_size_v<TaskKind>);
  worker::LaunchData data{KernelId(42),
                          "saxpy",
                          {0, 1, 2, 255},
                          {Point{10}, Point(), Point{3, 4}},
                          {{0, 8, 1}, {2, 48, 2}},
                          Reduction::builtin(ReduceOp::kMax, DataType::kInt16)};
  m.launches.emplace_back(LaunchId(9), std::make_shared<const worker::LaunchData>(data));
  m.repeated = {{LaunchId(10), LaunchId(9)}, {LaunchId(11), LaunchId(10)}};

  const Message back = decode(encode(m), 1);
  const auto& got = std::get<SubmitFragment>(back);
  ASSERT_EQ(got.tasks.size(), m.tasks.size());
  for (size_t i = 0; i < m.tasks.size(); ++i) {
    const Task& a = m.tasks[i];
    const Task& b = got.tasks[i];
    SCOPED_TRACE(describe(a));
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.worker, b.worker);
    EXPECT_EQ(a.deps, b.deps);
    EXPECT_TRUE(same(a.accesses, b.accesses));
    EXPECT_TRUE(same_kind(a.kind, b.kind));
    EXPECT_EQ(describe(a), describe(b));
  }
  EXPECT_EQ(got.repeated, m.repeated);
  ASSERT_EQ(got.launches.size(), 1u);
  EXPECT_EQ(got.launches[0].first, LaunchId(9));
  const worker::LaunchData& d = *got.launches[0].second;
  EXPECT_EQ(d.kernel, data.kernel);
  EXPECT_EQ(d.name, data.name);
  EXPECT_EQ(d.functor, data.functor);
  EXPECT_EQ(d.extents, data.extents);
  ASSERT_EQ(d.arrays.size(), 2u);
  EXPECT_EQ(d.arrays[1].param, 2);
  EXPECT_EQ(d.arrays[1].byte_offset, 48u);
  EXPECT_EQ(d.arrays[1].rank, 2);
  EXPECT_EQ(d.reduction, Reduction::builtin(ReduceOp::kMax, DataType::kInt16));
}

// Every field of a failure set to something other than its default: a field left out of the
// wire format comes back different.
TEST(WireFormat, ATaskFailureRoundTrips) {
  TaskFailure f;
  f.task = TaskId(102);
  f.kind = "Execute";
  f.detail = "T102 Execute K7 [0, 10) on D6";
  f.worker = WorkerId(3);
  f.rank = 3;
  f.kernel = TaskFailure::Kernel{
      "saxpy",
      "saxpy launch",
      LaunchId(9),
      Rect(Point{1, 2, 3}, Point{4, 5, 6}),
      DeviceId(6),
      {{1, ChunkId(40), Rect(Point{1, 2, 3}, Point{4, 5, 6}), ChunkAccessMode::kWrite, ArrayId(8)},
       {0, ChunkId(41), Rect(Point{0, 0, 0}, Point{4, 5, 6}), ChunkAccessMode::kRead, ArrayId(2)}}};
  f.error = ErrorKind::kCuda;
  f.caused_by = TaskId(17);
  f.what = "cuLaunchKernel failed\n  while launching";
  f.violation = AccessViolation{2, Point{4, 7}, Rect(Point{0, 0}, Point{4, 7}),
                                ChunkAccessMode::kWrite, AccessViolation::Kind::kNotWritten};
  const auto done = one_completion(TaskCompleted{TaskId(102), f}, 3);
  EXPECT_EQ(done.task, TaskId(102));
  ASSERT_TRUE(done.failure.has_value());
  EXPECT_EQ(*done.failure, f);
  // Each field on its own, so that a difference names it.
  EXPECT_EQ(done.failure->kind, f.kind);
  EXPECT_EQ(done.failure->detail, f.detail);
  EXPECT_EQ(done.failure->worker, f.worker);
  EXPECT_EQ(done.failure->rank, f.rank);
  ASSERT_TRUE(done.failure->kernel.has_value());
  EXPECT_EQ(done.failure->kernel->name, "saxpy");
  EXPECT_EQ(done.failure->kernel->label, "saxpy launch");
  EXPECT_EQ(done.failure->kernel->launch, LaunchId(9));
  EXPECT_EQ(done.failure->kernel->superblock, f.kernel->superblock);
  EXPECT_EQ(done.failure->kernel->device, DeviceId(6));
  EXPECT_EQ(done.failure->kernel->bindings, f.kernel->bindings);
  EXPECT_EQ(done.failure->error, ErrorKind::kCuda);
  EXPECT_EQ(done.failure->caused_by, TaskId(17));
  EXPECT_EQ(done.failure->what, f.what);
  EXPECT_EQ(done.failure->violation, f.violation);

  // Without a kernel (not an Execute) and from the worker itself (no task).
  TaskFailure w;
  w.worker = WorkerId(2);
  w.error = ErrorKind::kInternal;
  w.what = "broken";
  const auto other = one_completion(TaskCompleted{TaskId(), w}, 2);
  EXPECT_FALSE(other.task.valid());
  ASSERT_TRUE(other.failure.has_value());
  EXPECT_EQ(*other.failure, w);
  EXPECT_FALSE(other.failure->kernel.has_value());
}

TEST(WireFormat, SettingsAndRepliesRoundTrip) {
  Config c;
  c.devices.kind = DeviceSelection::Kind::kCuda;
  c.devices.cuda_ordinals = {0, 2};
  c.device_memory = 6 << 10;
  c.host_memory = 12 << 10;
  c.spill_dir = "/spill";
  c.staging_limit = 12345;
  c.trace = "t.json";
  c.log = LogLevel::kDebug;
  c.jit_cache = "/jit";
  c.check_access = !Config::check_access_by_default();
  c.gpu_poll = std::chrono::microseconds(1234);
  const auto open = std::get<OpenSession>(decode(encode(OpenSession{7, c}), 0));
  EXPECT_EQ(open.session, 7u);
  EXPECT_EQ(open.config.describe(), c.describe());
  EXPECT_EQ(open.config.devices, c.devices);
  EXPECT_EQ(open.config.gpu_poll, c.gpu_poll);

  const auto done = one_completion(TaskCompleted{TaskId(5), {}}, 2);
  EXPECT_EQ(done.task, TaskId(5));
  EXPECT_FALSE(done.failure.has_value());

  MemoryReported r{1, 2, 3, 4, {}};
  r.counters.disk_reads = 9;
  r.counters.invalidations = 10;
  const auto report = std::get<MemoryReported>(decode(encode(r), 3));
  EXPECT_EQ(std::tie(report.device_bytes, report.host_bytes, report.spill_files, report.chunks),
            std::tie(r.device_bytes, r.host_bytes, r.spill_files, r.chunks));
  EXPECT_EQ(report.counters.disk_reads, 9u);
  EXPECT_EQ(report.counters.invalidations, 10u);

  const auto start = std::get<StartWorker>(decode(encode(StartWorker{3, {DeviceId(4)}, 99}), 0));
  EXPECT_EQ(start.devices, std::vector<DeviceId>{DeviceId(4)});
  EXPECT_EQ(start.device_bytes, 99u);
  EXPECT_TRUE(std::holds_alternative<EndRun>(decode(encode(EndRun{}), 0)));
  EXPECT_STREQ(name_of(Message(CloseSession{})), "CloseSession");
}

// Messages are written into storage that starts small and doubles: one of every size around
// the doublings, up to a megabyte, comes back whole.
TEST(WireFormat, MessagesOfEverySizeRoundTrip) {
  for (size_t n : {0, 1, 200, 255, 256, 257, 1000, 4096, 1 << 20}) {
    TaskFailure failure;
    for (size_t i = 0; i < n; ++i) failure.what.push_back(static_cast<char>('a' + i % 26));
    const std::vector<uint8_t> bytes = encode(TasksCompleted{{{TaskId(n), failure}}});
    EXPECT_GT(bytes.size(), n);
    const Message back = decode(bytes, 1);
    const auto* done = std::get_if<TasksCompleted>(&back);
    ASSERT_NE(done, nullptr) << n;
    ASSERT_EQ(done->tasks.size(), 1u);
    EXPECT_EQ(done->tasks[0].task, TaskId(n));
    ASSERT_TRUE(done->tasks[0].failure.has_value());
    EXPECT_EQ(done->tasks[0].failure->what, failure.what) << n;
  }
}

TEST(WireFormat, BytesThatAreNotAMessageNameTheirRank) {
  TaskFailure failure;
  failure.what = "a long enough error text";
  std::vector<uint8_t> bytes = encode(TasksCompleted{{{TaskId(5), failure}}});
  std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + 10);
  try {
    decode(truncated, 3);
    FAIL() << "a truncated message decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCommunication);
    EXPECT_NE(std::string(e.what()).find("from rank 3"), std::string::npos) << e.what();
  }
  // Cut anywhere (inside a size, a string, a variant's index), it is refused, never misread.
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_THROW(decode(prefix, 3), Error) << "cut at " << cut << " of " << bytes.size();
  }
  bytes[0] ^= 0xff;  // the format version
  try {
    decode(bytes, 2);
    FAIL() << "a message of another version decoded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wire format version"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 2"), std::string::npos) << e.what();
  }
  std::vector<uint8_t> longer = encode(EndRun{});
  longer.push_back(0);
  longer.push_back(0);
  try {
    decode(longer, 1);
    FAIL() << "a message with bytes after it decoded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCommunication);
    EXPECT_NE(std::string(e.what()).find("from rank 1 has 2 trailing bytes"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lightning::driver::rpc
