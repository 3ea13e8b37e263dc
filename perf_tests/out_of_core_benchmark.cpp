// Out of core: a streamed stencil and a compute-heavy kernel (C = A·B, B small and read by
// every row block) on data 2-3x the device-memory cap, each run twice in one process through
// lightning::Distributed: once in core (the runtime's default device memory, or
// --in-core-memory) and once with --cap per device (out of core), and compared with the time
// the transfers alone would take at the host<->device bandwidth measured in the same run
// (on GPUs: pinned cuMemcpyAsync each way alone and both ways at once; on host devices, whose
// "transfers" are the memory manager's memcpy, the host's one-thread memcpy bandwidth).
// Prints one JSON object (the bounds' formulas are in it); exits 1 when a result differs
// from its in-core run or from the sequential reference.
//
//   out_of_core_benchmark [--cap=64MiB] [--data-ratio=2.5] [--chunk-bytes=B]
//       [--iterations=K] [--stencil-size=N] [--gemm-n=N] [--gemm-rows=M] [--repeats=R]
//       [--transfer-bytes=B] [--in-core-memory=B] [--only=stencil|gemm]
//       [--lightning-<key>=<value> ...]
//
// Sizes follow the cap: the data of each kernel is data-ratio x (cap x devices) unless
// --stencil-size / --gemm-rows give it; chunks are --chunk-bytes (default cap / 32). A run
// is K stencil steps (ping-pong between two arrays) or one C = A·B; the stencil runs out of
// core twice, declaring `write out[i]` ("stencil") and `overwrite out[i]`
// ("stencil_overwrite", against the same in-core run); one warm-up run (JIT,
// steady state of the memories), then the median of R runs, each ended by a fence. The
// memory managers' counters (MemoryReport) give the bytes the runtime moved per run.
// One process only (not under mpirun): each configuration is its own runtime, one after the
// other. The defaults suit host devices (LIGHTNING_DEVICES=host:1: 160 MiB of data against a
// 64 MiB cap); on one 80 GB GPU, e.g. --cap=8GiB --gemm-n=1024 (20 GiB of data per kernel).
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/size_text.hpp"
#include "driver/driver.hpp"
#include "lightning_kokkos/build_config.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"
#include "small_kernels.hpp"
#include "timing.hpp"
#include "worker/memory_manager.hpp"
#if LIGHTNING_HAVE_CUDA
#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/gpu_context.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#endif

namespace bench {

using lightning::Distributed;
using Json = nlohmann::ordered_json;
namespace perf = lightning::perf;
namespace worker = lightning::worker;

/// a(i) = i mod 17: the stencil's start, also on the sequential side.
template <class A>
struct Ramp {
  A a;
  LIGHTNING_KERNEL(
      Ramp, "global i => write a[i]", (a),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const { a(i) = float(i % 17); })
};

/// a(i, j) = (p i + q j) mod m - m / 2: small integers, so every product sum of the GEMM is
/// exact in float in any order.
template <class A>
struct Pattern {
  A a;
  int64_t p = 1, q = 1, m = 7;
  LIGHTNING_KERNEL(
      Pattern, "global [i, j] => write a[i, j]", (a, p, q, m),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, const int64_t j)
          const { a(i, j) = float((p * i + q * j) % m - m / 2); })
};

/// C = A·B, one thread per element of C: K multiply-adds per 4 bytes of C (and of A's row),
/// so a row block of A and C moved over PCIe carries K/4 flops per byte.
struct RowBlockGemm {
  lightning::View<const float**> a, b;
  lightning::View<float**> c;
  int64_t k = 0;
  LIGHTNING_KERNEL(
      RowBlockGemm, "global [i, j] => read a[i, :], read b[:, j], write c[i, j]", (a, b, c, k),
      KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, const int64_t j) const {
        float sum = 0;
        for (int64_t l = 0; l < k; ++l) sum += a(i, l) * b(l, j);
        c(i, j) = sum;
      })
};

