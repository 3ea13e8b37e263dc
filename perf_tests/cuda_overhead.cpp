// What the runtime costs on one GPU: the stencil and saxpy through lightning_kokkos (Driver,
// planner, worker, CUDA device) against the same kernels launched directly with the driver
// API (the same cubin from the JIT, no lightning; four launch shapes, see DirectTimes), at a
// size that fills much of the GPU. Prints one JSON object: overhead_percent is
// runtime_s / direct_s - 1 with direct_s the best direct time; overhead_vs_same_launches_percent
// compares with the direct launches the runtime makes (one per superblock, same grids).
//   cuda_overhead [--n=ELEMENTS] [--chunks=C] [--iterations=K] [--repeats=R]
//                 [--only=stencil|saxpy] [--lightning-<key>=<value> ...]
// Each kernel is timed R times (default 2) directly and through the runtime, alternately;
// the best time of each is reported.
// The runtime runs on the devices the configuration selects (default: every GPU; use
// --lightning-devices=cuda:0 for one).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_context.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "backend/cuda/jit_cache.hpp"
#include "backend/cuda/kernel_codegen.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "driver/driver.hpp"
#include "kernel/kernel_registry.hpp"
#include "kernel/native_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/launch_box.hpp"

namespace {

using namespace lightning;
using annotation::KernelSignature;
using kernel::KernelRegistry;

// The host's functor and the same operator as GPU source: one body for both.
#define LIGHTNING_BENCH_BODY(...)         \
  __VA_ARGS__                             \
  static constexpr const char* source() { \
    return #__VA_ARGS__;                  \
  }

struct Init {
  ArrayHandle<float, 1> a;
  LIGHTNING_BENCH_BODY(void operator()(const int64_t i) const { a(i) = float(i % 13); })
};
struct Stencil {
  ArrayHandle<const float, 1> in;
  ArrayHandle<float, 1> out;
  LIGHTNING_BENCH_BODY(void operator()(const int64_t i)
                           const { out(i) = in(i - 1) + in(i) + in(i + 1); })
};
struct Saxpy {
  ArrayHandle<const float, 1> x;
  ArrayHandle<float, 1> y;
  float a;
  LIGHTNING_BENCH_BODY(void operator()(const int64_t i) const { y(i) = a * x(i) + y(i); })
};

template <class F, int Rank>
KernelId add(const char* name, const char* annotation, KernelSignature signature,
             std::vector<kernel::ArraySlot> arrays, std::vector<size_t> offsets) {
  kernel::KernelInfo info =
      kernel::native_kernel<F, Rank>(name, annotation, std::move(signature), std::move(arrays));
  info.device.kind = kernel::DeviceCodeKind::kFunctorBody;
  info.device.source = F::source();
  info.device.param_offsets = std::move(offsets);
  info.device.index_rank = Rank;
  return KernelRegistry::add(std::move(info));
}

const KernelId kInit = add<Init, 1>("bench::init", "global i => write a[i]",
                                    KernelSignature().add_array("a", DataType::kFloat32, 1),
                                    {{0, offsetof(Init, a), 1}}, {offsetof(Init, a)});
const KernelId kStencil =
    add<Stencil, 1>("bench::stencil", "global i => read in[i-1:i+1], write out[i]",
                    KernelSignature()
                        .add_array("in", DataType::kFloat32, 1)
                        .add_array("out", DataType::kFloat32, 1),
                    {{0, offsetof(Stencil, in), 1}, {1, offsetof(Stencil, out), 1}},
                    {offsetof(Stencil, in), offsetof(Stencil, out)});
const KernelId kSaxpy = add<Saxpy, 1>("bench::saxpy", "global i => read x[i], readwrite y[i]",
                                      KernelSignature()
                                          .add_array("x", DataType::kFloat32, 1)
                                          .add_array("y", DataType::kFloat32, 1)
                                          .add_scalar("a", DataType::kFloat32),
                                      {{0, offsetof(Saxpy, x), 1}, {1, offsetof(Saxpy, y), 1}},
                                      {offsetof(Saxpy, x), offsetof(Saxpy, y), offsetof(Saxpy, a)});

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Options {
  int64_t n = int64_t{1} << 33;
  int64_t chunks = 8;
  int iterations = 20;
  int repeats = 2;   ///< direct and runtime measured alternately this many times, best kept
  std::string only;  ///< "stencil" or "saxpy": that kernel alone
};

// Through the runtime: arrays in `chunks` chunks (the stencil's with a halo of one),
// superblocks like the chunks; a warm-up launch (JIT, module load) before timing.
double through_runtime(const Config& config, const Options& o, bool stencil) {
  driver::Driver d(config, 1);
  const int64_t n = o.n, c = (o.n + o.chunks - 1) / o.chunks;
  const DataDistribution layout = stencil ? dist::stencil(c, 1) : dist::block(c);
  const ArrayId a = d.create_array("a", DataType::kFloat32, Point{n}, layout);
  const ArrayId b = d.create_array("b", DataType::kFloat32, Point{n}, layout);
  auto launch = [&](KernelId k, const void* f, std::vector<ArrayId> arrays, Rect domain) {
    driver::Launch l;
    l.kernel = k;
    l.functor = f;
    l.arrays = std::move(arrays);
    l.domain = domain;
    l.work = work::block(c);
    d.launch(l);
  };
  const Init init{};
  launch(kInit, &init, {a}, Rect(Point{0}, Point{n}));
  launch(kInit, &init, {b}, Rect(Point{0}, Point{n}));
  Stencil st{};
  Saxpy sx{};
  sx.a = 0.5f;
  auto step = [&](int it) {
    if (stencil)
      launch(kStencil, &st, it % 2 ? std::vector<ArrayId>{b, a} : std::vector<ArrayId>{a, b},
             Rect(Point{1}, Point{n - 1}));
    else
      launch(kSaxpy, &sx, {a, b, ArrayId()}, Rect(Point{0}, Point{n}));
  };
  step(1);  // warm-up: compiles and loads the kernel
  d.fence();
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < o.iterations; ++it) step(it);
  d.fence();
  const double s = seconds_since(t0);
  float probe[4] = {};
  d.read(stencil ? a : b, Rect(Point{n / 2}, Point{n / 2 + 4}), probe);
  std::fprintf(stderr, "runtime %s: %.6f s, probe %g\n", stencil ? "stencil" : "saxpy", s,
               double(probe[0]));
  d.delete_array(a);
  d.delete_array(b);
  d.fence();
  return s;
}

