// Registration of the ported kernels. Their sources are embedded at build time as text for
// NVRTC (ported_sources.hpp, generated from the .cu files) and, through the CUDA shim, built
// here for emulated host devices.
#include "ported_kernels.hpp"

#include "lightning_kokkos/cuda_shim.hpp"
#include "ported_sources.hpp"

// The kernels' functions, for host devices.
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
    "global i => read points[i, :], read centroids[:, :], write labels[i]",
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
    " write dst[by * (B - 2 * steps) : by * (B - 2 * steps) + B - 1 - 2 * steps,"
    "           bx * (B - 2 * steps) : bx * (B - 2 * steps) + B - 1 - 2 * steps]",
    lightning::on_host<hotspot>());

const lightning::CudaKernel kNbody("ported::nbody", ported_sources::kNbody, "nbody_accelerations",
                                   {CudaParam::scalar<int>("n"),
                                    CudaParam::scalar<float>("softening2"),
                                    CudaParam::array<lightning::float4>("bodies", 1),
                                    CudaParam::array<lightning::float4>("accelerations", 1)},
                                   "global i => read bodies[:], write accelerations[i]",
                                   lightning::on_host<nbody_accelerations>());

// Thread (x, y) computes C(y, x): it reads row y of A and column x of B.
const lightning::CudaKernel kGemm("ported::gemm", ported_sources::kGemm, "gemm_tiled",
                                  {CudaParam::scalar<int>("m"), CudaParam::scalar<int>("n"),
                                   CudaParam::scalar<int>("k"), CudaParam::array<float>("A", 2),
                                   CudaParam::array<float>("B", 2),
                                   CudaParam::array<float>("C", 2)},
                                  "global [x, y] => read A[y, :], read B[:, x], write C[y, x]",
                                  lightning::on_host<gemm_tiled>());
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

}  // namespace ported
