// A Kokkos TeamPolicy kernel through the runtime against the same kernel written in CUDA and
// launched natively on the same grid, on one GPU: the tutorial's y^T·A·x, team j reducing
// row j over its threads (TeamThreadRange), one thread adding y(j) times that to the sum.
// The native kernel is what Kokkos' CUDA back-end would run: a block of team-size threads
// per team, blocks stepping over the rows, a warp-shuffle reduction per row, one partial per
// block summed on the host. One warm-up each, then R runs of each, alternately; a run is L
// launches back to back, each waiting for its value (the tutorial's loop of `nrepeat`; with
// L = 1 every runtime launch follows a native run, so it also pays for waking the runtime's
// threads, which sleep once the GPU has been idle a while). Per launch: the medians and every
// run's time printed, the values compared. Prints one JSON object; exits 77 without a GPU.
//
//   team_kernel_benchmark [--rows=M] [--cols=N] [--team=T] [--repeats=R] [--launches=L]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "native_gpu.hpp"

namespace bench {

using member_type = Kokkos::TeamPolicy<lightning::Distributed>::member_type;

/// y^T·A·x as the Kokkos tutorial writes it with teams.
struct TeamYAx {
  lightning::View<const double**> A;
  lightning::View<const double*> x, y;
  LIGHTNING_KERNEL(
      TeamYAx, "block j => read A[j, :], read x[:], read y[j]", (A, x, y),
      void operator()(const member_type& team, double& update) const {
        const int j = team.league_rank();
        double row = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, static_cast<int>(A.extent(1))),
            [&](const int i, double& inner) { inner += A(j, i) * x(i); }, row);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { update += y(j) * row; });
      })
};

// The same kernel, hand-written.
const char* kNative = R"(
#include <cstdint>
extern "C" __global__ void yax_team(int rows, int cols, const double* A, const double* x,
                                    const double* y, double* partials) {
  __shared__ double warp_sums[32];
  const unsigned t = threadIdx.y, lane = t & 31u, warps = (blockDim.y + 31) / 32;
  double update = 0;
  for (int j = blockIdx.x; j < rows; j += gridDim.x) {
    double row = 0;
    for (int i = t; i < cols; i += blockDim.y) row += A[(int64_t)j * cols + i] * x[i];
    for (unsigned off = 16; off > 0; off /= 2) row += __shfl_down_sync(0xffffffffu, row, off);
    if (lane == 0) warp_sums[t / 32] = row;
    __syncthreads();
    double total = warp_sums[0];
    for (unsigned w = 1; w < warps; ++w) total += warp_sums[w];
    __syncthreads();
    if (t == 0) update += y[j] * total;
  }
  if (t == 0) partials[blockIdx.x] = update;
}
)";

}  // namespace bench

