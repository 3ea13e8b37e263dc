// cuda-samples' Black-Scholes through the runtime (the ported kernel of
// examples/ported/black_scholes.cu) against the sample's kernel launched natively on the same
// grid, and against the device's copy bandwidth, on one GPU, in one run. Per option count:
// the sample's launch (blocks of 128 threads, two options a thread) repeated `iterations`
// times back to back and waited for once, as the sample times it; the median of R runs after
// a warm-up. The ceiling: the driver's device-to-device copy of 512 MiB (read and written).
// Both sides' prices are compared element by element and, on a sample of the options, with
// the formula in double precision (the sample's L1 check). Prints one JSON object; exits 77
// without a GPU, 1 on a wrong price.
//
//   black_scholes_benchmark [--options=4000000,64000000] [--iterations=64] [--repeats=5]
//                           [--chunk=C] [--lightning-devices=cuda:0]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "native_gpu.hpp"
#include "ported_kernels.hpp"

namespace {

using namespace lightning;
using F2 = lightning::float2;

// The kernel before the port: `__global__`, float2 pointers (black_scholes.cu says what changed).
const char* kNative = R"(
__device__ inline float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
              a5 = 1.330274429f;
  const float rsqrt_2pi = 0.39894228040143267793994605993438f;
  const float k = __fdividef(1.0f, 1.0f + 0.2316419f * fabsf(d));
  float c = rsqrt_2pi * __expf(-0.5f * d * d) *
            (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0f - c;
  return c;
}
__device__ inline void black_scholes_body(float& call, float& put, float s, float x, float t,
                                          float r, float v) {
  const float sqrt_t = __fdividef(1.0f, rsqrtf(t));
  const float d1 = __fdividef(__logf(s / x) + (r + 0.5f * v * v) * t, v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float cnd_d1 = cnd(d1), cnd_d2 = cnd(d2);
  const float exp_rt = __expf(-r * t);
  call = s * cnd_d1 - x * exp_rt * cnd_d2;
  put = x * exp_rt * (1.0f - cnd_d2) - s * (1.0f - cnd_d1);
}
extern "C" __launch_bounds__(128) __global__ void black_scholes(
    float2* __restrict__ call, float2* __restrict__ put, float2* __restrict__ stock_price,
    float2* __restrict__ option_strike, float2* __restrict__ option_years, float riskfree,
    float volatility, int opt_n) {
  const int opt = blockDim.x * blockIdx.x + threadIdx.x;
  if (opt < opt_n / 2) {
    float call1, call2, put1, put2;
    black_scholes_body(call1, put1, stock_price[opt].x, option_strike[opt].x,
                       option_years[opt].x, riskfree, volatility);
    black_scholes_body(call2, put2, stock_price[opt].y, option_strike[opt].y,
                       option_years[opt].y, riskfree, volatility);
    call[opt] = make_float2(call1, call2);
    put[opt] = make_float2(put1, put2);
  }
}
)";

constexpr float kRiskfree = 0.02f, kVolatility = 0.30f;
constexpr unsigned kBlock = 128;

struct Measured {
  int opt_n = 0;
  double native_s = 0, runtime_s = 0;  // per iteration
  double max_difference = 0;           // runtime against native, over every price
  ported::PriceErrors native_errors, runtime_errors;
  int64_t superblocks = 0;
};

Measured measure(perf::Native& native, int opt_n, int iterations, int repeats, int64_t chunk) {
  Measured m;
  m.opt_n = opt_n;
  const int64_t n = opt_n / 2;
  const ported::OptionInputs in = ported::random_options(opt_n);
  const size_t stride = std::max<size_t>(1, size_t(n) / (1 << 20));  // about 2M options checked
  const unsigned grid[3] = {unsigned((n + kBlock - 1) / kBlock), 1, 1}, block[3] = {kBlock, 1, 1};

  // Natively, on plain device buffers.
  std::vector<F2> native_call, native_put;
  {
    CUdeviceptr call = native.upload(std::vector<F2>(size_t(n))),
                put = native.upload(std::vector<F2>(size_t(n)));
    CUdeviceptr s = native.upload(in.stock_price), x = native.upload(in.option_strike),
                t = native.upload(in.option_years);
    float r = kRiskfree, v = kVolatility;
    int count = opt_n;
    void* params[] = {&call, &put, &s, &x, &t, &r, &v, &count};
    const CUfunction f = native.function("black_scholes");
    m.native_s = perf::timed(repeats,
                             [&] {
                               for (int i = 0; i < iterations; ++i)
                                 native.enqueue(f, grid, block, 0, params);
                               native.synchronize();
                             }) /
                 iterations;
    native_call = native.download<F2>(call, size_t(n));
    native_put = native.download<F2>(put, size_t(n));
  }

  // Through the runtime: the arrays in chunks of `chunk` elements, a superblock per chunk.
  const auto data = dist::block(chunk);
  View<F2*> call("call", n, data), put("put", n, data), s("stock_price", n, data),
      x("option_strike", n, data), t("option_years", n, data);
  using Unmanaged = Kokkos::View<const F2*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::deep_copy(s, Unmanaged(in.stock_price.data(), n));
  Kokkos::deep_copy(x, Unmanaged(in.option_strike.data(), n));
  Kokkos::deep_copy(t, Unmanaged(in.option_years.data(), n));
  m.superblocks = (n + chunk - 1) / chunk;
  m.runtime_s = perf::timed(repeats,
                            [&] {
                              for (int i = 0; i < iterations; ++i)
                                ported::black_scholes_kernel().launch(
                                    grid[0], kBlock, work::block(chunk), call, put, s, x, t,
                                    kRiskfree, kVolatility, opt_n);
                              lightning::fence();
                            }) /
                iterations;
  Kokkos::View<F2*, Kokkos::HostSpace> host_call("host_call", n), host_put("host_put", n);
  Kokkos::deep_copy(host_call, call);
  Kokkos::deep_copy(host_put, put);

  for (int64_t i = 0; i < n; ++i) {
    const F2 a = host_call(i), b = host_put(i), c = native_call[size_t(i)],
             p = native_put[size_t(i)];
    m.max_difference =
        std::max({m.max_difference, double(std::fabs(a.x - c.x)), double(std::fabs(a.y - c.y)),
                  double(std::fabs(b.x - p.x)), double(std::fabs(b.y - p.y))});
    if (std::isnan(a.x) || std::isnan(a.y) || std::isnan(b.x) || std::isnan(b.y))
      m.max_difference = INFINITY;
  }
  m.native_errors = ported::black_scholes_errors(in, native_call.data(), native_put.data(),
                                                 kRiskfree, kVolatility, stride);
  m.runtime_errors = ported::black_scholes_errors(in, host_call.data(), host_put.data(), kRiskfree,
                                                  kVolatility, stride);
  return m;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    ScopeGuard runtime(argc, argv);
    std::vector<int> options{4000000, 64000000};
    int iterations = 64, repeats = 5;
    int64_t chunk = 0;
    CLI::App app("cuda-samples' Black-Scholes through the runtime against the sample's kernel.");
    app.add_option("--options", options, "option counts (even), comma-separated")
        ->delimiter(',')
        ->check(CLI::Range(2, 1 << 30))
        ->check(CLI::Validator(ported::options_not_even, "EVEN"));
    app.add_option("--iterations", iterations, "launches per timed run")
        ->check(CLI::Range(1, 100000));
    app.add_option("--repeats", repeats, "timed runs (median)")->check(CLI::Range(1, 100));
    app.add_option("--chunk", chunk,
                   "float2 elements per chunk and superblock (default: one chunk per device)");
    CLI11_PARSE(app, argc, argv);
    if (!cuda::DriverApi::available() || cuda::discover_gpus().empty()) {
      std::fprintf(stderr, "black_scholes_benchmark: no GPU\n");
      return 77;
    }
    const cuda::GpuInfo gpu = cuda::discover_gpus()[0];
    perf::Native native(gpu, kNative);

    // The ceiling: the driver's copy of 512 MiB, read and written.
    const size_t copy_bytes = size_t{512} << 20;
    double copy_s = 0;
    {
      CUdeviceptr a = native.upload(std::vector<char>(copy_bytes)),
                  b = native.upload(std::vector<char>(copy_bytes));
      copy_s = perf::timed(repeats,
                           [&] {
                             for (int i = 0; i < 10; ++i) native.enqueue_copy(b, a, copy_bytes);
                             native.synchronize();
                           }) /
               10;
    }
    const double copy_GBps = 2.0 * copy_bytes / copy_s / 1e9;

    std::vector<Measured> results;
    for (const int opt_n : options) {
      const int64_t n = opt_n / 2;
      const auto devices = static_cast<int64_t>(device_count());
      int64_t c = chunk > 0 ? chunk : (n + devices - 1) / devices;
      c = (c + kBlock - 1) / kBlock * kBlock;
      results.push_back(measure(native, opt_n - opt_n % 2, iterations, repeats, c));
    }

    bool correct = true;
    std::printf(
        "{\"benchmark\": \"black_scholes\", \"gpu\": \"%s\", \"iterations\": %d, "
        "\"repeats\": %d,\n \"copy_GBps\": %.1f,\n \"sizes\": [\n",
        gpu.name.c_str(), iterations, repeats, copy_GBps);
    for (size_t i = 0; i < results.size(); ++i) {
      const Measured& m = results[i];
      const double bytes = 5.0 * m.opt_n * sizeof(float);  // the sample's effective bandwidth
      const bool ok = m.max_difference <= 1e-3 && m.runtime_errors.l1_norm <= 1e-6 &&
                      m.native_errors.l1_norm <= 1e-6;
      correct = correct && ok;
      std::printf(
          "  {\"options\": %d, \"superblocks\": %lld, \"native_ms\": %.4f, \"runtime_ms\": %.4f, "
          "\"runtime_over_native\": %.3f, \"native_GBps\": %.1f, \"runtime_GBps\": %.1f, "
          "\"native_of_copy\": %.3f, \"runtime_of_copy\": %.3f, \"max_difference\": %.3g, "
          "\"l1_norm\": %.3g, \"native_l1_norm\": %.3g, \"correct\": %s}%s\n",
          m.opt_n, static_cast<long long>(m.superblocks), m.native_s * 1e3, m.runtime_s * 1e3,
          m.runtime_s / m.native_s, bytes / m.native_s / 1e9, bytes / m.runtime_s / 1e9,
          bytes / m.native_s / 1e9 / copy_GBps, bytes / m.runtime_s / 1e9 / copy_GBps,
          m.max_difference, m.runtime_errors.l1_norm, m.native_errors.l1_norm,
          ok ? "true" : "false", i + 1 < results.size() ? "," : "");
    }
    std::printf(" ]}\n");
    return correct ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "black_scholes_benchmark: %s\n", e.what());
    return 1;
  }
}
