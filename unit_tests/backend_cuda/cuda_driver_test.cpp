// The whole runtime on GPUs: kernels with GPU source (generated, compiled by the JIT and
// launched by the CUDA devices), halo exchanges between GPUs (peer copies), strided copies
// of column chunks, fills, host reads and writes, several workers (messages packed from GPU
// memory), eviction to host memory and spilling to disk. Each scenario runs on emulated host
// devices and on GPUs; the results must be equal (and equal to a sequential reference).
// Exits 77 (skipped) on machines without a CUDA driver.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "core/error.hpp"
#include "driver/driver.hpp"
#include "kernel/kernel_registry.hpp"
#include "kernel/native_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::cuda {
namespace {

using annotation::KernelSignature;
using kernel::KernelRegistry;
using kernel::native_kernel;

// The host's functor and the same operator as GPU source: one body for both.
#define LIGHTNING_TEST_BODY(...)          \
  __VA_ARGS__                             \
  static constexpr const char* source() { \
    return #__VA_ARGS__;                  \
  }

struct Stencil {
  ArrayHandle<const double, 1> in;
  ArrayHandle<double, 1> out;
  LIGHTNING_TEST_BODY(void operator()(const int64_t i)
                          const { out(i) = in(i - 1) + in(i) + in(i + 1); })
};

struct ColumnSmooth {
  ArrayHandle<const double, 2> A;
  ArrayHandle<double, 2> B;
  LIGHTNING_TEST_BODY(void operator()(const int64_t i, const int64_t j)
                          const { B(i, j) = A(i, j - 1) + 2 * A(i, j) + A(i, j + 1); })
};

struct Saxpy {
  ArrayHandle<const float, 1> x;
  ArrayHandle<float, 1> y;
  float a;
  LIGHTNING_TEST_BODY(void operator()(const int64_t i) const { y(i) = a * x(i) + y(i); })
};

struct Dot {
  ArrayHandle<const double, 1> a;
  ArrayHandle<const double, 1> b;
  LIGHTNING_TEST_BODY(void operator()(const int64_t i, double& acc) const { acc += a(i) * b(i); })
};

template <class F>
kernel::KernelInfo with_gpu_source(kernel::KernelInfo info, std::vector<size_t> offsets, int rank) {
  info.device.kind = kernel::DeviceCodeKind::kFunctorBody;
  info.device.source = F::source();
  info.device.param_offsets = std::move(offsets);
  info.device.index_rank = rank;
  return info;
}

const KernelId kStencil = KernelRegistry::add(with_gpu_source<Stencil>(
    native_kernel<Stencil, 1>("cuda_test::stencil", "global i => read in[i-1:i+1], write out[i]",
                              KernelSignature()
                                  .add_array("in", DataType::kFloat64, 1)
                                  .add_array("out", DataType::kFloat64, 1),
                              {{0, offsetof(Stencil, in), 1}, {1, offsetof(Stencil, out), 1}}),
    {offsetof(Stencil, in), offsetof(Stencil, out)}, 1));

const KernelId kColumnSmooth = KernelRegistry::add(with_gpu_source<ColumnSmooth>(
    native_kernel<ColumnSmooth, 2>(
        "cuda_test::column_smooth", "global [i, j] => read A[i, j-1:j+1], write B[i, j]",
        KernelSignature()
            .add_array("A", DataType::kFloat64, 2)
            .add_array("B", DataType::kFloat64, 2),
        {{0, offsetof(ColumnSmooth, A), 2}, {1, offsetof(ColumnSmooth, B), 2}}),
    {offsetof(ColumnSmooth, A), offsetof(ColumnSmooth, B)}, 2));

const KernelId kSaxpy = KernelRegistry::add(with_gpu_source<Saxpy>(
    native_kernel<Saxpy, 1>("cuda_test::saxpy", "global i => read x[i], readwrite y[i]",
                            KernelSignature()
                                .add_array("x", DataType::kFloat32, 1)
                                .add_array("y", DataType::kFloat32, 1)
                                .add_scalar("a", DataType::kFloat32),
                            {{0, offsetof(Saxpy, x), 1}, {1, offsetof(Saxpy, y), 1}}),
    {offsetof(Saxpy, x), offsetof(Saxpy, y), offsetof(Saxpy, a)}, 1));

const KernelId kDot = KernelRegistry::add(
    with_gpu_source<Dot>(kernel::native_reduce_kernel<Dot, 1, double>(
                             "cuda_test::dot", "global i => read a[i], read b[i]",
                             KernelSignature()
                                 .add_array("a", DataType::kFloat64, 1)
                                 .add_array("b", DataType::kFloat64, 1),
                             {{0, offsetof(Dot, a), 1}, {1, offsetof(Dot, b), 1}}),
                         {offsetof(Dot, a), offsetof(Dot, b)}, 1));

struct Shape {
  std::string name;
  std::string devices;  // cuda: every GPU; the host run gets as many emulated devices
  int workers;
  std::optional<uint64_t> device_memory;
  std::optional<uint64_t> host_memory;
};

int device_count(const Shape& s) {
  return static_cast<int>(select_gpus(*DeviceSelection::parse(s.devices), discover_gpus()).size());
}

Config config_of(const Shape& s, bool gpus) {
  Config c;
  c.devices = *DeviceSelection::parse(gpus ? s.devices : "host:" + std::to_string(device_count(s)));
  c.device_memory = s.device_memory;
  c.host_memory = s.host_memory;
  return c;
}

// Runs every scenario on one configuration; returns what was read back.
struct Results {
  std::vector<double> stencil;
  std::vector<double> smooth;
  std::vector<float> saxpy;
  std::vector<double> filled;
  double dot = 0;
};

Results run_all(const Config& config, int workers) {
  driver::Driver d(config, workers);
  Results r;
  {  // The paper's stencil, iterated: halo exchanges between chunks, GPUs and workers.
    const int64_t n = 1 << 20;
    std::vector<double> init(n);
    for (int64_t i = 0; i < n; ++i) init[i] = double((i * 7) % 13);
    const ArrayId a = d.create_array("a", DataType::kFloat64, Point{n}, dist::stencil(n / 8, 1));
    const ArrayId b = d.create_array("b", DataType::kFloat64, Point{n}, dist::stencil(n / 8, 1));
    d.write(a, Rect(Point{0}, Point{n}), init.data());
    d.write(b, Rect(Point{0}, Point{n}), init.data());
    for (int it = 0; it < 6; ++it) {
      Stencil k{};
      driver::Launch l;
      l.kernel = kStencil;
      l.functor = &k;
      l.arrays = it % 2 ? std::vector<ArrayId>{b, a} : std::vector<ArrayId>{a, b};
      l.domain = Rect(Point{1}, Point{n - 1});
      l.work = work::block(n / 8);
      d.launch(l);
    }
    r.stencil.resize(n);
    d.read(a, Rect(Point{0}, Point{n}), r.stencil.data());
    d.delete_array(a);
    d.delete_array(b);
  }
  {  // Column chunks of a 2-D array: halos are strided boxes.
    const int64_t rows = 300, cols = 1024;
    std::vector<double> init(rows * cols);
    for (int64_t i = 0; i < rows * cols; ++i) init[i] = double((i * 5) % 17);
    const ArrayId A =
        d.create_array("A", DataType::kFloat64, Point{rows, cols}, dist::columns(cols / 4));
    const ArrayId B =
        d.create_array("B", DataType::kFloat64, Point{rows, cols}, dist::columns(cols / 4));
    d.write(A, Rect(Point{0, 0}, Point{rows, cols}), init.data());
    const double zero = 0;
    d.fill(B, Rect(Point{0, 0}, Point{rows, cols}), &zero);
    ColumnSmooth k{};
    driver::Launch l;
    l.kernel = kColumnSmooth;
    l.functor = &k;
    l.arrays = {A, B};
    l.domain = Rect(Point{0, 1}, Point{rows, cols - 1});
    l.block_size = Point{1, 64};
    l.work = work::block(1, cols / 4);
    d.launch(l);
    r.smooth.resize(rows * cols);
    d.read(B, Rect(Point{0, 0}, Point{rows, cols}), r.smooth.data());
    d.delete_array(A);
    d.delete_array(B);
  }
  {  // Saxpy with a scalar parameter, and a fill of part of an array.
    const int64_t n = 3'000'000;
    std::vector<float> x(n), y(n);
    for (int64_t i = 0; i < n; ++i) x[i] = float(i % 97), y[i] = float(i % 13);
    const ArrayId X = d.create_array("x", DataType::kFloat32, Point{n}, dist::block(n / 6));
    const ArrayId Y = d.create_array("y", DataType::kFloat32, Point{n}, dist::block(n / 6));
    d.write(X, Rect(Point{0}, Point{n}), x.data());
    d.write(Y, Rect(Point{0}, Point{n}), y.data());
    Saxpy k{};
    k.a = 2.5f;
    driver::Launch l;
    l.kernel = kSaxpy;
    l.functor = &k;
    l.arrays = {X, Y, ArrayId()};
    l.domain = Rect(Point{0}, Point{n});
    l.work = work::block(n / 6);
    d.launch(l);
    r.saxpy.resize(n);
    d.read(Y, Rect(Point{0}, Point{n}), r.saxpy.data());
    const float seven = 7;
    d.fill(X, Rect(Point{n / 3 - 5}, Point{n / 3 + 5}), &seven);
    std::vector<float> part(20);
    d.read(X, Rect(Point{n / 3 - 10}, Point{n / 3 + 10}), part.data());
    r.filled.assign(part.begin(), part.end());
    d.delete_array(X);
    d.delete_array(Y);
  }
  {  // A dot product: per-block partials on each GPU, joined on the host, then folded.
    const int64_t n = 5'000'000;
    std::vector<double> x(n), y(n);
    for (int64_t i = 0; i < n; ++i) x[i] = double(i % 11), y[i] = double((i * 3) % 5) - 2;
    const ArrayId X = d.create_array("x", DataType::kFloat64, Point{n}, dist::block(n / 20));
    const ArrayId Y = d.create_array("y", DataType::kFloat64, Point{n}, dist::block(n / 20));
    d.write(X, Rect(Point{0}, Point{n}), x.data());
    d.write(Y, Rect(Point{0}, Point{n}), y.data());
    Dot k{};
    driver::Launch l;
    l.kernel = kDot;
    l.functor = &k;
    l.arrays = {X, Y};
    l.domain = Rect(Point{0}, Point{n});
    l.work = work::block(n / 20);
    l.result = &r.dot;
    l.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
    d.launch(l);
    d.delete_array(X);
    d.delete_array(Y);
  }
  d.fence();
  for (const auto& m : d.memory_reports()) {
    EXPECT_EQ(m.device_bytes, 0u);
    EXPECT_EQ(m.spill_files, 0u);
    std::printf("  worker: %llu evictions, %llu bytes to disk\n",
                static_cast<unsigned long long>(m.counters.device_evictions),
                static_cast<unsigned long long>(m.counters.bytes_written_to_disk));
  }
  return r;
}

std::vector<double> sequential_stencil(int64_t n, int iterations) {
  std::vector<double> a(n);
  for (int64_t i = 0; i < n; ++i) a[i] = double((i * 7) % 13);
  std::vector<double> b = a;
  for (int it = 0; it < iterations; ++it) {
    for (int64_t i = 1; i + 1 < n; ++i) b[i] = a[i - 1] + a[i] + a[i + 1];
    std::swap(a, b);
  }
  return a;
}

class CudaDriver : public ::testing::TestWithParam<Shape> {};

TEST_P(CudaDriver, GpusComputeWhatHostDevicesCompute) {
  const Shape& s = GetParam();
  if (device_count(s) == 0) GTEST_SKIP() << "no GPU";
  const Results host = run_all(config_of(s, false), s.workers);
  const Results gpu = run_all(config_of(s, true), s.workers);
  EXPECT_EQ(host.stencil, sequential_stencil(1 << 20, 6));
  EXPECT_TRUE(gpu.stencil == host.stencil) << "stencil differs";
  EXPECT_TRUE(gpu.smooth == host.smooth) << "column smoothing differs";
  EXPECT_TRUE(gpu.saxpy == host.saxpy) << "saxpy differs";
  EXPECT_EQ(gpu.filled, host.filled);
  EXPECT_EQ(gpu.dot, host.dot);
  EXPECT_NE(host.dot, 0.0);
  EXPECT_EQ(host.filled[5], 7.0);
  EXPECT_EQ(host.filled[4], double((3'000'000 / 3 - 6) % 97));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaDriver,
    ::testing::Values(Shape{"one_gpu", "cuda:0", 1, std::nullopt, std::nullopt},
                      Shape{"every_gpu", "cuda", 1, std::nullopt, std::nullopt},
                      Shape{"two_workers", "cuda", 2, std::nullopt, std::nullopt},
                      Shape{"evicting_and_spilling", "cuda", 1, uint64_t{6} << 20,
                            uint64_t{24} << 20}),
    [](const auto& p) { return p.param.name; });

TEST(CudaDriverErrors, AKernelWithoutGpuSourceFailsNamingIt) {
  struct Plain {
    ArrayHandle<double, 1> out;
    void operator()(int64_t i) const { out(i) = double(i); }
  };
  static const KernelId plain = KernelRegistry::add(native_kernel<Plain, 1>(
      "cuda_test::plain", "global i => write out[i]",
      KernelSignature().add_array("out", DataType::kFloat64, 1), {{0, offsetof(Plain, out), 1}}));
  Config c;
  c.devices = *DeviceSelection::parse("cuda:0");
  driver::Driver d(c, 1);
  const ArrayId a = d.create_array("a", DataType::kFloat64, Point{1000}, dist::block(500));
  Plain k{};
  driver::Launch l;
  l.kernel = plain;
  l.functor = &k;
  l.arrays = {a};
  l.domain = Rect(Point{0}, Point{1000});
  d.launch(l);
  try {
    d.fence();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("kernel 'cuda_test::plain' failed on superblock"), std::string::npos)
        << e.what();
    EXPECT_NE(e.message().find("it has no GPU source"), std::string::npos) << e.what();
  }
  d.delete_array(a);
}

}  // namespace
}  // namespace lightning::cuda