float pattern(int64_t p, int64_t q, int64_t m, int64_t i, int64_t j) {
  return float((p * i + q * j) % m - m / 2);
}
// A(i, l) and B(l, j) of the GEMM (one definition for the kernels' launches and the reference).
constexpr int64_t kA[3] = {1, 2, 7}, kB[3] = {3, 1, 5};

/// The stencil's value at `i` after `steps` steps from Ramp over n elements (elements 0 and
/// n - 1 are never written): the steps replayed on the window of radius `steps` around i,
/// whose stale edges do not reach i in that many steps. The same float expression as the
/// kernel's, so the values are bit for bit the kernel's.
float stencil_reference(int64_t n, int64_t i, int64_t steps) {
  const int64_t lo = std::max<int64_t>(0, i - steps), hi = std::min(n, i + steps + 1);
  std::vector<float> x(static_cast<size_t>(hi - lo));
  for (int64_t p = lo; p < hi; ++p) x[size_t(p - lo)] = float(p % 17);
  std::vector<float> y = x;
  for (int64_t s = 0; s < steps; ++s) {
    for (int64_t p = std::max<int64_t>(lo + 1, 1); p + 1 < std::min(hi, n); ++p)
      y[size_t(p - lo)] =
          (x[size_t(p - 1 - lo)] + x[size_t(p - lo)] + x[size_t(p + 1 - lo)]) / 3.0f;
    std::swap(x, y);
  }
  return x[size_t(i - lo)];
}

/// The memory managers' counters that say what moved, summed over the workers.
constexpr std::pair<const char*, uint64_t worker::MemoryCounters::*> kCounters[] = {
    {"bytes_copied", &worker::MemoryCounters::bytes_copied},
    {"write_backs_to_host", &worker::MemoryCounters::write_backs_to_host},
    {"written_back_early", &worker::MemoryCounters::written_back_early},
    {"device_evictions", &worker::MemoryCounters::device_evictions},
    {"host_evictions", &worker::MemoryCounters::host_evictions},
    {"invalidations", &worker::MemoryCounters::invalidations},
    {"fills_skipped", &worker::MemoryCounters::fills_skipped},
    {"partial_fills", &worker::MemoryCounters::partial_fills},
    {"zero_fills", &worker::MemoryCounters::zero_fills},
    {"disk_writes", &worker::MemoryCounters::disk_writes},
    {"bytes_written_to_disk", &worker::MemoryCounters::bytes_written_to_disk},
    {"bytes_read_from_disk", &worker::MemoryCounters::bytes_read_from_disk},
};

worker::MemoryCounters counters_now() {
  worker::MemoryCounters sum;
  for (const auto& report : lightning::detail::runtime().memory_reports())
    for (const auto& [name, field] : kCounters) sum.*field += report.counters.*field;
  return sum;
}

/// Counters per run between two readings.
Json per_run(const worker::MemoryCounters& before, const worker::MemoryCounters& after, int runs) {
  Json j;
  for (const auto& [name, field] : kCounters) j[name] = double(after.*field - before.*field) / runs;
  return j;
}

/// One configuration's figures for one kernel.
struct Measured {
  double seconds = 0;  ///< median of the timed runs
  Json moved;          ///< counters per run
  std::vector<float> result;
  int64_t reference_mismatches = 0;
  std::string first_mismatch;
};

/// One warm-up run, then the median of `repeats` runs, each ended by a fence; the counters
/// over the timed runs.
void time_runs(int repeats, Measured& m, const std::function<void()>& run) {
  run();
  lightning::fence();
  const worker::MemoryCounters before = counters_now();
  m.seconds = perf::median(perf::run_times(
      repeats,
      [&] {
        run();
        lightning::fence();
      },
      /*warm_up=*/false));
  m.moved = per_run(before, counters_now(), repeats);
}

