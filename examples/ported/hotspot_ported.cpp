// HotSpot as a ported CUDA kernel (hotspot.cu): a rows x cols thermal grid in 16x16 blocks
// over a 2-D grid, each block running `steps` steps in shared memory per launch, the grid cut
// into bands of block rows across every device; checked against a sequential step.
//
//   hotspot_ported [--rows R] [--cols C] [--steps S] [--launches L] [--band B]
//                  [--lightning-devices=cuda|host:N ...]
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "lightning_kokkos/kokkos_adapter.hpp"
#include "ported_kernels.hpp"

namespace {

// The chip's constants as HotSpot derives them for a 16 mm x 16 mm chip, 0.5 mm thick:
// the capacitance of a cell, the reciprocal thermal resistances towards its neighbours and
// the ambient, and the largest stable time step.
struct Chip {
  float cap, rx, ry, rz, step, ambient = 80.0f;
  Chip(int rows, int cols) {
    const double height = 0.016 / rows, width = 0.016 / cols, thickness = 0.0005;
    const double k_si = 100.0, spec_heat = 1.75e6, max_power_density = 3.0e6;
    cap = float(0.5 * spec_heat * thickness * width * height);
    rx = float(2.0 * k_si * thickness * height / width);
    ry = float(2.0 * k_si * thickness * width / height);
    rz = float(k_si * height * width / thickness);
    step = float(0.001 / (max_power_density / (0.5 * thickness * spec_heat)));
  }
};

// One sequential step, with the kernel's rule at the edges.
void reference_step(const std::vector<float>& power, const std::vector<float>& src,
                    std::vector<float>& dst, int rows, int cols, const Chip& k) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const float t = src[size_t(r) * cols + c];
      const float north = r > 0 ? src[size_t(r - 1) * cols + c] : t;
      const float south = r < rows - 1 ? src[size_t(r + 1) * cols + c] : t;
      const float west = c > 0 ? src[size_t(r) * cols + c - 1] : t;
      const float east = c < cols - 1 ? src[size_t(r) * cols + c + 1] : t;
      dst[size_t(r) * cols + c] =
          t + k.step / k.cap *
                  (power[size_t(r) * cols + c] + (north + south - 2.0f * t) * k.ry +
                   (east + west - 2.0f * t) * k.rx + (k.ambient - t) * k.rz);
    }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    lightning::ScopeGuard runtime(argc, argv);
    int rows = 1024, cols = 1024, steps = 2, launches = 10, band = 8;
    CLI::App app("HotSpot, ported from CUDA: 16x16 blocks with a shared-memory pyramid.");
    app.add_option("--rows", rows, "grid rows")->check(CLI::Range(1, 1 << 16));
    app.add_option("--cols", cols, "grid columns")->check(CLI::Range(1, 1 << 16));
    app.add_option("--steps", steps, "steps per launch (pyramid height)")->check(CLI::Range(1, 7));
    app.add_option("--launches", launches, "launches")->check(CLI::Range(1, 1 << 20));
    app.add_option("--band", band, "block rows per superblock")->check(CLI::Range(1, 1 << 12));
    CLI11_PARSE(app, argc, argv);
    const Chip chip(rows, cols);
    const int tile = 16 - 2 * steps;
    const int grid_x = (cols + tile - 1) / tile, grid_y = (rows + tile - 1) / tile;

    lightning::View<float**> power("power", rows, cols);
    lightning::View<float**> a("temp_a", rows, cols);
    lightning::View<float**> b("temp_b", rows, cols);
    Kokkos::View<float**, Kokkos::HostSpace> p0("p0", rows, cols), t0("t0", rows, cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        p0(r, c) = 0.5f + 0.25f * float((r * 7 + c * 13) % 11);
        t0(r, c) = 320.0f + float((r * 3 + c * 5) % 17);
      }
    Kokkos::deep_copy(power, p0);
    Kokkos::deep_copy(a, t0);
    Kokkos::deep_copy(b, t0);

    const lightning::CudaLaunch shape{{grid_x, grid_y}, {16, 16}};
    const auto work = lightning::work::block(1, int64_t{16} * band);  // bands of block rows
    const auto start = std::chrono::steady_clock::now();
    for (int l = 0; l < launches; ++l) {
      const auto& src = l % 2 ? b : a;
      const auto& dst = l % 2 ? a : b;
      ported::hotspot_kernel().launch(shape, work, steps, rows, cols, power, src, dst, chip.cap,
                                      chip.rx, chip.ry, chip.rz, chip.step, chip.ambient);
    }
    lightning::fence();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    Kokkos::View<float**, Kokkos::HostSpace> result("result", rows, cols);
    Kokkos::deep_copy(result, launches % 2 ? b : a);
    std::vector<float> pw(p0.data(), p0.data() + size_t(rows) * cols);
    std::vector<float> x(t0.data(), t0.data() + size_t(rows) * cols), y = x;
    for (int s = 0; s < launches * steps; ++s) {
      reference_step(pw, x, y, rows, cols, chip);
      std::swap(x, y);
    }
    double worst = 0;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        worst = std::max(worst, double(std::fabs(result(r, c) - x[size_t(r) * cols + c])));
    const bool ok = worst <= 1e-2;  // kelvin, of about 330
    std::printf(
        "{\"rows\": %d, \"cols\": %d, \"steps\": %d, \"launches\": %d, "
        "\"seconds\": %.6f, \"max_error\": %.3g, \"ok\": %s}\n",
        rows, cols, steps, launches, seconds, worst, ok ? "true" : "false");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hotspot_ported: %s\n", e.what());
    return 1;
  }
}
