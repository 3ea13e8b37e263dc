// cuda-samples' Black-Scholes as a ported CUDA kernel (black_scholes.cu) on every device the
// runtime has (GPUs, or host devices through the CUDA shim): the sample's options, its launch
// (blocks of 128 threads, two options a thread), its iterations back to back, and its check
// against the formula in double precision (L1 norm of the call prices' error below 1e-6).
//
//   black_scholes_ported [--options N] [--iterations K] [--chunk C] [--lightning-devices=...]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "ported_kernels.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    lightning::ScopeGuard runtime(argc, argv);
    int opt_n = 4000000;
    int iterations = 16;
    int64_t chunk = 0;
    const int block = 128;
    CLI::App app("cuda-samples' Black-Scholes, ported from CUDA, on every GPU.");
    app.add_option("--options", opt_n, "options (even)")
        ->check(CLI::Range(2, 1 << 30))
        ->check(CLI::Validator(ported::options_not_even, "EVEN"));
    app.add_option("--iterations", iterations, "launches")->check(CLI::Range(1, 1 << 20));
    app.add_option("--chunk", chunk,
                   "float2 elements (two options) per chunk and superblock, a multiple of 128 "
                   "(default: one chunk per device)");
    CLI11_PARSE(app, argc, argv);
    const float riskfree = 0.02f, volatility = 0.30f;
    const int64_t n = opt_n / 2;  // float2 elements
    const auto devices = static_cast<int64_t>(lightning::device_count());
    if (chunk <= 0) chunk = (n + devices - 1) / devices;
    chunk = (chunk + block - 1) / block * block;

    const ported::OptionInputs in = ported::random_options(opt_n);
    const auto data = lightning::dist::block(chunk);
    using F2 = lightning::float2;
    lightning::View<F2*> call("call", n, data), put("put", n, data);
    lightning::View<F2*> stock_price("stock_price", n, data),
        option_strike("option_strike", n, data), option_years("option_years", n, data);
    using Unmanaged = Kokkos::View<const F2*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    Kokkos::deep_copy(stock_price, Unmanaged(in.stock_price.data(), n));
    Kokkos::deep_copy(option_strike, Unmanaged(in.option_strike.data(), n));
    Kokkos::deep_copy(option_years, Unmanaged(in.option_years.data(), n));

    const int64_t grid = (n + block - 1) / block;
    const auto start = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it)
      ported::black_scholes_kernel().launch(grid, block, lightning::work::block(chunk), call, put,
                                            stock_price, option_strike, option_years, riskfree,
                                            volatility, opt_n);
    lightning::fence();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    Kokkos::View<F2*, Kokkos::HostSpace> host_call("host_call", n), host_put("host_put", n);
    Kokkos::deep_copy(host_call, call);
    Kokkos::deep_copy(host_put, put);
    const ported::PriceErrors errors =
        ported::black_scholes_errors(in, host_call.data(), host_put.data(), riskfree, volatility);
    const bool correct = errors.l1_norm <= 1e-6;
    std::printf(
        "{\"options\": %d, \"iterations\": %d, \"ms_per_iteration\": %.4f, "
        "\"effective_GBps\": %.1f, \"l1_norm\": %.3e, \"max_abs_error\": %.3e, "
        "\"correct\": %s}\n",
        opt_n, iterations, seconds / iterations * 1e3,
        5.0 * opt_n * sizeof(float) / (seconds / iterations) / 1e9, errors.l1_norm, errors.max_abs,
        correct ? "true" : "false");
    return correct ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "black_scholes_ported: %s\n", e.what());
    return 1;
  }
}