/// Host memory a result is read into (one copy: a GPU's results are gigabytes).
template <class T>
using HostFloats = Kokkos::View<T, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

struct Sizes {
  int64_t stencil_n = 0, stencil_chunk = 0;        ///< elements per array, per chunk
  int64_t gemm_m = 0, gemm_n = 0, gemm_chunk = 0;  ///< rows of A and C, B's edge, rows per chunk
  int iterations = 0, repeats = 0;
};

/// K steps of the stencil `Kernel` (perf_kernels::Stencil or StencilOverwrite).
template <template <class, class> class Kernel>
Measured run_stencil(const Sizes& s) {
  using V = lightning::View<float*>;
  const int64_t n = s.stencil_n;
  V a = lightning::allocate<V>("stencil a", lightning::dist::stencil(s.stencil_chunk, 1), n);
  V b = lightning::allocate<V>("stencil b", lightning::dist::stencil(s.stencil_chunk, 1), n);
  const Distributed space(lightning::work::block(s.stencil_chunk));
  Kokkos::parallel_for("ramp a", Kokkos::RangePolicy<Distributed>(space, 0, n), Ramp<V>{a});
  Kokkos::parallel_for("ramp b", Kokkos::RangePolicy<Distributed>(space, 0, n), Ramp<V>{b});
  Measured m;
  time_runs(s.repeats, m, [&] {
    for (int it = 0; it < s.iterations; ++it) {
      Kokkos::parallel_for("stencil", Kokkos::RangePolicy<Distributed>(space, 1, n - 1),
                           Kernel<V::const_type, V>{a, b});
      std::swap(a, b);
    }
  });
  m.result.resize(static_cast<size_t>(n));
  Kokkos::deep_copy(HostFloats<float*>(m.result.data(), n), a);
  // Against the sequential stencil at the ends, around every tenth chunk boundary and at
  // spread positions.
  const int64_t steps = int64_t(s.repeats + 1) * s.iterations;
  std::vector<int64_t> at = {0, 1, n / 2, n - 2, n - 1};
  for (int64_t c = s.stencil_chunk; c < n; c += 10 * s.stencil_chunk)
    at.insert(at.end(), {c - 1, c});
  for (int64_t k = 1; k < 200; ++k) at.push_back(k * 7919 % n);
  for (int64_t i : at) {
    const float want = stencil_reference(n, i, steps);
    if (m.result[size_t(i)] != want && m.reference_mismatches++ == 0)
      m.first_mismatch = "element " + std::to_string(i) + ": " +
                         std::to_string(m.result[size_t(i)]) + ", sequential " +
                         std::to_string(want);
  }
  return m;
}

