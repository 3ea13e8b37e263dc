// The Device contract on emulated host devices: kernels over a superblock, region copies and
// host jobs, each reported once through `done` with the error and when it ran; and how
// reduction partials start and fold.
#include "worker/emulated_device.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <future>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "worker/native_kernel.hpp"

namespace lightning::worker {
namespace {

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
  KernelRun run{&info, "square", std::vector<uint8_t>(sizeof f), superblock, nullptr};
  std::memcpy(run.functor.data(), &f, sizeof f);
  return run;
}

TEST(EmulatedDevice, LaunchRunsTheSuperblockAndReportsWhenItRan) {
  EmulatedDevice device(DeviceId(3), 2);
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
TEST(EmulatedDevice, AFailingKernelReportsItsErrorAsATaskError) {
  EmulatedDevice device(DeviceId(3), 1);
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

TEST(EmulatedDevice, ReductionPartialsStartFromTheReducersInit) {
  static const KernelInfo info = native_reduce_kernel<Count, 1, int64_t>(
      "device_test::count", "global i =>", annotation::KernelSignature(), {});
  EmulatedDevice device(DeviceId(0), 1);
  int64_t partial = 1000;  // stale: the device must start from zero
  Report r;
  device.launch(
      {&info, "count", std::vector<uint8_t>(sizeof(Count)), Rect(Point{5}, Point{12}), &partial},
      r.done());
  EXPECT_EQ(r.get().first, nullptr);
  EXPECT_EQ(partial, 7);
}

TEST(EmulatedDevice, CopiesARegionBetweenBoxes) {
  EmulatedDevice device(DeviceId(0), 1);
  std::vector<int32_t> src(40), dst(40, 0);
  std::iota(src.begin(), src.end(), 100);
  const Rect sbox(Point{0, 0}, Point{4, 10}), dbox(Point{1, 0}, Point{5, 8});
  const Rect region(Point{1, 2}, Point{4, 6});
  Report r;
  device.copy({dst.data(), dbox, 4, MemorySpace::host()},
              {src.data(), sbox, 4, MemorySpace::host()}, region, r.done());
  EXPECT_EQ(r.get().first, nullptr);
  std::vector<int32_t> expected(40, 0);
  host::copy_region({expected.data(), dbox, 4}, {src.data(), sbox, 4}, region);
  EXPECT_EQ(dst, expected);
}

TEST(EmulatedDevice, HostJobsSeeTheBuffersAndTheirErrorsAreReported) {
  EmulatedDevice device(DeviceId(0), 1);
  std::vector<int32_t> a(10, 1);
  const PlacedBuffer buffer{a.data(), Rect(Point{0}, Point{10}), 4,
                            MemorySpace::of_device(DeviceId(0))};
  Report ok;
  device.run_on_host(
      {{buffer, Rect(Point{2}, Point{5}), true, true}},
      [](const std::vector<host::BoxBuffer>& b) {
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
}  // namespace lightning::worker

namespace lightning::worker {
namespace {

TEST(ReductionPartials, BuiltInOperatorsStartFromTheirIdentityAndFoldTyped) {
  static const KernelInfo info = native_reduce_kernel<Count, 1, int64_t>(
      "device_test::typed", "global i =>", annotation::KernelSignature(), {});
  KernelRun max{&info,
                "max",
                {},
                Rect(Point{0}, Point{1}),
                nullptr,
                planner::FoldOp::kMax,
                DataType::kFloat64};
  double v = 0;
  start_partial(max, &v);
  EXPECT_EQ(v, -std::numeric_limits<double>::infinity());
  const double a = 2.5, b = -1;
  join_partial(max, &v, &a);
  join_partial(max, &v, &b);
  EXPECT_EQ(v, 2.5);

  KernelRun sum{
      &info, "sum", {}, Rect(Point{0}, Point{1}), nullptr, planner::FoldOp::kSum, DataType::kInt32};
  int32_t s = 1;
  start_partial(sum, &s);
  EXPECT_EQ(s, 0);
  const int32_t big = std::numeric_limits<int32_t>::max(), one = 1;
  join_partial(sum, &s, &big);
  join_partial(sum, &s, &one);
  EXPECT_EQ(s, std::numeric_limits<int32_t>::min()) << "integer sums wrap";

  KernelRun custom{&info, "custom", {}, Rect(Point{0}, Point{1}), nullptr};
  int64_t c = 99;
  start_partial(custom, &c);  // the kernel's ReducerInfo: sum_reducer<int64_t>
  EXPECT_EQ(c, 0);
  const int64_t three = 3;
  join_partial(custom, &c, &three);
  EXPECT_EQ(c, 3);
}

}  // namespace
}  // namespace lightning::worker
