// The GPU runtime on a GPU: memory backend, copies of strided boxes between host, device
// and peer memory, host jobs, and kernel launches with the LaunchBox ABI (kernels written by
// hand here and compiled with NVRTC). Exits 77 (skipped) on machines without a CUDA driver.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "backend/cuda/cuda_memory_backend.hpp"
#include "backend/cuda/cuda_platform.hpp"
#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "backend/cuda/nvrtc_compiler.hpp"
#include "core/error.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "worker/region_ops.hpp"

namespace lightning::cuda {
namespace {

using kernel::KernelInfo;
using worker::HostAccess;
using worker::KernelRun;
using worker::MemorySpace;
using worker::OpSpan;
using worker::PlacedBuffer;

// Kernels written against the ABI by hand: the functor by value, the superblock, partials
// (and a reduction's target, which its last block fills).
const char* kSource = R"(
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/launch_box.hpp"
#include "lightning_kokkos/device/reduction_target.hpp"
struct Axpy { lightning::ArrayHandle<float, 1> x; lightning::ArrayHandle<float, 1> y; float a; };
extern "C" __global__ void axpy_entry(Axpy f, lightning::jit::LaunchBox box, void*) {
  const int64_t n = box.hi[0] - box.lo[0];
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = box.lo[0] + t;
    f.y(i) = f.a * f.x(i) + f.y(i);
  }
}
struct Sum { lightning::ArrayHandle<double, 1> x; };
extern "C" __global__ void sum_entry(Sum f, lightning::jit::LaunchBox box, void* partials,
                                     lightning::jit::ReductionTarget target) {
  __shared__ double s[256];
  double acc = 0;
  const int64_t n = box.hi[0] - box.lo[0];
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n;
       t += (int64_t)gridDim.x * blockDim.x)
    acc += f.x(box.lo[0] + t);
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) static_cast<double*>(partials)[blockIdx.x] = s[0];
  if (!lightning::jit::last_block_to_finish(target.blocks_done)) return;
  if (threadIdx.x == 0) {
    double all = 0;
    for (unsigned b = 0; b < gridDim.x; ++b)
      all += lightning::jit::load_from_l2(static_cast<const double*>(partials) + b);
    *static_cast<double*>(target.result) = all;
    *target.blocks_done = 0;
  }
}
)";

struct Axpy {
  ArrayHandle<float, 1> x;
  ArrayHandle<float, 1> y;
  float a;
};
struct Sum {
  ArrayHandle<double, 1> x;
};

// Compiles kSource once per architecture; entry "<kernel name>_entry".
class HandWrittenImages final : public KernelImageSource {
 public:
  const KernelImage& image(const KernelInfo& kernel, int major, int minor,
                           const KernelSpecialization&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cubin_.empty())
      cubin_ =
          compile_to_cubin({"hand-written", "kernels.cu", kSource}, nvrtc_options(major, minor))
              .cubin;
    auto& image = images_[kernel.name];
    image.cubin = cubin_;
    image.entry = kernel.name + "_entry";
    ++requests;
    return image;
  }
  int requests = 0;

 private:
  std::mutex mutex_;
  std::vector<char> cubin_;
  std::map<std::string, KernelImage> images_;
};

KernelInfo axpy_info() {
  KernelInfo k;
  k.name = "axpy";
  k.functor_size = sizeof(Axpy);
  k.description.signature.add_array("x", DataType::kFloat32, 1)
      .add_array("y", DataType::kFloat32, 1)
      .add_scalar("a", DataType::kFloat32);
  k.description.arrays = {{0, offsetof(Axpy, x), 1}, {1, offsetof(Axpy, y), 1}};
  return k;
}

void sum_init(const void*, void* v) {
  *static_cast<double*>(v) = 0;
}
void sum_join(const void*, void* d, const void* s) {
  *static_cast<double*>(d) += *static_cast<const double*>(s);
}

KernelInfo sum_info() {
  KernelInfo k;
  k.name = "sum";
  k.functor_size = sizeof(Sum);
  k.description.signature.add_array("x", DataType::kFloat64, 1);
  k.description.arrays = {{0, offsetof(Sum, x), 1}};
  k.reduction = Reduction::custom(sizeof(double), sum_init, sum_join);
  return k;
}

