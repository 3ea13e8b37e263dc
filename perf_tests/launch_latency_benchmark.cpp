// What a small launch costs: a chain of dependent saxpy launches on a few thousand floats
// (one fence at the end), and a chain of small dot products that each return their value,
// through lightning::Distributed against the same functors on Kokkos::DefaultHostExecutionSpace
// and, with --native-gpu, against the same chain launched natively on one stream of GPU 0
// (once synchronised at the end, and synchronised after every launch; each dot a kernel and
// an 8-byte copy back), and the same dot products written with teams (TeamPolicy, a team per
// 256 elements). The median of R runs of L launches each, after one warm-up; per
// launch in microseconds. Prints one JSON object. (Issue: small-launch latency.)
//
// Also: the program thread's own time for the saxpy calls (before the fence), and a chain of
// independent saxpy launches (over 8 arrays in turn). With --superblocks=S the lightning
// arrays are cut into S chunks per device, so each launch is S superblocks per device.
// --only=saxpy,dot,... runs only those chains (saxpy, independent, dot, team_dot; the others
// print 0), e.g. to profile one.
//
//   launch_latency_benchmark [--size=N] [--launches=L] [--repeats=R] [--superblocks=S]
//                            [--only=CHAIN,...] [--native-gpu] [--lightning-devices=...]
#include <CLI/CLI.hpp>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "lightning_kokkos/build_config.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"
#include "small_kernels.hpp"
#include "timing.hpp"
#if LIGHTNING_HAVE_CUDA
#include "native_gpu.hpp"
#endif

namespace bench {

using perf_kernels::Dot;
using perf_kernels::Saxpy;
namespace perf = lightning::perf;

/// Microseconds per launch of each chain on one execution space.
struct Chains {
  double saxpy = 0;        ///< dependent saxpy launches on one array, one fence at the end
  double saxpy_issue = 0;  ///< of which the calls themselves (the program's thread)
  double independent = 0;  ///< saxpy launches over kIndependent arrays in turn, one fence
  double dot = 0;          ///< dot products, each returning its value
  double team_dot = 0;     ///< the same dot products written with teams (TeamPolicy)
};

/// Elements per team of the team dot chain (its team size is Kokkos::AUTO).
constexpr int64_t kTeamElements = 256;

/// Arrays the independent chain cycles through: consecutive launches share no data.
constexpr int kIndependent = 8;

/// a / b, or 0 where a chain did not run.
inline double ratio(double a, double b) {
  return a > 0 && b > 0 ? a / b : 0.0;
}

/// Which chains run (all when `only` is empty).
struct ChainSet {
  std::vector<std::string> only;
  bool operator()(const std::string& chain) const {
    return only.empty() || std::find(only.begin(), only.end(), chain) != only.end();
  }
};

/// Seconds of `run` (perf::timed) if `chain` is wanted, else 0.
inline double timed_if(const ChainSet& wanted, const char* chain, int repeats,
                       const std::function<void()>& run) {
  return wanted(chain) ? perf::timed(repeats, run) : 0.0;
}

/// The chains on `Exec` that `wanted` names, each the median of `repeats` runs of `launches`
/// launches.
template <class Exec, class V, class Make>
Chains chains(int64_t n, int launches, int repeats, const ChainSet& wanted, Make make,
              const Exec& space, double& value) {
  V x = make("x"), y = make("y");
  std::vector<V> ys;
  for (int k = 0; k < kIndependent; ++k) ys.push_back(make("y_k"));
  Kokkos::deep_copy(x, 1.0f);
  Kokkos::deep_copy(y, 0.0f);
  for (V& v : ys) Kokkos::deep_copy(v, 0.0f);
  using CV = typename V::const_type;
  const Kokkos::RangePolicy<Exec> all(space, 0, n);
  Chains c;
  std::vector<double> issue;
  c.saxpy = timed_if(wanted, "saxpy", repeats, [&] {
    const auto start = std::chrono::steady_clock::now();
    for (int l = 0; l < launches; ++l) Kokkos::parallel_for("saxpy", all, Saxpy<CV, V>{x, y, 0.5f});
    issue.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    Kokkos::fence();
  });
  c.saxpy_issue = issue.empty() ? 0.0 : perf::median(issue);
  c.independent = timed_if(wanted, "independent", repeats, [&] {
    for (int l = 0; l < launches; ++l)
      Kokkos::parallel_for("saxpy_k", all, Saxpy<CV, V>{x, ys[l % kIndependent], 0.5f});
    Kokkos::fence();
  });
  c.dot = timed_if(wanted, "dot", repeats, [&] {
    for (int l = 0; l < launches; ++l) Kokkos::parallel_reduce("dot", all, Dot<CV>{x, y}, value);
  });
  using Team = Kokkos::TeamPolicy<Exec>;
  const int64_t league = (n + kTeamElements - 1) / kTeamElements;
  const perf_kernels::TeamDot<CV, typename Team::member_type> team_dot{x, y, kTeamElements};
  const Team teams(space, static_cast<int>(league), Kokkos::AUTO);
  double team_value = 0;
  c.team_dot = timed_if(wanted, "team_dot", repeats, [&] {
    for (int l = 0; l < launches; ++l)
      Kokkos::parallel_reduce("team_dot", teams, team_dot, team_value);
  });
  // The two dots disagree: reported as different values.
  if (wanted("dot") && wanted("team_dot") && team_value != value) value = -1;
  for (double* t : {&c.saxpy, &c.saxpy_issue, &c.independent, &c.dot, &c.team_dot})
    *t *= 1e6 / launches;
  return c;
}

#if LIGHTNING_HAVE_CUDA
const char* kNative = R"(
extern "C" __global__ void saxpy(long long n, float a, const float* x, float* y) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}
extern "C" __global__ void dot(long long n, const float* x, const float* y, double* sum) {
  __shared__ double warp_sums[32];
  double s = 0;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) s += double(x[i]) * y[i];
  for (unsigned o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) t += warp_sums[w];
    *sum = t;
  }
}
// The team dot as Kokkos' CUDA back-end runs it: a block per team, a partial per block, the
// last block to finish joins the partials.
extern "C" __global__ void team_dot(long long n, long long w, const float* x, const float* y,
                                    double* partials, unsigned* done, double* sum) {
  __shared__ double warp_sums[32];
  __shared__ bool last;
  const long long first = blockIdx.x * w;
  double s = 0;
  for (long long k = threadIdx.x; k < w && first + k < n; k += blockDim.x)
    s += double(x[first + k]) * y[first + k];
  for (unsigned o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (unsigned v = 0; v < blockDim.x / 32; ++v) t += warp_sums[v];
    partials[blockIdx.x] = t;
    __threadfence();
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    double t = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) t += ((volatile double*)partials)[b];
    *sum = t;
    *done = 0;
  }
}
)";