Measured run_gemm(const Sizes& s) {
  using V = lightning::View<float**>;
  const int64_t m_rows = s.gemm_m, n = s.gemm_n;
  V a = lightning::allocate<V>("gemm a", lightning::dist::rows(s.gemm_chunk), m_rows, n);
  V b = lightning::allocate<V>("gemm b", lightning::dist::replicated(), n, n);
  V c = lightning::allocate<V>("gemm c", lightning::dist::rows(s.gemm_chunk), m_rows, n);
  using Policy = Kokkos::MDRangePolicy<Distributed, Kokkos::Rank<2>>;
  const Distributed row_blocks(lightning::work::block(0, s.gemm_chunk));
  Kokkos::parallel_for("pattern a", Policy(row_blocks, {0, 0}, {m_rows, n}),
                       Pattern<V>{a, kA[0], kA[1], kA[2]});
  Kokkos::parallel_for("pattern b",
                       Policy(Distributed(lightning::work::block(0, n)), {0, 0}, {n, n}),
                       Pattern<V>{b, kB[0], kB[1], kB[2]});
  Measured m;
  time_runs(s.repeats, m, [&] {
    Kokkos::parallel_for("gemm", Policy(row_blocks, {0, 0}, {m_rows, n}), RowBlockGemm{a, b, c, n});
  });
  m.result.resize(static_cast<size_t>(m_rows * n));
  Kokkos::deep_copy(HostFloats<float**>(m.result.data(), m_rows, n), c);
  // Whole rows against the sequential product: the ends, every tenth chunk's first row and
  // spread rows.
  std::vector<int64_t> rows = {0, m_rows - 1};
  for (int64_t r = 0; r < m_rows; r += 10 * s.gemm_chunk) rows.push_back(r);
  for (int64_t k = 1; k < 16; ++k) rows.push_back(k * 7919 % m_rows);
  std::vector<float> row(static_cast<size_t>(n));
  for (int64_t i : rows) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (int64_t l = 0; l < n; ++l) {
      const float ail = pattern(kA[0], kA[1], kA[2], i, l);
      for (int64_t j = 0; j < n; ++j) row[size_t(j)] += ail * pattern(kB[0], kB[1], kB[2], l, j);
    }
    for (int64_t j = 0; j < n; ++j)
      if (m.result[size_t(i * n + j)] != row[size_t(j)] && m.reference_mismatches++ == 0)
        m.first_mismatch = "C(" + std::to_string(i) + ", " + std::to_string(j) +
                           "): " + std::to_string(m.result[size_t(i * n + j)]) + ", sequential " +
                           std::to_string(row[size_t(j)]);
  }
  return m;
}

/// The runtime of one configuration while the object lives: initialize() with the program's
/// --lightning-* arguments, finalize() at the end.
class Runtime {
 public:
  explicit Runtime(std::vector<std::string> args) : args_(std::move(args)) {
    std::vector<char*> argv = argv_of(args_);
    int argc = static_cast<int>(args_.size());
    lightning::initialize(argc, argv.data());
  }
  ~Runtime() {
    try {
      lightning::finalize();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "out_of_core_benchmark: at finalize: %s\n", e.what());
    }
  }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  /// argv over `args` (argv[0] first), null-terminated.
  static std::vector<char*> argv_of(std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return argv;
  }

 private:
  std::vector<std::string> args_;
};

/// Host<->device copy bandwidth, bytes per second.
struct Transfer {
  std::string measured;  ///< what was copied, in words
  double h2d = 0, d2h = 0;
  /// Each direction while the other runs too (GPUs: separate copy engines, full-duplex
  /// PCIe); 0 where the directions share one copier (host devices).
  double h2d_both = 0, d2h_both = 0;
};

/// Best seconds of five runs of `run` after one warm-up.
double best_of_five(const std::function<void()>& run) {
  const std::vector<double> t = perf::run_times(5, run);
  return *std::min_element(t.begin(), t.end());
}

/// Host devices: their memory manager moves chunks between the device pools and host memory
/// with memcpy on its one staging thread.
Transfer host_memcpy_bandwidth(uint64_t bytes) {
  std::vector<unsigned char> from(bytes, 1), to(bytes, 2);
  const double s = best_of_five([&] { std::memcpy(to.data(), from.data(), bytes); });
  if (to[bytes / 2] != 1) throw std::runtime_error("memcpy measurement: copy did not happen");
  Transfer t;
  t.measured = "host memcpy, one thread (host devices: the memory manager's copies; no PCIe)";
  t.h2d = t.d2h = double(bytes) / s;
  return t;
}