// Waits for an operation's `done`, rethrowing its error.
struct Waiter {
  std::promise<std::exception_ptr> promise;
  worker::Device::Done done() {
    return [this](std::exception_ptr e, OpSpan) { promise.set_value(std::move(e)); };
  }
  void wait() {
    if (auto e = promise.get_future().get()) std::rethrow_exception(e);
  }
};

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_ = discover_gpus();
    ASSERT_FALSE(gpus_.empty());
    std::vector<std::pair<DeviceId, GpuInfo>> devices;
    for (size_t i = 0; i < std::min<size_t>(gpus_.size(), 2); ++i)
      devices.push_back({DeviceId(i), gpus_[i]});
    images_ = std::make_shared<HandWrittenImages>();
    platform_ = std::make_unique<CudaPlatform>(devices, images_, &wait_);
    for (size_t i = 0; i < devices.size(); ++i) {
      devices_.push_back(platform_->open(DeviceId(i), i));
      pools_.push_back(platform_->memory().allocate_device_pool(DeviceId(i), 64 << 20));
      ASSERT_TRUE(platform_->memory().grow_device_pool(DeviceId(i), pools_.back(), 64 << 20));
    }
  }
  void TearDown() override {
    devices_.clear();
    EXPECT_EQ(wait_.gpu_operations(), 0) << "an operation was counted and never ended";
    for (size_t i = 0; i < pools_.size(); ++i)
      platform_->memory().free_device_pool(DeviceId(i), pools_[i]);
  }

  // A device buffer over `box` at `offset` bytes into device d's pool.
  PlacedBuffer on_device(size_t d, const Rect& box, size_t elem, uint64_t offset = 0) {
    return {static_cast<char*>(pools_[d]) + offset, box, elem, MemorySpace::of_device(DeviceId(d))};
  }
  static PlacedBuffer on_host(void* data, const Rect& box, size_t elem) {
    return {data, box, elem, MemorySpace::host()};
  }
  void copy(size_t d, PlacedBuffer dst, PlacedBuffer src, const Rect& region) {
    Waiter w;
    devices_[d]->copy(dst, src, region, w.done());
    w.wait();
  }

  WaitPolicy wait_{std::chrono::milliseconds(10)};  // outlives the platform and its devices
  std::vector<GpuInfo> gpus_;
  std::shared_ptr<HandWrittenImages> images_;
  std::unique_ptr<CudaPlatform> platform_;
  std::vector<std::unique_ptr<worker::Device>> devices_;
  std::vector<void*> pools_;
};

