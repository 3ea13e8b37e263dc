// Planning cost per superblock, cold (plan cache off) and cached, for the two launch shapes
// of the paper's benchmarks that stress the planner most: a 1-D stencil (halo exchange
// between neighbouring chunks) and a 2-D matrix product (each superblock reads a row block
// and a column block). The cold figure is the baseline the cache is compared against.
//
//   planner_benchmark --benchmark_format=json
#include <benchmark/benchmark.h>

#include <cmath>

#include "annotation/annotation_cache.hpp"
#include "distribution/data_distribution.hpp"
#include "distribution/device_set.hpp"
#include "distribution/work_distribution.hpp"
#include "planner/planner.hpp"

namespace lightning::planner {
namespace {

constexpr int kWorkers = 4;
constexpr int kDevicesPerWorker = 4;

// One launch repeated as a driver would: plan, then (as if the workers kept up) retire what
// came before, so the dependency tracker stays at its steady-state size.
void run(benchmark::State& state, Planner& planner, const LaunchRequest& launch,
         int64_t superblocks) {
  for (auto _ : state) {
    Plan plan = planner.launch(launch);
    benchmark::DoNotOptimize(plan.fragments.data());
    const TaskId first = plan.fragments[0].empty() ? TaskId(0) : plan.fragments[0].front().id;
    planner.retire_before(first);
  }
  state.SetItemsProcessed(state.iterations() * superblocks);
  state.counters["superblocks"] = static_cast<double>(superblocks);
  state.counters["ns_per_superblock"] =
      benchmark::Counter(static_cast<double>(state.iterations() * superblocks),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["cache_hits"] = static_cast<double>(planner.cache_stats().hits);
}

void BM_Stencil1D(benchmark::State& state, bool cached) {
  const int64_t superblocks = state.range(0);
  const int64_t chunk = 1024;
  const int64_t n = superblocks * chunk;
  annotation::AnnotationCache annotations;
  annotation::KernelSignature sig;
  sig.add_array("in", DataType::kFloat32, 1).add_array("out", DataType::kFloat32, 1);
  const auto& bound = annotations.bind("global i => read in[i-1:i+1], write out[i]", sig, 1);

  Planner planner(DeviceSet::uniform(kWorkers, kDevicesPerWorker));
  planner.set_plan_cache_enabled(cached);
  auto [in, p1] =
      planner.create_array({"in", DataType::kFloat32, Point{n}, dist::stencil(chunk, 1)});
  auto [out, p2] =
      planner.create_array({"out", DataType::kFloat32, Point{n}, dist::stencil(chunk, 1)});
  LaunchRequest launch;
  launch.kernel = KernelId(1);
  launch.name = "stencil";
  launch.annotation = &bound;
  launch.arrays = {in, out};
  launch.scalars = {0, 0};
  launch.domain = Rect(Point{1}, Point{n - 1});
  launch.block_size = Point{256};
  launch.work = work::block(chunk);
  run(state, planner, launch, superblocks);
}

void BM_Matmul2D(benchmark::State& state, bool cached) {
  const int64_t side = static_cast<int64_t>(std::lround(std::sqrt(double(state.range(0)))));
  const int64_t tile = 64;
  const int64_t n = side * tile;
  annotation::AnnotationCache annotations;
  annotation::KernelSignature sig;
  sig.add_array("A", DataType::kFloat32, 2)
      .add_array("B", DataType::kFloat32, 2)
      .add_array("C", DataType::kFloat32, 2);
  const auto& bound =
      annotations.bind("global [i, j] => read A[i, :], read B[:, j], write C[i, j]", sig, 2);

  Planner planner(DeviceSet::uniform(kWorkers, kDevicesPerWorker));
  planner.set_plan_cache_enabled(cached);
  auto [a, p1] = planner.create_array({"A", DataType::kFloat32, Point{n, n}, dist::rows(tile)});
  auto [b, p2] = planner.create_array({"B", DataType::kFloat32, Point{n, n}, dist::columns(tile)});
  auto [c, p3] =
      planner.create_array({"C", DataType::kFloat32, Point{n, n}, dist::tiles(Point{tile, tile})});
  LaunchRequest launch;
  launch.kernel = KernelId(2);
  launch.name = "matmul";
  launch.annotation = &bound;
  launch.arrays = {a, b, c};
  launch.scalars = {0, 0, 0};
  launch.domain = Rect(Point{0, 0}, Point{n, n});
  launch.block_size = Point{16, 16};
  launch.work = work::tiles(Point{tile, tile});
  run(state, planner, launch, side * side);
}

BENCHMARK_CAPTURE(BM_Stencil1D, cold, false)
    ->RangeMultiplier(10)
    ->Range(16, 100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stencil1D, cached, true)
    ->RangeMultiplier(10)
    ->Range(16, 100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Matmul2D, cold, false)
    ->RangeMultiplier(10)
    ->Range(16, 100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Matmul2D, cached, true)
    ->RangeMultiplier(10)
    ->Range(16, 100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightning::planner

BENCHMARK_MAIN();