int main(int argc, char* argv[]) {
  using namespace lightning;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    ScopeGuard runtime(argc, argv);
    int rows = 65536, cols = 8192, team = 256, repeats = 7, launches = 1;
    CLI::App app("A team kernel through the runtime against the same kernel natively.");
    app.add_option("--rows", rows, "rows of A (teams)")->check(CLI::Range(1, 1 << 24));
    app.add_option("--cols", cols, "columns of A")->check(CLI::Range(1, 1 << 20));
    app.add_option("--team", team, "threads per team (a multiple of 32)")
        ->check(CLI::Range(32, 1024));
    app.add_option("--repeats", repeats, "timed runs (median)")->check(CLI::Range(1, 100));
    app.add_option("--launches", launches, "launches per run, back to back")
        ->check(CLI::Range(1, 10000));
    CLI11_PARSE(app, argc, argv);
    if (team % 32 != 0) throw std::invalid_argument("--team must be a multiple of 32");
    if (!cuda::DriverApi::available() || cuda::discover_gpus().empty()) {
      std::fprintf(stderr, "team_kernel_benchmark: no GPU\n");
      return 77;
    }
    const cuda::GpuInfo gpu = cuda::discover_gpus()[0];
    std::vector<double> a(static_cast<size_t>(rows) * cols), x(static_cast<size_t>(cols)),
        y(static_cast<size_t>(rows));
    for (size_t i = 0; i < a.size(); ++i) a[i] = double(int(i % 13) - 5);
    for (int i = 0; i < cols; ++i) x[size_t(i)] = double(i % 5);
    for (int j = 0; j < rows; ++j) y[size_t(j)] = double(j % 3);

    // Native: the runtime's grid for this launch (blocks stepping over teams, 32 per SM).
    perf::Native native(gpu, bench::kNative);
    const int blocks = std::min(rows, 32 * gpu.multiprocessors);
    CUdeviceptr da = native.upload(a), dx = native.upload(x), dy = native.upload(y);
    CUdeviceptr dp = native.upload(std::vector<double>(size_t(blocks), 0.0));
    const CUfunction f = native.function("yax_team");
    void* params[] = {&rows, &cols, &da, &dx, &dy, &dp};
    const unsigned grid[3] = {unsigned(blocks), 1, 1}, block[3] = {1, unsigned(team), 1};
    double native_value = 0;
    auto native_run = [&] {
      native.launch(f, grid, block, 0, params);
      native_value = 0;
      for (double p : native.download<double>(dp, size_t(blocks))) native_value += p;
    };

    // Through the runtime: A in one chunk, one superblock of every team.
    auto A = allocate<View<double**>>("A", dist::rows(rows), rows, cols);
    View<double*> X("x", cols), Y("y", rows);
    Kokkos::deep_copy(A, Kokkos::View<const double**, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                             a.data(), rows, cols));
    Kokkos::deep_copy(
        X, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(x.data(), cols));
    Kokkos::deep_copy(
        Y, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(y.data(), rows));
    const bench::TeamYAx kernel{A, X, Y};
    const Distributed space(work::block(int64_t{rows} * team));
    double runtime_value = 0;
    auto runtime_run = [&] {
      Kokkos::parallel_reduce("yAx", Kokkos::TeamPolicy<Distributed>(space, rows, team), kernel,
                              runtime_value);
    };

    // Alternately, so that the machine's drift reaches both alike.
    native_run();
    runtime_run();
    std::vector<double> native_runs, runtime_runs;
    const auto loop = [launches](const auto& run) {
      return [&run, launches] {
        for (int l = 0; l < launches; ++l) run();
      };
    };
    for (int r = 0; r < repeats; ++r) {
      native_runs.push_back(perf::run_times(1, loop(native_run), false).front() / launches);
      runtime_runs.push_back(perf::run_times(1, loop(runtime_run), false).front() / launches);
    }

    double expected = 0;
    for (int j = 0; j < rows; ++j) {
      double row = 0;
      for (int i = 0; i < cols; ++i) row += a[size_t(j) * cols + size_t(i)] * x[size_t(i)];
      expected += y[size_t(j)] * row;
    }
    const double bytes = 8.0 * (double(rows) * cols + cols + rows);
    const double native_s = perf::median(native_runs), runtime_s = perf::median(runtime_runs);
    auto list = [](const std::vector<double>& runs) {
      std::string s;
      char text[32];
      for (double r : runs) {
        std::snprintf(text, sizeof(text), "%s%.6f", s.empty() ? "" : ", ", r);
        s += text;
      }
      return "[" + s + "]";
    };
    std::printf(
        "{\"benchmark\": \"team_kernels\", \"gpu\": \"%s\", \"repeats\": %d, "
        "\"launches_per_run\": %d, \"kernels\": [\n"
        "  {\"kernel\": \"team_yax\", \"rows\": %d, \"cols\": %d, \"team\": %d, \"blocks\": %d, "
        "\"native_s\": %.6f, \"runtime_s\": %.6f, \"overhead_percent\": %.2f, "
        "\"native_GBps\": %.1f, \"runtime_GBps\": %.1f, \"native_value\": %.17g, "
        "\"runtime_value\": %.17g, \"expected\": %.17g,\n   \"native_runs_s\": %s, "
        "\"runtime_runs_s\": %s}\n]}\n",
        gpu.name.c_str(), repeats, launches, rows, cols, team, blocks, native_s, runtime_s,
        (runtime_s / native_s - 1) * 100, bytes / native_s / 1e9, bytes / runtime_s / 1e9,
        native_value, runtime_value, expected, list(native_runs).c_str(),
        list(runtime_runs).c_str());
    // Integers below 2^53 in every product and partial sum: exact in any order.
    return native_value == expected && runtime_value == expected ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "team_kernel_benchmark: %s\n", e.what());
    return 1;
  }
}
