// The Device contract on emulated host devices: kernels over a superblock, region copies and
// host jobs, each reported once through `done` with the error and when it ran.
#include "backend/host/host_device.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <future>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernel/native_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "worker/thread_pool.hpp"

namespace lightning::host {
namespace {

using kernel::KernelInfo;
using kernel::native_kernel;
using kernel::native_reduce_kernel;
using worker::current_thread_name;
using worker::Device;
using worker::KernelRun;
using worker::MemorySpace;
using worker::OpSpan;
using worker::PlacedBuffer;

struct Square {
  ArrayHandle<int64_t, 1> out;
  void operator()(int64_t i) const {
    if (i == 13) throw std::runtime_error("thirteen");
    out(i) = i * i;
  }
};

struct Count {
  void operator()(int64_t, int64_t& n) const { ++n; }
};

// Waits for one operation's report.
struct Report {
  std::promise<std::pair<std::exception_ptr, OpSpan>> promise;
  Device::Done done() {
    return [this](std::exception_ptr e, OpSpan s) { promise.set_value({std::move(e), s}); };
  }
  std::pair<std::exception_ptr, OpSpan> get() { return promise.get_future().get(); }
};

KernelRun square_run(std::vector<int64_t>& data, const Rect& superblock) {
  static const KernelInfo info =
      native_kernel<Square, 1>("device_test::square", "global i => write out[i]",
                               annotation::KernelSignature().add_array("out", DataType::kInt64, 1),
                               {{0, offsetof(Square, out), 1}});
  Square f{};
  f.out.data = data.data();
  f.out.offset = 0;
  f.out.stride[0] = 1;
  f.out.extent[0] = static_cast<int64_t>(data.size());
  KernelRun run{&info, "square", std::vector<uint8_t>(sizeof f), superblock, nullptr, {}, nullptr};
  std::memcpy(run.functor.data(), &f, sizeof f);
  return run;
}

// Kernels that look at the device's engines (their state is global: kernels are bytes).
std::string g_kernel_thread;          // written by RecordThread, read after its report
std::shared_future<void> g_copy_ran;  // set by a copy-engine job
struct RecordThread {
  void operator()(int64_t) const { g_kernel_thread = current_thread_name(); }
};
struct WaitForCopy {
  void operator()(int64_t) const {
    if (g_copy_ran.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
      throw std::runtime_error("the copy engine did not run while a kernel ran");
  }
};

template <class F>
KernelRun run_of(const char* name) {
  static const KernelInfo info =
      native_kernel<F, 1>(name, "global i =>", annotation::KernelSignature(), {});
  return KernelRun{
      &info, name, std::vector<uint8_t>(sizeof(F)), Rect(Point{0}, Point{1}), nullptr, {}, nullptr};
}

TEST(HostDevice, KernelsRunOnTheComputeEngineAndDataJobsOnTheCopyEngine) {
  HostDevice device(DeviceId(3), 2);
  EXPECT_EQ(device.description(), "emulated host device D3 (2 compute thread(s))");
  Report kernel;
  device.launch(run_of<RecordThread>("device_test::record"), kernel.done());
  EXPECT_EQ(kernel.get().first, nullptr);
  EXPECT_EQ(g_kernel_thread.substr(0, 11), "D3 compute#");
  std::string copy_thread;
  Report job;
  device.run_on_host(
      {}, [&](const auto&) { copy_thread = current_thread_name(); }, job.done());
  EXPECT_EQ(job.get().first, nullptr);
  EXPECT_EQ(copy_thread, "D3 copy");
}

// A kernel waits (up to a deadline) for a job on the copy engine: it fails, rather than hangs,
// unless the two engines run at once.
TEST(HostDevice, ComputeAndCopyOverlap) {
  HostDevice device(DeviceId(0), 1);
  std::promise<void> copied;
  g_copy_ran = copied.get_future().share();
  Report kernel, job;
  device.launch(run_of<WaitForCopy>("device_test::wait_for_copy"), kernel.done());
  device.run_on_host(
      {}, [&](const auto&) { copied.set_value(); }, job.done());
  EXPECT_EQ(job.get().first, nullptr);
  EXPECT_EQ(kernel.get().first, nullptr);
}

TEST(HostDevice, LaunchRunsTheSuperblockAndReportsWhenItRan) {
  HostDevice device(DeviceId(3), 2);
  std::vector<int64_t> data(20, -1);
  Report r;
  const auto before = std::chrono::steady_clock::now();
  device.launch(square_run(data, Rect(Point{2}, Point{10})), r.done());
  auto [error, span] = r.get();
  EXPECT_EQ(error, nullptr);
  EXPECT_LE(before, span.start);
  EXPECT_LE(span.start, span.end);
  for (int64_t i = 0; i < 20; ++i) EXPECT_EQ(data[i], i >= 2 && i < 10 ? i * i : -1) << i;
  EXPECT_NE(device.description().find("D3"), std::string::npos) << device.description();
}

// The device reports the kernel's own error; the worker names kernel, superblock and device.
TEST(HostDevice, AFailingKernelReportsItsErrorAsATaskError) {
  HostDevice device(DeviceId(3), 1);
  std::vector<int64_t> data(20, 0);
  Report r;
  device.launch(square_run(data, Rect(Point{10}, Point{20})), r.done());
  auto [error, span] = r.get();
  ASSERT_NE(error, nullptr);
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTask);
    EXPECT_EQ(e.message(), "thirteen");
  }
}

TEST(HostDevice, ReductionPartialsStartFromTheReducersInit) {
  static const KernelInfo info = native_reduce_kernel<Count, 1, int64_t>(
      "device_test::count", "global i =>", annotation::KernelSignature(), {});
  HostDevice device(DeviceId(0), 1);
  int64_t partial = 1000;  // stale: the device must start from zero
  Report r;
  device.launch({&info, "count", std::vector<uint8_t>(sizeof(Count)), Rect(Point{5}, Point{12}),
                 &partial, *info.reduction, nullptr},
                r.done());
  EXPECT_EQ(r.get().first, nullptr);
  EXPECT_EQ(partial, 7);
}

TEST(HostDevice, CopiesARegionBetweenBoxes) {
  HostDevice device(DeviceId(0), 1);
  std::vector<int32_t> src(40), dst(40, 0);
  std::iota(src.begin(), src.end(), 100);
  const Rect sbox(Point{0, 0}, Point{4, 10}), dbox(Point{1, 0}, Point{5, 8});
  const Rect region(Point{1, 2}, Point{4, 6});
  Report r;
  device.copy({dst.data(), dbox, 4, MemorySpace::host()},
              {src.data(), sbox, 4, MemorySpace::host()}, region, r.done());
  EXPECT_EQ(r.get().first, nullptr);
  std::vector<int32_t> expected(40, 0);
  worker::copy_region({expected.data(), dbox, 4}, {src.data(), sbox, 4}, region);
  EXPECT_EQ(dst, expected);
}

TEST(HostDevice, HostJobsSeeTheBuffersAndTheirErrorsAreReported) {
  HostDevice device(DeviceId(0), 1);
  std::vector<int32_t> a(10, 1);
  const PlacedBuffer buffer{a.data(), Rect(Point{0}, Point{10}), 4,
                            MemorySpace::of_device(DeviceId(0))};
  Report ok;
  device.run_on_host(
      {{buffer, Rect(Point{2}, Point{5}), true, true}},
      [](const std::vector<worker::BoxBuffer>& b) {
        ASSERT_EQ(b.size(), 1u);
        static_cast<int32_t*>(b[0].data)[3] = 7;
      },
      ok.done());
  EXPECT_EQ(ok.get().first, nullptr);
  EXPECT_EQ(a[3], 7);
  Report failed;
  device.run_on_host(
      {}, [](const auto&) { throw Error(ErrorKind::kCommunication, "lost"); }, failed.done());
  auto error = failed.get().first;
  ASSERT_NE(error, nullptr);
  EXPECT_THROW(std::rethrow_exception(error), Error);
}

}  // namespace
}  // namespace lightning::host
