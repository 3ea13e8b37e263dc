// The paper's stencil (Fig. 8/9): out(i) = in(i-1) + in(i) + in(i+1), iterated, on every
// device the runtime has, through the runtime's C++ API. (With the Kokkos adapter the same
// kernel is a LIGHTNING_KERNEL functor launched by Kokkos::parallel_for.)
//
//   stencil [--size N] [--iterations K] [--chunk C] [--lightning-devices=host:4 ...]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "core/config.hpp"
#include "core/error.hpp"
#include "driver/driver.hpp"
#include "driver/join.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "worker/native_kernel.hpp"

namespace {

using lightning::ArrayHandle;

struct Stencil {
  ArrayHandle<const float, 1> in;
  ArrayHandle<float, 1> out;
  void operator()(int64_t i) const { out(i) = (in(i - 1) + in(i) + in(i + 1)) / 3.0f; }
};

const lightning::KernelId kStencil =
    lightning::worker::KernelRegistry::add(lightning::worker::native_kernel<Stencil, 1>(
        "examples::stencil", "global i => read in[i-1:i+1], write out[i]",
        lightning::annotation::KernelSignature()
            .add_array("in", lightning::DataType::kFloat32, 1)
            .add_array("out", lightning::DataType::kFloat32, 1),
        {{0, offsetof(Stencil, in), 1}, {1, offsetof(Stencil, out), 1}}));

std::vector<float> sequential(std::vector<float> a, int iterations) {
  std::vector<float> b = a;
  for (int it = 0; it < iterations; ++it) {
    for (size_t i = 1; i + 1 < a.size(); ++i) b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0f;
    std::swap(a, b);
  }
  return a;
}

}  // namespace

int main(int argc, char* argv[]) {
  using namespace lightning;
  try {
    const Config config = Config::load_from_process(&argc, argv);
    int64_t n = 1 << 22;
    int iterations = 10;
    int64_t chunk = 1 << 18;
    CLI::App app("The paper's 1-D stencil on every device lightning_kokkos has.");
    app.add_option("--size", n, "elements")->check(CLI::Range(int64_t{3}, int64_t{1} << 40));
    app.add_option("--iterations", iterations, "stencil steps")->check(CLI::Range(1, 1 << 20));
    app.add_option("--chunk", chunk, "elements per chunk and per superblock")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
    CLI11_PARSE(app, argc, argv);

    // Under mpirun, only rank 0 returns from join(); the other ranks serve as workers.
    const std::unique_ptr<driver::Driver> driver = driver::join(config);
    driver::Driver& runtime = *driver;
    std::printf("stencil: %lld elements, %d iterations, chunks of %lld, devices %s\n",
                static_cast<long long>(n), iterations, static_cast<long long>(chunk),
                runtime.devices().describe().c_str());
    std::vector<float> init(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) init[i] = float(i % 17);
    const Rect all(Point{0}, Point{n});
    const ArrayId a =
        runtime.create_array("a", DataType::kFloat32, Point{n}, dist::stencil(chunk, 1));
    const ArrayId b =
        runtime.create_array("b", DataType::kFloat32, Point{n}, dist::stencil(chunk, 1));
    runtime.write(a, all, init.data());
    runtime.write(b, all, init.data());

    const auto start = std::chrono::steady_clock::now();
    Stencil kernel{};
    for (int it = 0; it < iterations; ++it) {
      driver::Launch l;
      l.kernel = kStencil;
      l.functor = &kernel;
      l.arrays = it % 2 ? std::vector<ArrayId>{b, a} : std::vector<ArrayId>{a, b};
      l.domain = Rect(Point{1}, Point{n - 1});
      l.work = work::block(chunk);
      runtime.launch(l);
    }
    runtime.fence();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::vector<float> result(static_cast<size_t>(n));
    runtime.read(iterations % 2 ? b : a, all, result.data());
    const std::vector<float> expected = sequential(init, iterations);
    size_t wrong = 0;
    for (size_t i = 0; i < result.size(); ++i) wrong += result[i] != expected[i];
    const auto cache = runtime.plan_cache_stats();
    std::printf(
        "{\"elements\": %lld, \"iterations\": %d, \"seconds\": %.6f, "
        "\"elements_per_second\": %.3e, \"plan_cache_hits\": %llu, \"wrong\": %zu}\n",
        static_cast<long long>(n), iterations, seconds, double(n) * iterations / seconds,
        static_cast<unsigned long long>(cache.hits), wrong);
    if (wrong) {
      std::fprintf(stderr, "stencil: %zu elements differ from the sequential result\n", wrong);
      return 1;
    }
    std::printf("stencil: result equals the sequential stencil\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