std::vector<int32_t> iota(size_t n, int32_t from) {
  std::vector<int32_t> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

TEST_F(CudaDeviceTest, MemoryBackendCopiesAndZeroes) {
  worker::MemoryBackend& m = platform_->memory();
  const MemorySpace dev = MemorySpace::of_device(DeviceId(0));
  std::vector<int32_t> in = iota(1000, 7), out(1000, -1);
  void* pinned = m.allocate_host(4000);
  m.copy(pools_[0], dev, in.data(), MemorySpace::host(), 4000);
  m.copy(pinned, MemorySpace::host(), pools_[0], dev, 4000);
  EXPECT_EQ(std::memcmp(pinned, in.data(), 4000), 0);
  m.fill_zero(pools_[0], dev, 2000);
  m.copy(out.data(), MemorySpace::host(), pools_[0], dev, 4000);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(out[i], i < 500 ? 0 : in[i]) << i;
  m.free_host(pinned);
}

// A pool is an address range: memory is mapped into it as it grows, what was written stays,
// and a growth the GPU cannot give changes nothing and says so.
TEST_F(CudaDeviceTest, DevicePoolsGrowAsTheyAreUsed) {
  auto& m = static_cast<CudaMemoryBackend&>(platform_->memory());
  const MemorySpace dev = MemorySpace::of_device(DeviceId(0));
  const uint64_t total = gpus_[0].total_memory;
  void* pool = m.allocate_device_pool(DeviceId(0), 2 * total);  // twice the GPU: no memory yet
  EXPECT_EQ(m.device_pool_backed(pool), 0u);
  const uint64_t mib = 1 << 20;
  ASSERT_TRUE(m.grow_device_pool(DeviceId(0), pool, 100 * mib));
  const uint64_t first = m.device_pool_backed(pool);
  EXPECT_GE(first, 100 * mib);
  EXPECT_LT(first, 100 * mib + 64 * mib);  // a granularity's worth, not more
  std::vector<int32_t> in = iota(1000, 3), out(1000, -1);
  char* at = static_cast<char*>(pool) + 100 * mib - 4000;  // the end of what was asked for
  m.copy(at, dev, in.data(), MemorySpace::host(), 4000);
  EXPECT_FALSE(m.grow_device_pool(DeviceId(0), pool, total + total / 2));
  EXPECT_EQ(m.device_pool_backed(pool), first);
  ASSERT_TRUE(m.grow_device_pool(DeviceId(0), pool, 300 * mib));
  EXPECT_GE(m.device_pool_backed(pool), 300 * mib);
  char* far = static_cast<char*>(pool) + 300 * mib - 4000;
  m.copy(far, dev, at, dev, 4000);  // from the first piece into the second
  m.copy(out.data(), MemorySpace::host(), far, dev, 4000);
  EXPECT_EQ(out, in);
  if (pools_.size() > 1) {  // a peer GPU reads and writes it
    m.copy(pools_[1], MemorySpace::of_device(DeviceId(1)), far, dev, 4000);
    std::fill(out.begin(), out.end(), -1);
    m.copy(out.data(), MemorySpace::host(), pools_[1], MemorySpace::of_device(DeviceId(1)), 4000);
    EXPECT_EQ(out, in);
  }
  const int64_t live = m.live_device_pools();
  m.free_device_pool(DeviceId(0), pool);
  EXPECT_EQ(m.live_device_pools(), live - 1);
}

// A 2-D block goes host -> device (strided), device -> device (another box), device -> host;
// the result equals the host reference (worker::copy_region) and nothing else is written.
TEST_F(CudaDeviceTest, StridedBoxesRoundTripThroughDeviceMemory) {
  const Rect host_box({0, 0}, {20, 30}), dev_a({2, 3}, {18, 27}), dev_b({4, 5}, {16, 25});
  const Rect region({5, 6}, {14, 21});
  std::vector<int32_t> src = iota(600, 1), dst(600, -7), expected(600, -7);
  worker::copy_region({expected.data(), host_box, 4}, {src.data(), host_box, 4}, region);
  const auto a = on_device(0, dev_a, 4), b = on_device(0, dev_b, 4, 1 << 20);
  copy(0, a, on_host(src.data(), host_box, 4), region);
  copy(0, b, a, region);
  copy(0, on_host(dst.data(), host_box, 4), b, region);
  EXPECT_EQ(dst, expected);
}

TEST_F(CudaDeviceTest, ThreeDimensionalRegionsCopyLikeTheHost) {
  const Rect host_box({0, 0, 0}, {6, 7, 8}), dev({1, 0, 2}, {6, 7, 8});
  const Rect region({2, 1, 3}, {5, 6, 7});
  std::vector<int32_t> src = iota(336, 100), dst(336, 0), expected(336, 0);
  worker::copy_region({expected.data(), host_box, 4}, {src.data(), host_box, 4}, region);
  copy(0, on_device(0, dev, 4), on_host(src.data(), host_box, 4), region);
  copy(0, on_host(dst.data(), host_box, 4), on_device(0, dev, 4), region);
  EXPECT_EQ(dst, expected);
}

TEST_F(CudaDeviceTest, PeerCopiesBetweenTwoGpus) {
  if (devices_.size() < 2) GTEST_SKIP() << "one GPU";
  const Rect box({0, 0}, {64, 64}), region({8, 4}, {40, 60});
  std::vector<int32_t> src = iota(4096, 3), dst(4096, 0), expected(4096, 0);
  worker::copy_region({expected.data(), box, 4}, {src.data(), box, 4}, region);
  copy(0, on_device(0, box, 4), on_host(src.data(), box, 4), box);
  copy(0, on_device(1, box, 4), on_device(0, box, 4), region);  // strided peer
  copy(0, on_device(1, box, 4, 1 << 20), on_device(0, box, 4), Rect({0, 0}, {64, 64}));  // whole
  copy(1, on_host(dst.data(), box, 4), on_device(1, box, 4), region);
  std::vector<int32_t> whole(4096, 0);
  copy(1, on_host(whole.data(), box, 4), on_device(1, box, 4, 1 << 20), box);
  EXPECT_EQ(dst, expected);
  EXPECT_EQ(whole, src);
  std::printf("peer access pairs: %zu\n", platform_->peer_pairs().size());
}

TEST_F(CudaDeviceTest, HostJobsSeeTheRegionAndWriteItBack) {
  const Rect box({0}, {1000}), region({100}, {300});
  std::vector<int32_t> src = iota(1000, 0), dst(1000, 0);
  const auto dev = on_device(0, box, 4);
  copy(0, dev, on_host(src.data(), box, 4), box);
  Waiter w;
  devices_[0]->run_on_host(
      {{dev, region, true, true}},
      [&](const std::vector<worker::BoxBuffer>& b) {
        EXPECT_EQ(b[0].box, region);
        auto* v = static_cast<int32_t*>(b[0].data);
        for (int i = 0; i < 200; ++i) v[i] = -v[i];
      },
      w.done());
  w.wait();
  copy(0, on_host(dst.data(), box, 4), dev, box);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(dst[i], i >= 100 && i < 300 ? -i : i) << i;
}

// Fills of regions that are one run of bytes stay on the GPU (memsets, or an element doubled
// by device-to-device copies), others go through host memory: every element size, aligned or
// not, every kind of region, against worker::fill_region on the host.
TEST_F(CudaDeviceTest, FillsOnTheGpuLikeTheHost) {
  struct Case {
    Rect box, region;
    size_t elem;
    uint64_t offset;  // into the pool: 2 puts 4- and 8-byte elements off their alignment
  };
  const Case cases[] = {
      {Rect({0}, {1000}), Rect({0}, {1000}), 4, 0},             // whole, memset of 32 bits
      {Rect({0}, {1000}), Rect({100}, {357}), 4, 0},            // a run
      {Rect({0}, {1000}), Rect({3}, {999}), 2, 0},              // 16 bits
      {Rect({0}, {1000}), Rect({1}, {998}), 1, 0},              // bytes
      {Rect({0}, {1000}), Rect({5}, {777}), 8, 0},              // doubled copies
      {Rect({0}, {333}), Rect({0}, {333}), 16, 0},              // doubled, odd count
      {Rect({0}, {1000}), Rect({7}, {901}), 4, 2},              // 32 bits, misaligned
      {Rect({0}, {1000}), Rect({0}, {1}), 8, 0},                // one element
      {Rect({0, 0}, {20, 30}), Rect({4, 0}, {9, 30}), 4, 0},    // full rows: one run
      {Rect({0, 0}, {20, 30}), Rect({4, 3}, {9, 17}), 8, 0},    // a 2-D block: through the host
      {Rect({2, 0}, {20, 30}), Rect({2, 0}, {20, 30}), 12, 0},  // 12-byte elements, whole
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.region.to_string() + " of " + c.box.to_string() + ", " + std::to_string(c.elem) +
                 "-byte elements at +" + std::to_string(c.offset));
    const size_t bytes = static_cast<size_t>(c.box.volume()) * c.elem;
    std::vector<uint8_t> initial(bytes), got(bytes, 0), value(c.elem);
    for (size_t i = 0; i < bytes; ++i) initial[i] = static_cast<uint8_t>(i * 7 + 1);
    for (size_t i = 0; i < c.elem; ++i) value[i] = static_cast<uint8_t>(0x31 + 17 * i);
    std::vector<uint8_t> expected = initial;
    worker::fill_region({expected.data(), c.box, c.elem}, c.region, value.data());
    const PlacedBuffer dev = on_device(0, c.box, c.elem, c.offset);
    copy(0, dev, on_host(initial.data(), c.box, c.elem), c.box);
    Waiter w;
    devices_[0]->fill(dev, c.region, value, w.done());
    w.wait();
    copy(0, on_host(got.data(), c.box, c.elem), dev, c.box);
    EXPECT_EQ(got, expected);
  }
  // A value whose bytes are all one byte (zeros) fills by bytes whatever its size.
  const Rect box({0}, {4096});
  std::vector<double> initial(4096, 2.5), got(4096, 1.0);
  const PlacedBuffer dev = on_device(0, box, 8);
  copy(0, dev, on_host(initial.data(), box, 8), box);
  Waiter w;
  devices_[0]->fill(dev, Rect({10}, {4000}), std::vector<uint8_t>(8, 0), w.done());
  w.wait();
  copy(0, on_host(got.data(), box, 8), dev, box);
  for (int i = 0; i < 4096; ++i) EXPECT_EQ(got[i], i >= 10 && i < 4000 ? 0.0 : 2.5) << i;
}