#if LIGHTNING_HAVE_CUDA
/// Pinned host memory to and from `gpu` with cuMemcpyAsync: each direction alone, and both at
/// once on two streams (what overlapped streaming can reach per direction).
Transfer pcie_bandwidth(const lightning::cuda::GpuInfo& gpu, uint64_t bytes) {
  lightning::cuda::GpuContext context(gpu);
  context.make_current();
  const lightning::cuda::DriverApi& api = context.api();
  struct Buffers {
    const lightning::cuda::DriverApi& api;
    CUdeviceptr device[2] = {0, 0};
    void* host[2] = {nullptr, nullptr};
    CUstream stream[2] = {nullptr, nullptr};
    ~Buffers() {
      for (int i = 0; i < 2; ++i) {
        if (stream[i]) api.cuStreamDestroy(stream[i]);
        if (device[i]) api.cuMemFree(device[i]);
        if (host[i]) api.cuMemFreeHost(host[i]);
      }
    }
  } b{api};
  for (int i = 0; i < 2; ++i) {
    api.check(api.cuMemAlloc(&b.device[i], bytes), "cuMemAlloc");
    api.check(api.cuMemHostAlloc(&b.host[i], bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
    std::memset(b.host[i], i, bytes);
    api.check(api.cuStreamCreate(&b.stream[i], CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
  auto in = [&] {
    api.check(api.cuMemcpyAsync(b.device[0], reinterpret_cast<CUdeviceptr>(b.host[0]), bytes,
                                b.stream[0]),
              "cuMemcpyAsync");
  };
  auto out = [&] {
    api.check(api.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(b.host[1]), b.device[1], bytes,
                                b.stream[1]),
              "cuMemcpyAsync");
  };
  auto sync = [&](int i) {
    api.check(api.cuStreamSynchronize(b.stream[i]), "cuStreamSynchronize");
  };
  Transfer t;
  t.measured = "pinned host memory <-> " + gpu.name + " (cuda:" + std::to_string(gpu.ordinal) +
               "), cuMemcpyAsync of " + lightning::format_size(bytes);
  t.h2d = double(bytes) / best_of_five([&] {
            in();
            sync(0);
          });
  t.d2h = double(bytes) / best_of_five([&] {
            out();
            sync(1);
          });
  const double both = best_of_five([&] {
    in();
    out();
    sync(0);
    sync(1);
  });
  t.h2d_both = t.d2h_both = double(bytes) / both;
  return t;
}
#endif

/// Bytes a run must move in (to the devices) and out.
struct Traffic {
  double in = 0, out = 0;
};

/// Seconds `traffic` takes at `t`'s bandwidth: both directions at once where the hardware can
/// (max of the two at the bandwidths measured together), else one after the other.
double transfer_seconds(const Traffic& traffic, const Transfer& t) {
  if (t.h2d_both > 0) return std::max(traffic.in / t.h2d_both, traffic.out / t.d2h_both);
  return traffic.in / t.h2d + traffic.out / t.d2h;
}
double transfer_seconds_one_way_at_a_time(const Traffic& traffic, const Transfer& t) {
  return traffic.in / t.h2d + traffic.out / t.d2h;
}

Json traffic_json(const Traffic& t) {
  return Json{{"in", t.in}, {"out", t.out}};
}

/// One kernel's entry: both runs, the bounds, the comparison.
Json kernel_entry(const char* name, const Measured& in_core, const Measured& out_of_core,
                  const Traffic& streamed, const Traffic& minimum, const Transfer& transfer,
                  double data_bytes, double device_bytes, bool& all_same) {
  const double bound = transfer_seconds(streamed, transfer);
  const double min_bound = transfer_seconds(minimum, transfer);
  const bool equal = in_core.result == out_of_core.result;
  const bool reference = in_core.reference_mismatches == 0 && out_of_core.reference_mismatches == 0;
  all_same = all_same && equal && reference;
  Json j{
      {"kernel", name},
      {"data_bytes", data_bytes},
      {"data_over_device_memory", data_bytes / device_bytes},
      {"in_core_s", in_core.seconds},
      {"out_of_core_s", out_of_core.seconds},
      {"pcie_bound_s", bound},
      {"fraction_of_pcie_bound", bound / out_of_core.seconds},
      {"out_of_core_vs_in_core", in_core.seconds / out_of_core.seconds},
      {"pcie_bound_one_direction_at_a_time_s",
       transfer_seconds_one_way_at_a_time(streamed, transfer)},
      {"pcie_bound_given_cap_s", min_bound},
      {"fraction_of_pcie_bound_given_cap", min_bound / out_of_core.seconds},
      {"bytes_streamed_per_run", traffic_json(streamed)},
      {"bytes_minimum_per_run_given_cap", traffic_json(minimum)},
      {"runtime_moved_per_run", {{"in_core", in_core.moved}, {"out_of_core", out_of_core.moved}}},
      {"same_result", equal && reference},
      {"out_of_core_equals_in_core", equal},
      {"reference_mismatches",
       {{"in_core", in_core.reference_mismatches},
        {"out_of_core", out_of_core.reference_mismatches}}}};
  if (!equal) {
    size_t i = 0;
    const size_t n = std::min(in_core.result.size(), out_of_core.result.size());
    while (i < n && in_core.result[i] == out_of_core.result[i]) ++i;
    std::fprintf(stderr, "%s: out-of-core result differs from the in-core one at element %zu\n",
                 name, i);
  }
  if (in_core.moved["device_evictions"].get<double>() > 0)
    std::fprintf(stderr,
                 "%s: the in-core run evicted chunks (it did not fit): raise --in-core-memory\n",
                 name);
  for (const Measured* m : {&in_core, &out_of_core})
    if (m->reference_mismatches)
      std::fprintf(stderr,
                   "%s: %s run differs from the sequential reference at %lld places, first %s\n",
                   name, m == &in_core ? "in-core" : "out-of-core",
                   static_cast<long long>(m->reference_mismatches), m->first_mismatch.c_str());
  return j;
}

}  // namespace bench

int main(int argc, char* argv[]) {
  using namespace bench;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    // --lightning-* arguments go to both runtimes; the rest are the benchmark's.
    std::vector<std::string> lightning_args = {argv[0]};
    std::vector<char*> own = {argv[0]};
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a.rfind("--lightning-device-memory", 0) == 0)
        throw std::invalid_argument(
            "--lightning-device-memory: give the out-of-core cap as --cap and the in-core "
            "device memory as --in-core-memory");
      if (a.rfind("--lightning-", 0) == 0)
        lightning_args.push_back(a);
      else
        own.push_back(argv[i]);
    }
    std::string cap_text = "64MiB", chunk_text, in_core_text, transfer_text = "256MiB", only;
    double ratio = 2.5;
    Sizes s;
    s.iterations = 4;
    s.repeats = 3;
    s.gemm_n = 32;
    CLI::App app(
        "Out of core: a streamed stencil and a GEMM-like kernel, in core and past the cap.");
    app.add_option("--cap", cap_text, "device memory per device of the out-of-core run");
    app.add_option("--data-ratio", ratio, "each kernel's data over the devices' total cap")
        ->check(CLI::Range(0.1, 100.0));
    app.add_option("--chunk-bytes", chunk_text, "bytes per chunk (default: cap / 32)");
    app.add_option("--iterations", s.iterations, "stencil steps per run")
        ->check(CLI::Range(1, 1000));
    app.add_option("--stencil-size", s.stencil_n,
                   "floats per stencil array (default: from the ratio)")
        ->check(CLI::Range(int64_t{3}, int64_t{1} << 40));
    app.add_option("--gemm-n", s.gemm_n, "columns of A, edge of B (flops per byte moved: n / 4)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
    app.add_option("--gemm-rows", s.gemm_m, "rows of A and C (default: from the ratio)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
    app.add_option("--repeats", s.repeats, "timed runs after the warm-up (median)")
        ->check(CLI::Range(1, 1000));
    app.add_option("--transfer-bytes", transfer_text, "bytes per bandwidth measurement");
    app.add_option("--in-core-memory", in_core_text,
                   "device memory of the in-core run (default: the runtime's)");
    app.add_option("--only", only, "one kernel")->check(CLI::IsMember({"stencil", "gemm"}));
    int own_argc = static_cast<int>(own.size());
    CLI11_PARSE(app, own_argc, own.data());

    auto size_of = [](const std::string& text, const char* option) {
      const auto v = lightning::parse_size_text(text);
      if (!v || *v == 0)
        throw std::invalid_argument(std::string(option) + ": '" + text + "' is not a byte size");
      return *v;
    };
    const uint64_t cap = size_of(cap_text, "--cap");
    const uint64_t chunk_bytes =
        chunk_text.empty() ? cap / 32 : size_of(chunk_text, "--chunk-bytes");
    const uint64_t transfer_bytes = size_of(transfer_text, "--transfer-bytes");
    std::vector<std::string> in_core_args = lightning_args, out_of_core_args = lightning_args;
    if (!in_core_text.empty()) in_core_args.push_back("--lightning-device-memory=" + in_core_text);
    out_of_core_args.push_back("--lightning-device-memory=" + cap_text);

    // The sizes need the device count, which the first runtime tells.
    int devices = 0;
    bool gpus = false, check_access = false;
    auto first_use = [&] {
      if (devices) return;
      devices = Distributed::concurrency();
      gpus = lightning::detail::runtime().gpus_only();
      check_access = lightning::checks_accesses();
      const double data = ratio * double(cap) * devices;
      if (s.stencil_n == 0) s.stencil_n = std::max<int64_t>(3, int64_t(data / 2 / 4));
      if (s.gemm_m == 0)
        s.gemm_m = std::max<int64_t>(
            1, int64_t((data / 4 - double(devices) * s.gemm_n * s.gemm_n) / (2.0 * s.gemm_n)));
      s.stencil_chunk = std::max<int64_t>(1, int64_t(chunk_bytes / 4));
      s.gemm_chunk = std::max<int64_t>(1, int64_t(chunk_bytes / (4 * uint64_t(s.gemm_n))));
    };
    auto in_core_run = [&](auto kernel) {
      Runtime runtime(in_core_args);
      first_use();
      return kernel(s);
    };
    auto out_of_core_run = [&](auto kernel) {
      Runtime runtime(out_of_core_args);
      return kernel(s);
    };

    Measured stencil[2], stencil_overwrite, gemm[2];
    const bool run_stencil = only.empty() || only == "stencil";
    const bool run_gemm = only.empty() || only == "gemm";
    if (run_stencil) {
      stencil[0] = in_core_run(bench::run_stencil<perf_kernels::Stencil>);
      stencil[1] = out_of_core_run(bench::run_stencil<perf_kernels::Stencil>);
      stencil_overwrite = out_of_core_run(bench::run_stencil<perf_kernels::StencilOverwrite>);
    }
    if (run_gemm) {
      gemm[0] = in_core_run(bench::run_gemm);
      gemm[1] = out_of_core_run(bench::run_gemm);
    }

    // The bandwidth, once the runtimes have given their memory back.
    Transfer transfer;
#if LIGHTNING_HAVE_CUDA
    if (gpus) {
      int config_argc = static_cast<int>(lightning_args.size());
      std::vector<char*> config_argv = Runtime::argv_of(lightning_args);
      const lightning::Config config =
          lightning::Config::load_from_process(&config_argc, config_argv.data());
      transfer = pcie_bandwidth(
          lightning::cuda::select_gpus(config.devices, lightning::cuda::discover_gpus()).at(0),
          transfer_bytes);
      if (devices > 1)
        std::fprintf(stderr,
                     "out_of_core_benchmark: the bound counts one GPU's link for all %d GPUs\n",
                     devices);
    }
#endif
    if (!gpus) transfer = host_memcpy_bandwidth(transfer_bytes);

    // A byte the devices keep between runs (or stencil steps) need not cross again: the total
    // device memory `kept` bounds what stays.
    const double kept = double(cap) * devices;
    Json out{{"benchmark", "out_of_core"},
             {"devices", devices},
             {"device_kind", gpus ? "cuda" : "host"},
             {"cap_per_device_bytes", cap},
             {"in_core_device_memory", in_core_text.empty() ? "runtime default" : in_core_text},
             {"chunk_bytes", chunk_bytes},
             {"repeats", s.repeats},
             {"check_access", check_access},
             {"transfer",
              {{"measured", transfer.measured},
               {"h2d_GBps", transfer.h2d / 1e9},
               {"d2h_GBps", transfer.d2h / 1e9},
               {"each_direction_with_both_GBps", transfer.h2d_both / 1e9}}},
             {"bounds",
              {{"pcie_bound_s",
                "bytes_streamed_per_run at the measured bandwidth: max(in / h2d, out / d2h) at "
                "the bandwidths measured with both directions at once where the devices have "
                "them (GPUs), else in / h2d + out / d2h"},
               {"pcie_bound_one_direction_at_a_time_s", "in / h2d + out / d2h"},
               {"bytes_streamed_per_run",
                "every byte a run reads crosses in and every byte it writes crosses out: "
                "stencil K x n x 4 each way; gemm in |A| + devices x |B|, out |C|"},
               {"bytes_minimum_per_run_given_cap",
                "less what the devices' memory (cap x devices) can keep between runs: stencil "
                "K x max(0, n x 4 - cap x devices) each way (a kept byte of the output is the "
                "next step's input); gemm in max(0, |A| + devices x |B| - kept), out |C| - what "
                "is left of kept"}}},
             {"kernels", Json::array()}};
    bool all_same = true;
    if (run_stencil) {
      const double bytes = double(s.stencil_n) * 4;
      const double k = s.iterations;
      // The `overwrite` stencil out of core against the same in-core run (`write`): equal
      // results, and the old contents of what it writes not fetched.
      for (const auto& [name, out_of_core] :
           {std::pair<const char*, const bench::Measured*>{"stencil", &stencil[1]},
            {"stencil_overwrite", &stencil_overwrite}}) {
        Json j = kernel_entry(name, stencil[0], *out_of_core, {k * bytes, k * bytes},
                              {k * std::max(0.0, bytes - kept), k * std::max(0.0, bytes - kept)},
                              transfer, 2 * bytes, kept, all_same);
        j["elements"] = s.stencil_n;
        j["chunk_elements"] = s.stencil_chunk;
        j["iterations_per_run"] = s.iterations;
        j["in_core_GBps"] = 2 * k * bytes / stencil[0].seconds / 1e9;
        j["out_of_core_GBps"] = 2 * k * bytes / out_of_core->seconds / 1e9;
        out["kernels"].push_back(j);
      }
    }
    if (run_gemm) {
      const double n = double(s.gemm_n), a = double(s.gemm_m) * n * 4, b = n * n * 4 * devices;
      const double c = a;  // C is rows x n, as A
      const double in = a + b, in_min = std::max(0.0, in - kept);
      const double out_min = std::max(0.0, c - std::max(0.0, kept - in));
      Json j = kernel_entry("gemm", gemm[0], gemm[1], {in, c}, {in_min, out_min}, transfer, in + c,
                            kept, all_same);
      const double flops = 2.0 * double(s.gemm_m) * n * n;
      j["rows"] = s.gemm_m;
      j["n"] = s.gemm_n;
      j["chunk_rows"] = s.gemm_chunk;
      j["in_core_GFLOPs"] = flops / gemm[0].seconds / 1e9;
      j["out_of_core_GFLOPs"] = flops / gemm[1].seconds / 1e9;
      out["kernels"].push_back(j);
    }
    std::printf("%s\n", out.dump(2).c_str());
    return all_same ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "out_of_core_benchmark: %s\n", e.what());
    return 1;
  }
}