struct NativeChains {
  double saxpy_one_sync_us = 0, saxpy_sync_each_us = 0, dot_us = 0, team_dot_us = 0, value = 0;
};

NativeChains native_chains(int64_t n, int launches, int repeats) {
  const lightning::cuda::GpuInfo gpu = lightning::cuda::discover_gpus().at(0);
  perf::Native native(gpu, kNative);
  CUfunction saxpy = native.function("saxpy"), dot = native.function("dot"),
             team_dot = native.function("team_dot");
  CUdeviceptr x = native.upload(std::vector<float>(static_cast<size_t>(n), 1.0f));
  CUdeviceptr y = native.upload(std::vector<float>(static_cast<size_t>(n), 0.0f));
  CUdeviceptr sum = native.upload(std::vector<double>(1, 0.0));
  long long count = n;
  float a = 0.5f;
  void* saxpy_params[] = {&count, &a, &x, &y};
  void* dot_params[] = {&count, &x, &y, &sum};
  long long w = kTeamElements;
  const unsigned league[3] = {static_cast<unsigned>((n + w - 1) / w), 1, 1};
  const unsigned team[3] = {128, 1, 1};  // what Kokkos::AUTO gives this kernel on a GPU
  CUdeviceptr partials = native.upload(std::vector<double>(league[0], 0.0));
  CUdeviceptr done = native.upload(std::vector<unsigned>(1, 0u));
  void* team_dot_params[] = {&count, &w, &x, &y, &partials, &done, &sum};
  const unsigned grid[3] = {static_cast<unsigned>((n + 255) / 256), 1, 1}, block[3] = {256, 1, 1};
  const unsigned one[3] = {1, 1, 1};
  NativeChains c;
  // Microseconds per launch of a chain: `each` once per launch, then `end`, per run.
  const auto per_launch_us = [&](const auto& each, const auto& end) {
    return perf::timed(repeats,
                       [&] {
                         for (int l = 0; l < launches; ++l) each();
                         end();
                       }) *
           1e6 / launches;
  };
  const auto nothing = [] {};
  c.saxpy_one_sync_us = per_launch_us([&] { native.enqueue(saxpy, grid, block, 0, saxpy_params); },
                                      [&] { native.synchronize(); });
  c.saxpy_sync_each_us =
      per_launch_us([&] { native.launch(saxpy, grid, block, 0, saxpy_params); }, nothing);
  c.dot_us = per_launch_us(
      [&] {
        native.enqueue(dot, one, block, 0, dot_params);
        native.read(&c.value, sum, sizeof(double));
      },
      nothing);
  c.team_dot_us = per_launch_us(
      [&] {
        native.enqueue(team_dot, league, team, 0, team_dot_params);
        native.read(&c.value, sum, sizeof(double));
      },
      nothing);
  return c;
}
#endif

}  // namespace bench

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  int64_t n = 4096;
  int launches = 2000, repeats = 5;
  int superblocks = 1;
  bool native_gpu = false;
  CLI::App app("Small-launch latency: lightning against the Kokkos host space and native CUDA.");
  app.add_option("--size", n, "elements")->check(CLI::Range(int64_t{1}, int64_t{1} << 32));
  app.add_option("--launches", launches, "launches per run")->check(CLI::Range(1, 1000000));
  app.add_option("--repeats", repeats, "runs (the median is kept)")->check(CLI::Range(1, 1000));
  app.add_option("--superblocks", superblocks, "lightning chunks (superblocks) per device")
      ->check(CLI::Range(1, 4096));
  bench::ChainSet wanted;
  app.add_option("--only", wanted.only, "run only these chains")
      ->delimiter(',')
      ->check(CLI::IsMember({"saxpy", "independent", "dot", "team_dot"}));
  app.add_flag("--native-gpu", native_gpu, "also the native CUDA chain on GPU 0");
  CLI11_PARSE(app, argc, argv);

  using Host = Kokkos::DefaultHostExecutionSpace;
  using HostView = Kokkos::View<float*, Host>;
  using Dist = lightning::View<float*>;
  double host_value = 0, dist_value = 0;
  const auto host = bench::chains<Host, HostView>(
      n, launches, repeats, wanted,
      [&](const char* label) { return HostView(std::string(label), n); }, Host(), host_value);
  const int64_t parts = int64_t{superblocks} * lightning::Distributed::concurrency();
  const int64_t chunk = std::max<int64_t>(1, (n + parts - 1) / parts);
  const auto dist = bench::chains<lightning::Distributed, Dist>(
      n, launches, repeats, wanted,
      [&](const char* label) {
        return lightning::allocate<Dist>(std::string(label), lightning::dist::block(chunk), n);
      },
      lightning::Distributed(), dist_value);
  std::printf(
      "{\"benchmark\": \"launch_latency\", \"elements\": %lld, \"launches\": %d, "
      "\"repeats\": %d, \"devices\": %d, \"superblocks_per_device\": %d, "
      "\"host_space\": \"%s\", "
      "\"saxpy_us\": {\"lightning\": %.2f, \"lightning_issue\": %.2f, \"host_space\": %.2f, "
      "\"ratio\": %.2f}, "
      "\"independent_us\": {\"lightning\": %.2f, \"host_space\": %.2f, \"ratio\": %.2f}, "
      "\"dot_us\": {\"lightning\": %.2f, \"host_space\": %.2f, \"ratio\": %.2f}, "
      "\"team_dot_us\": {\"lightning\": %.2f, \"host_space\": %.2f, \"ratio\": %.2f}, "
      "\"same_value\": %s",
      static_cast<long long>(n), launches, repeats, lightning::Distributed::concurrency(),
      superblocks, Host::name(), dist.saxpy, dist.saxpy_issue, host.saxpy,
      bench::ratio(dist.saxpy, host.saxpy), dist.independent, host.independent,
      bench::ratio(dist.independent, host.independent), dist.dot, host.dot,
      bench::ratio(dist.dot, host.dot), dist.team_dot, host.team_dot,
      bench::ratio(dist.team_dot, host.team_dot),
      host_value == dist_value && host_value >= 0 ? "true" : "false");
#if LIGHTNING_HAVE_CUDA
  if (native_gpu &&
      (!lightning::cuda::DriverApi::available() || lightning::cuda::discover_gpus().empty())) {
    std::fprintf(stderr, "--native-gpu: this machine has no GPU\n");
  } else if (native_gpu) {
    const bench::NativeChains c = bench::native_chains(n, launches, repeats);
    std::printf(
        ", \"native_gpu_us\": {\"saxpy_one_sync\": %.2f, \"saxpy_sync_each\": %.2f, "
        "\"dot_with_read\": %.2f, \"team_dot_with_read\": %.2f, \"dot_value\": %.1f}, "
        "\"lightning_vs_native\": {\"saxpy\": %.2f, \"dot\": %.2f, \"team_dot\": %.2f}",
        c.saxpy_one_sync_us, c.saxpy_sync_each_us, c.dot_us, c.team_dot_us, c.value,
        bench::ratio(dist.saxpy, c.saxpy_one_sync_us), bench::ratio(dist.dot, c.dot_us),
        bench::ratio(dist.team_dot, c.team_dot_us));
  }
#else
  if (native_gpu) std::fprintf(stderr, "--native-gpu: this build has no CUDA backend\n");
#endif
  std::printf("}\n");
  return 0;
}