// Writes a rank-1 handle's 32 bytes (a RawArrayHandle is larger: it has room for rank 3).
void patch(std::vector<uint8_t>& functor, size_t offset, void* data, int64_t lo, int64_t n) {
  const int64_t fields[3] = {lo, 1, n};  // offset, stride, extent
  std::memcpy(functor.data() + offset, &data, sizeof data);
  std::memcpy(functor.data() + offset + sizeof data, fields, sizeof fields);
}

TEST_F(CudaDeviceTest, LaunchesAKernelOverASuperblockWithGlobalIndices) {
  const int64_t n = 1 << 20, lo = 1000, hi = n - 1000;
  static const KernelInfo info = axpy_info();
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) x[i] = float(i % 97), y[i] = float(i % 13);
  // Chunks [lo, hi) of x and y at two places of the pool.
  const Rect chunk({lo}, {hi});
  const auto dx = on_device(0, chunk, 4), dy = on_device(0, chunk, 4, 8 << 20);
  copy(0, dx, on_host(x.data(), Rect({0}, {n}), 4), chunk);
  copy(0, dy, on_host(y.data(), Rect({0}, {n}), 4), chunk);
  Axpy f{};
  f.a = 2.5f;
  KernelRun run{&info, "axpy", std::vector<uint8_t>(sizeof f), Rect({lo + 5}, {hi - 5}), nullptr,
                {},    nullptr};
  std::memcpy(run.functor.data(), &f, sizeof f);
  patch(run.functor, offsetof(Axpy, x), dx.data, lo, n);
  patch(run.functor, offsetof(Axpy, y), dy.data, lo, n);
  Waiter w;
  devices_[0]->launch(std::move(run), w.done());
  w.wait();
  std::vector<float> out(n, 0);
  copy(0, on_host(out.data(), Rect({0}, {n}), 4), dy, chunk);
  for (int64_t i = lo; i < hi; ++i) {
    const float want = i >= lo + 5 && i < hi - 5 ? 2.5f * x[i] + y[i] : y[i];
    ASSERT_EQ(out[i], want) << i;
  }
}