// Times of the direct launches: per iteration one launch over the whole domain, or one per
// superblock as the runtime makes them; with the runtime's grid sizes (cuda::grid_blocks) or
// grids of 32 blocks per SM (each thread loops, grid-stride).
// Also one launch per superblock with grids of one kth of the indices (each thread k indices,
// grid-stride), k = 1, 2, 8 (the runtime's grids give large superblocks 4).
struct DirectTimes {
  double whole = 0, partitioned = 0, whole_capped = 0, partitioned_capped = 0;
  double partitioned_k[3] = {0, 0, 0};
  double best() const {
    double b = std::min(std::min(whole, partitioned), std::min(whole_capped, partitioned_capped));
    for (double k : partitioned_k) b = std::min(b, k);
    return b;
  }
};

// Directly: the same cubin, two cuMemAlloc buffers, one stream, no lightning.
DirectTimes direct(const cuda::GpuInfo& gpu, cuda::JitCache& images, const Options& o,
                   bool stencil) {
  cuda::GpuContext context(gpu);
  context.make_current();
  const cuda::DriverApi& api = context.api();
  const int64_t n = o.n;
  CUdeviceptr a = 0, b = 0;
  api.check(api.cuMemAlloc(&a, uint64_t(n) * 4), "cuMemAlloc");
  api.check(api.cuMemAlloc(&b, uint64_t(n) * 4), "cuMemAlloc");
  CUstream stream = nullptr;
  api.check(api.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  std::vector<CUmodule> modules;
  // The kernel's entry points: the general one, and the one-index-per-thread entry the
  // runtime launches when the grid covers the superblock.
  struct Entries {
    CUfunction general = nullptr, cover = nullptr;
  };
  auto function = [&](KernelId k) {
    const auto& image = images.image(KernelRegistry::get(k), gpu.compute_major, gpu.compute_minor,
                                     cuda::KernelSpecialization{});
    CUmodule m = nullptr;
    api.check(api.cuModuleLoadData(&m, image.cubin.data()), "cuModuleLoadData");
    modules.push_back(m);
    Entries e;
    api.check(api.cuModuleGetFunction(&e.general, m, image.entry.c_str()), "cuModuleGetFunction");
    api.check(api.cuModuleGetFunction(&e.cover, m, cuda::kCoverEntryName), "cuModuleGetFunction");
    return e;
  };
  // A handle over a whole buffer: offset 0, stride 1, extent n.
  auto handle = [&](auto& h, CUdeviceptr p) {
    h.data = reinterpret_cast<typename std::remove_reference_t<decltype(h)>::value_type*>(p);
    h.offset = 0;
    h.stride[0] = 1;
    h.extent[0] = n;
  };
  int64_t cap = 0;         // 0: the runtime's grid sizes
  int64_t per_thread = 0;  // > 0: a grid of one per_thread-th of the indices
  auto run = [&](const Entries& e, void* functor, int64_t lo, int64_t hi) {
    jit::LaunchBox box{{lo, 0, 0}, {hi, 1, 1}, 1};
    void* partials = nullptr;
    void* params[] = {functor, &box, &partials};
    const int64_t blocks =
        cap > 0 ? std::min((hi - lo + cuda::kBlockThreads - 1) / cuda::kBlockThreads, cap)
        : per_thread > 0
            ? (hi - lo + cuda::kBlockThreads * per_thread - 1) / (cuda::kBlockThreads * per_thread)
            : cuda::grid_blocks(hi - lo, false, gpu.multiprocessors);
    const CUfunction f = blocks * cuda::kBlockThreads >= hi - lo ? e.cover : e.general;
    api.check(api.cuLaunchKernel(f, unsigned(blocks), 1, 1, cuda::kBlockThreads, 1, 1, 0, stream,
                                 params, nullptr),
              "cuLaunchKernel");
  };
  const Entries init = function(kInit);
  for (CUdeviceptr p : {a, b}) {
    Init f{};
    handle(f.a, p);
    run(init, &f, 0, n);
  }
  const Entries kernel = function(stencil ? kStencil : kSaxpy);
  Stencil st{};
  Saxpy sx{};
  sx.a = 0.5f;
  const int64_t c = (n + o.chunks - 1) / o.chunks;
  bool partitioned = false;
  auto launch_over = [&](const Entries& f, void* functor, int64_t lo, int64_t hi) {
    if (!partitioned) return run(f, functor, lo, hi);
    for (int64_t s = 0; s < o.chunks; ++s)
      if (std::max(lo, s * c) < std::min(hi, (s + 1) * c))
        run(f, functor, std::max(lo, s * c), std::min(hi, (s + 1) * c));
  };
  auto step = [&](int it) {
    if (stencil) {
      handle(st.in, it % 2 ? b : a);
      handle(st.out, it % 2 ? a : b);
      launch_over(kernel, &st, 1, n - 1);
    } else {
      handle(sx.x, a);
      handle(sx.y, b);
      launch_over(kernel, &sx, 0, n);
    }
  };
  auto timed = [&](bool parts, int64_t grid_cap) {
    partitioned = parts;
    cap = grid_cap;
    step(1);  // warm-up, as through the runtime
    api.check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < o.iterations; ++it) step(it);
    api.check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");
    return seconds_since(t0);
  };
  DirectTimes t;
  const int64_t capped = int64_t{32} * gpu.multiprocessors;
  t.whole = timed(false, 0);
  t.partitioned = timed(true, 0);
  t.whole_capped = timed(false, capped);
  t.partitioned_capped = timed(true, capped);
  const int64_t ks[3] = {1, 2, 8};
  for (int k = 0; k < 3; ++k) {
    per_thread = ks[k];
    t.partitioned_k[k] = timed(true, 0);
  }
  per_thread = 0;
  std::fprintf(stderr,
               "direct %s: %.6f s (per superblock %.6f s; capped grids %.6f s, %.6f s; per "
               "superblock, 1/2/8 indices per thread %.6f s, %.6f s, %.6f s)\n",
               stencil ? "stencil" : "saxpy", t.whole, t.partitioned, t.whole_capped,
               t.partitioned_capped, t.partitioned_k[0], t.partitioned_k[1], t.partitioned_k[2]);
  for (CUmodule m : modules) api.cuModuleUnload(m);
  api.cuStreamDestroy(stream);
  api.cuMemFree(a);
  api.cuMemFree(b);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Config config = Config::load_from_process(&argc, argv);
    Options o;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto value = [&](const char* key) -> const char* {
        const std::string prefix = std::string("--") + key + "=";
        return arg.rfind(prefix, 0) == 0 ? argv[i] + prefix.size() : nullptr;
      };
      if (const char* v = value("n"))
        o.n = std::atoll(v);
      else if (const char* v2 = value("chunks"))
        o.chunks = std::atoll(v2);
      else if (const char* v3 = value("iterations"))
        o.iterations = std::atoi(v3);
      else if (const char* v4 = value("only"))
        o.only = v4;
      else if (const char* v5 = value("repeats"))
        o.repeats = std::atoi(v5);
      else
        throw lightning::Error(lightning::ErrorKind::kConfig, "unknown argument '" + arg + "'");
    }
    const auto gpus = cuda::select_gpus(config.devices, cuda::discover_gpus());
    if (gpus.empty()) {
      std::fprintf(stderr, "cuda_overhead: no GPU (%s)\n",
                   cuda::DriverApi::unavailable_reason().c_str());
      return 77;
    }
    cuda::JitCache images("");
    std::printf(
        "{\n  \"gpu\": \"%s\",\n  \"gpus_used_by_runtime\": %zu,\n  \"elements\": %lld,\n"
        "  \"chunks\": %lld,\n  \"iterations\": %d,\n  \"repeats\": %d,\n"
        "  \"staging_limit\": %llu,\n  \"check_access\": %s,\n"
        "  \"kernels\": [\n",
        gpus[0].name.c_str(), gpus.size(), static_cast<long long>(o.n),
        static_cast<long long>(o.chunks), o.iterations, o.repeats,
        static_cast<unsigned long long>(config.staging_limit),
        config.check_access ? "true" : "false");
    for (bool stencil : {true, false}) {
      if (!o.only.empty() && o.only != (stencil ? "stencil" : "saxpy")) continue;
      // Alternately (a slow drift of the GPU, e.g. its clocks, then favours neither side);
      // the best time of each shape over the repeats.
      DirectTimes t;
      double r = 0;
      for (int rep = 0; rep < std::max(1, o.repeats); ++rep) {
        const DirectTimes tr = direct(gpus[0], images, o, stencil);
        const double rr = through_runtime(config, o, stencil);
        auto keep = [&](double& best, double v) { best = rep == 0 ? v : std::min(best, v); };
        keep(t.whole, tr.whole);
        keep(t.partitioned, tr.partitioned);
        keep(t.whole_capped, tr.whole_capped);
        keep(t.partitioned_capped, tr.partitioned_capped);
        for (int k = 0; k < 3; ++k) keep(t.partitioned_k[k], tr.partitioned_k[k]);
        keep(r, rr);
      }
      const double d = t.best();
      const double bytes = double(o.n) * 4 * (stencil ? 2 : 3) * o.iterations;  // ideal traffic
      std::printf(
          "    {\"name\": \"%s\", \"direct_s\": %.6f, \"runtime_s\": %.6f, "
          "\"overhead_percent\": %.2f, \"overhead_vs_same_launches_percent\": %.2f, "
          "\"direct_GBps\": %.1f, \"runtime_GBps\": %.1f, "
          "\"direct_whole_s\": %.6f, \"direct_per_superblock_s\": %.6f, "
          "\"direct_whole_capped_grid_s\": %.6f, "
          "\"direct_per_superblock_capped_grid_s\": %.6f, "
          "\"direct_per_superblock_1_2_8_indices_per_thread_s\": [%.6f, %.6f, %.6f]}%s\n",
          stencil ? "stencil" : "saxpy", d, r, (r / d - 1) * 100, (r / t.partitioned - 1) * 100,
          bytes / d / 1e9, bytes / r / 1e9, t.whole, t.partitioned, t.whole_capped,
          t.partitioned_capped, t.partitioned_k[0], t.partitioned_k[1], t.partitioned_k[2],
          stencil && o.only.empty() ? "," : "");
    }
    std::printf("  ]\n}\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_overhead: %s\n", e.what());
    return 1;
  }
}
