// Registration of the ported kernels; their sources are embedded at build time
// (ported_sources.hpp, generated from the .cu files).
#include "ported_kernels.hpp"

#include "ported_sources.hpp"

namespace ported {

namespace {
using lightning::CudaParam;

// Namespace-scope objects: registered during static initialisation, in every process.
const lightning::CudaKernel kStencil("ported::stencil", ported_sources::kStencil, "stencil",
                                     {CudaParam::scalar<int>("n"),
                                      CudaParam::array<float>("output", 1),
                                      CudaParam::array<float>("input", 1)},
                                     "global i => read input[i-1:i+1], write output[i]");

const lightning::CudaKernel kKmeansAssign(
    "ported::kmeans_assign", ported_sources::kKmeansAssign, "kmeans_assign",
    {CudaParam::scalar<int>("n"), CudaParam::scalar<int>("k"), CudaParam::scalar<int>("d"),
     CudaParam::array<float>("points", 2), CudaParam::array<float>("centroids", 2),
     CudaParam::array<int>("labels", 1)},
    "global i => read points[i, :], read centroids[:, :], write labels[i]");
}  // namespace

const lightning::CudaKernel& stencil_kernel() {
  return kStencil;
}
const lightning::CudaKernel& kmeans_assign_kernel() {
  return kKmeansAssign;
}

}  // namespace ported
