// Registration of the ported kernels. Their sources are embedded at build time as text for
// NVRTC (ported_sources.hpp, generated from the .cu files) and, through the CUDA shim, built
// here for emulated host devices.
#include "ported_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "lightning_kokkos/cuda_shim.hpp"
#include "ported_sources.hpp"

// The kernels' functions, for host devices.
#include "black_scholes.cu"
#include "gemm.cu"
#include "hotspot.cu"
#include "kmeans_assign.cu"
#include "nbody.cu"
#include "stencil.cu"

namespace ported {

namespace {
using lightning::CudaParam;

// Namespace-scope objects: registered during static initialisation, in every process.
const lightning::CudaKernel kStencil("ported::stencil", ported_sources::kStencil, "stencil",
                                     {CudaParam::scalar<int>("n"),
                                      CudaParam::array<float>("output", 1),
                                      CudaParam::array<float>("input", 1)},
                                     "global i => read input[i-1:i+1], write output[i]",
                                     lightning::on_host<stencil>());

const lightning::CudaKernel kKmeansAssign(
    "ported::kmeans_assign", ported_sources::kKmeansAssign, "kmeans_assign",
    {CudaParam::scalar<int>("n"), CudaParam::scalar<int>("k"), CudaParam::scalar<int>("d"),
     CudaParam::array<float>("points", 2), CudaParam::array<float>("centroids", 2),
     CudaParam::array<int>("labels", 1)},
    "global i => read points[i, :], read centroids[:, :], overwrite labels[i]",
    lightning::on_host<kmeans_assign>());

// Block (bx, by) reads its window of the grids, `steps` cells beyond its tile on each side,
// and writes its tile of (16 - 2 steps)^2 cells; B is the kernel's HOTSPOT_BLOCK.
const lightning::CudaKernel kHotspot(
    "ported::hotspot", ported_sources::kHotspot, "hotspot",
    {CudaParam::scalar<int>("steps"), CudaParam::scalar<int>("rows"),
     CudaParam::scalar<int>("cols"), CudaParam::array<float>("power", 2),
     CudaParam::array<float>("src", 2), CudaParam::array<float>("dst", 2),
     CudaParam::scalar<float>("cap"), CudaParam::scalar<float>("rx"),
     CudaParam::scalar<float>("ry"), CudaParam::scalar<float>("rz"),
     CudaParam::scalar<float>("step"), CudaParam::scalar<float>("ambient"),
     CudaParam::constant("B", 16)},
    "block [bx, by] =>"
    " read power[by * (B - 2 * steps) - steps : by * (B - 2 * steps) + B - 1 - steps,"
    "            bx * (B - 2 * steps) - steps : bx * (B - 2 * steps) + B - 1 - steps],"
    " read src[by * (B - 2 * steps) - steps : by * (B - 2 * steps) + B - 1 - steps,"
    "          bx * (B - 2 * steps) - steps : bx * (B - 2 * steps) + B - 1 - steps],"
    " overwrite dst[by * (B - 2 * steps) : by * (B - 2 * steps) + B - 1 - 2 * steps,"
    "           bx * (B - 2 * steps) : bx * (B - 2 * steps) + B - 1 - 2 * steps]",
    lightning::on_host<hotspot>());

const lightning::CudaKernel kNbody("ported::nbody", ported_sources::kNbody, "nbody_accelerations",
                                   {CudaParam::scalar<int>("n"),
                                    CudaParam::scalar<float>("softening2"),
                                    CudaParam::array<lightning::float4>("bodies", 1),
                                    CudaParam::array<lightning::float4>("accelerations", 1)},
                                   "global i => read bodies[:], overwrite accelerations[i]",
                                   lightning::on_host<nbody_accelerations>());

// Thread (x, y) computes C(y, x): it reads row y of A and column x of B.
const lightning::CudaKernel kGemm("ported::gemm", ported_sources::kGemm, "gemm_tiled",
                                  {CudaParam::scalar<int>("m"), CudaParam::scalar<int>("n"),
                                   CudaParam::scalar<int>("k"), CudaParam::array<float>("A", 2),
                                   CudaParam::array<float>("B", 2),
                                   CudaParam::array<float>("C", 2)},
                                  "global [x, y] => read A[y, :], read B[:, x], overwrite C[y, x]",
                                  lightning::on_host<gemm_tiled>());

// Thread i prices the two options of element i of each array.
const lightning::CudaKernel kBlackScholes(
    "ported::black_scholes", ported_sources::kBlackScholes, "black_scholes",
    {CudaParam::array<lightning::float2>("call", 1), CudaParam::array<lightning::float2>("put", 1),
     CudaParam::array<lightning::float2>("stock_price", 1),
     CudaParam::array<lightning::float2>("option_strike", 1),
     CudaParam::array<lightning::float2>("option_years", 1), CudaParam::scalar<float>("riskfree"),
     CudaParam::scalar<float>("volatility"), CudaParam::scalar<int>("opt_n")},
    "global i => read stock_price[i], read option_strike[i], read option_years[i],"
    " overwrite call[i], overwrite put[i]",
    lightning::on_host<black_scholes>());

// The cumulative normal distribution by the same polynomial, in double precision.
double reference_cnd(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978,
               a5 = 1.330274429, rsqrt_2pi = 0.39894228040143267793994605993438;
  const double k = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  const double c =
      rsqrt_2pi * std::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0 - c : c;
}

void reference_prices(double& call, double& put, double s, double x, double t, double r, double v) {
  const double sqrt_t = std::sqrt(t);
  const double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
  const double d2 = d1 - v * sqrt_t;
  const double exp_rt = std::exp(-r * t);
  call = s * reference_cnd(d1) - x * exp_rt * reference_cnd(d2);
  put = x * exp_rt * (1.0 - reference_cnd(d2)) - s * (1.0 - reference_cnd(d1));
}
}  // namespace

const lightning::CudaKernel& stencil_kernel() {
  return kStencil;
}
const lightning::CudaKernel& kmeans_assign_kernel() {
  return kKmeansAssign;
}
const lightning::CudaKernel& hotspot_kernel() {
  return kHotspot;
}
const lightning::CudaKernel& nbody_kernel() {
  return kNbody;
}
const lightning::CudaKernel& gemm_kernel() {
  return kGemm;
}
const lightning::CudaKernel& black_scholes_kernel() {
  return kBlackScholes;
}

std::string options_not_even(const std::string& text) {
  return std::stoll(text) % 2 == 0
             ? std::string()
             : text + " is odd: the kernel prices two options a thread (float2 pairs)";
}

OptionInputs random_options(int64_t opt_n) {
  OptionInputs in;
  const auto half = static_cast<size_t>(opt_n / 2);
  in.stock_price.resize(half);
  in.option_strike.resize(half);
  in.option_years.resize(half);
  uint64_t state = 20261206;
  auto uniform = [&](float low, float high) {  // a fixed LCG: the same options on every run
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return low + (high - low) * float(state >> 40) / float(1 << 24);
  };
  for (size_t i = 0; i < half; ++i)
    for (int lane = 0; lane < 2; ++lane) {
      (lane ? in.stock_price[i].y : in.stock_price[i].x) = uniform(5.0f, 30.0f);
      (lane ? in.option_strike[i].y : in.option_strike[i].x) = uniform(1.0f, 100.0f);
      (lane ? in.option_years[i].y : in.option_years[i].x) = uniform(0.25f, 10.0f);
    }
  return in;
}

PriceErrors black_scholes_errors(const OptionInputs& in, const lightning::float2* call,
                                 const lightning::float2* put, float riskfree, float volatility,
                                 size_t stride) {
  PriceErrors e;
  double distance = 0, norm = 0;
  for (size_t i = 0; i < in.stock_price.size(); i += stride)
    for (int lane = 0; lane < 2; ++lane) {
      auto at = [lane](const lightning::float2& v) { return double(lane ? v.y : v.x); };
      double c = 0, p = 0;
      reference_prices(c, p, at(in.stock_price[i]), at(in.option_strike[i]), at(in.option_years[i]),
                       riskfree, volatility);
      distance += std::fabs(at(call[i]) - c);
      norm += std::fabs(c);
      e.max_abs = std::max({e.max_abs, std::fabs(at(call[i]) - c), std::fabs(at(put[i]) - p)});
    }
  e.l1_norm = norm > 0 ? distance / norm : distance;
  return e;
}

}  // namespace ported