// The process's WaitPolicy sees the GPU at work from a launch's issue to its report, so that
// the threads waiting for it poll meanwhile, and idle once it is reported; copies do not count.
TEST_F(CudaDeviceTest, EveryLaunchCountsAsGpuWorkUntilItIsReported) {
  const int64_t n = 1 << 16;
  static const KernelInfo info = axpy_info();
  std::vector<float> x(n, 1.0f);
  const Rect box({0}, {n});
  const auto dx = on_device(0, box, 4), dy = on_device(0, box, 4, 8 << 20);
  std::promise<int64_t> during_copy;
  devices_[0]->copy(dx, on_host(x.data(), box, 4), box, [&](std::exception_ptr, OpSpan) {
    during_copy.set_value(wait_.gpu_operations());
  });
  EXPECT_EQ(during_copy.get_future().get(), 0);
  copy(0, dy, on_host(x.data(), box, 4), box);
  Axpy f{};
  f.a = 1.0f;
  KernelRun run{&info, "axpy", std::vector<uint8_t>(sizeof f), box, nullptr, {}, nullptr};
  std::memcpy(run.functor.data(), &f, sizeof f);
  patch(run.functor, offsetof(Axpy, x), dx.data, 0, n);
  patch(run.functor, offsetof(Axpy, y), dy.data, 0, n);
  std::promise<int64_t> during_launch;
  devices_[0]->launch(std::move(run), [&](std::exception_ptr e, OpSpan) {
    during_launch.set_value(e ? -1 : wait_.gpu_operations());
  });
  EXPECT_GE(during_launch.get_future().get(), 1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (wait_.gpu_operations() != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  EXPECT_EQ(wait_.gpu_operations(), 0);
}

TEST_F(CudaDeviceTest, ReductionsJoinThePerBlockPartialsIntoThePartialChunk) {
  const int64_t n = 3'000'001;
  static const KernelInfo info = sum_info();
  std::vector<double> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = double(i % 1000);
  const Rect all({0}, {n});
  const auto dx = on_device(0, all, 8);
  copy(0, dx, on_host(x.data(), all, 8), all);
  // Three reductions issued back to back over shrinking boxes into three partials: each
  // last block leaves the count of blocks done at zero for the next.
  std::vector<PlacedBuffer> partials;
  std::vector<Waiter> waiters(3);
  for (int k = 0; k < 3; ++k) {
    partials.push_back(on_device(0, Rect(Point{}, Point{}), 8, (32 << 20) + 256 * k));
    KernelRun run{&info,
                  "sum",
                  std::vector<uint8_t>(sizeof(Sum)),
                  Rect({10 + k}, {n - 100'000 * k}),
                  partials.back().data,
                  *info.reduction,
                  nullptr};
    patch(run.functor, offsetof(Sum, x), dx.data, 0, n);
    devices_[0]->launch(std::move(run), waiters[k].done());
  }
  for (int k = 0; k < 3; ++k) {
    waiters[k].wait();
    double value = -1;
    copy(0, on_host(&value, partials[k].box, 8), partials[k], partials[k].box);
    double want = 0;
    for (int64_t i = 10 + k; i < n - 100'000 * k; ++i) want += x[i];
    EXPECT_EQ(value, want) << "reduction " << k;  // integers: exact in any order
  }
}

// A read of a reduction's partial issued right behind its launch, without waiting for it:
// the job sees the value the kernel wrote. Behind a failed launch (its flag set) the job does
// not run and the read fails as skipped.
TEST_F(CudaDeviceTest, HostJobsBehindLaunchesSeeWhatTheLaunchesWrote) {
  const int64_t n = 2'000'003;
  static const KernelInfo info = sum_info();
  std::vector<double> x(n, 2.0);
  const Rect all({0}, {n});
  const auto dx = on_device(0, all, 8);
  copy(0, dx, on_host(x.data(), all, 8), all);
  const auto partial = on_device(0, Rect(Point{}, Point{}), 8, 32 << 20);
  auto failed = std::make_shared<std::atomic<bool>>(false);
  for (bool fails : {false, true}) {
    KernelRun run{&info,           "sum",  std::vector<uint8_t>(sizeof(Sum)), all, partial.data,
                  *info.reduction, nullptr};
    patch(run.functor, offsetof(Sum, x), dx.data, 0, n);
    Waiter launched, read;
    devices_[0]->launch(std::move(run), launched.done());
    failed->store(fails);
    double value = -1;
    bool ran = false;
    devices_[0]->run_on_host_behind_launches(
        {{partial, partial.box, true, false},
         {on_host(&value, partial.box, 8), partial.box, true, true}},
        [&](const std::vector<worker::BoxBuffer>& b) {
          ran = true;
          value = *static_cast<const double*>(b[0].data);
        },
        {failed}, read.done());
    launched.wait();
    if (!fails) {
      read.wait();
      EXPECT_TRUE(ran);
      EXPECT_EQ(value, 2.0 * double(n));
    } else {
      EXPECT_THROW(read.wait(), worker::SkippedBehindFailure);
      EXPECT_FALSE(ran);
      EXPECT_EQ(value, -1);
    }
  }
}

// The first reductions on the second GPU: their completion events are new, and must still
// belong to the device's context (they did not: cuEventRecord failed with an invalid handle).
TEST_F(CudaDeviceTest, ReductionsOnTheSecondGpu) {
  if (devices_.size() < 2) GTEST_SKIP() << "one GPU";
  static const KernelInfo info = sum_info();
  for (int64_t n : {1'000'003, 2'000'003, 3'000'001}) {
    std::vector<double> x(n, 1.0);
    const Rect all({0}, {n});
    const auto dx = on_device(1, all, 8);
    copy(1, dx, on_host(x.data(), all, 8), all);
    const auto partial = on_device(1, Rect(Point{}, Point{}), 8, 32 << 20);
    KernelRun run{&info,           "sum",  std::vector<uint8_t>(sizeof(Sum)), all, partial.data,
                  *info.reduction, nullptr};
    patch(run.functor, offsetof(Sum, x), dx.data, 0, n);
    Waiter w;
    devices_[1]->launch(std::move(run), w.done());
    w.wait();
    double value = -1;
    copy(1, on_host(&value, partial.box, 8), partial, partial.box);
    EXPECT_EQ(value, double(n));
  }
}

// The device reports the driver's error as it is; the worker names the superblock.
TEST_F(CudaDeviceTest, AKernelWithoutImageFailsWithTheDriversErrorNamingTheKernel) {
  static KernelInfo info = axpy_info();
  info.name = "missing";  // no entry "missing_entry" in the module
  KernelRun run{&info, "missing", std::vector<uint8_t>(sizeof(Axpy)), Rect({0}, {10}), nullptr,
                {},    nullptr};
  Waiter w;
  devices_[0]->launch(std::move(run), w.done());
  try {
    w.wait();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCuda);
    ASSERT_FALSE(e.context().empty()) << e.what();
    EXPECT_NE(e.context().front().find("while loading kernel 'missing'"), std::string::npos)
        << e.what();
    EXPECT_NE(e.message().find("cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lightning::cuda
