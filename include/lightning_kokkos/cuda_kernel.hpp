// Ported CUDA kernels (the paper's route): an existing CUDA kernel, changed in three ways,
// registered with its parameters and an annotation, launched over a grid on every GPU.
//
//   The three changes to the kernel (docs/cuda.md):
//     1. `__global__` becomes `__device__`;
//     2. the block index is a parameter, `dim3 blockIdx`, first (the runtime passes the
//        virtual index of the block in the whole grid);
//     3. raw pointers become lightning::Vector<T> / Matrix<T> / Tensor<T>, indexed with
//        global coordinates (`v[i]`, `m(i, j)`).
//
//   const lightning::CudaKernel stencil(
//       "stencil", stencil_source, "stencil",
//       {lightning::CudaParam::scalar<int>("n"), lightning::CudaParam::array<float>("out", 1),
//        lightning::CudaParam::array<float>("in", 1)},
//       "global i => read in[i-1:i+1], write out[i]");
//   stencil.launch(grid, 256, lightning::work::block(65536), n, out, in);
//
// Construct kernels at namespace scope (static initialisation), like LIGHTNING_KERNEL, so
// every process of a program registers the same kernels. GPU devices only: a launch whose
// superblocks land on an emulated host device fails its tasks, reported at the next fence.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "lightning_kokkos/internal/core/data_type.hpp"
#include "lightning_kokkos/internal/core/error.hpp"
#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/distribution/work_distribution.hpp"
#include "lightning_kokkos/internal/kernel/kernel_registry.hpp"
#include "lightning_kokkos/view.hpp"

namespace lightning {

/// One parameter of a ported kernel: an array (element type, 1-3 axes) or a scalar (rank 0).
struct CudaParam {
  std::string name;
  DataType type = DataType::kFloat32;
  int rank = 0;

  template <class T>
  static CudaParam array(std::string name, int rank) {
    return {std::move(name), data_type_of<std::remove_const_t<T>>(), rank};
  }
  template <class T>
  static CudaParam scalar(std::string name) {
    static_assert(std::is_arithmetic_v<T>, "ported kernels' scalar parameters are numbers");
    return {std::move(name), data_type_of<T>(), 0};
  }
};

/// A registered ported CUDA kernel.
class CudaKernel {
 public:
  /// Registers `function` of the CUDA source `source` as kernel `name`, with `params` (the
  /// function's parameters after the block index, in order) and `annotation` (its threads
  /// are the grid's: `global i` is blockIdx.x * blockDim.x + threadIdx.x; it is checked
  /// against the parameters at the first launch, as LIGHTNING_KERNEL's). Throws
  /// Error(kInvalidArgument) for a bad parameter list or a name already registered.
  CudaKernel(std::string name, std::string source, std::string function,
             std::vector<CudaParam> params, std::string annotation);
  /// The same with the source read from `path`; throws Error(kInvalidArgument) naming the
  /// file when it cannot be read.
  static CudaKernel from_file(std::string name, const std::string& path, std::string function,
                              std::vector<CudaParam> params, std::string annotation);

  KernelId id() const { return id_; }
  const std::string& name() const { return name_; }

  /// Launches `grid` blocks of `block` threads (1-D; 256 for now: the block size GPU devices
  /// launch), split into superblocks by `work` (whole blocks: superblock sizes must be
  /// multiples of `block`). Throws Error(kInvalidArgument) for another block size. `args` follow
  /// the parameters: a lightning::View of the declared element type and rank per array, a value per
  /// scalar (converted to the declared type). Asynchronous, like parallel_for.
  template <class... Args>
  void launch(int64_t grid, int block, const WorkDistribution& work, const Args&... args) const {
    check_arity(sizeof...(Args));
    std::vector<unsigned char> bytes(functor_size_, 0);
    std::vector<ArrayId> arrays;
    size_t p = 0;
    (add_argument(bytes, arrays, p++, args), ...);
    launch_bytes(grid, block, work, bytes, std::move(arrays));
  }

 private:
  template <class D, class L>
  void add_argument(std::vector<unsigned char>&, std::vector<ArrayId>& arrays, size_t p,
                    const View<D, L>& view) const {
    using V = View<D, L>;
    check_array(p, data_type_of<typename V::non_const_value_type>(), static_cast<int>(V::rank),
                view.impl_array_id());
    arrays.push_back(view.impl_array_id());
  }
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  void add_argument(std::vector<unsigned char>& bytes, std::vector<ArrayId>& arrays, size_t p,
                    T value) const {
    store_scalar(bytes, p, static_cast<double>(value), static_cast<int64_t>(value),
                 std::is_floating_point_v<T>);
    arrays.push_back(ArrayId());
  }
  void check_arity(size_t count) const;
  void check_array(size_t p, DataType type, int rank, ArrayId array) const;
  void store_scalar(std::vector<unsigned char>& bytes, size_t p, double as_double,
                    int64_t as_integer, bool is_floating) const;
  void launch_bytes(int64_t grid, int block, const WorkDistribution& work,
                    const std::vector<unsigned char>& bytes, std::vector<ArrayId> arrays) const;

  KernelId id_;
  std::string name_;
  std::vector<CudaParam> params_;
  std::vector<size_t> offsets_;  ///< of each parameter in the packed bytes
  size_t functor_size_ = 0;
};

namespace detail {
/// The KernelInfo of a ported kernel: signature, packed layout (arrays as ArrayHandles,
/// 8-aligned; scalars naturally aligned), DeviceCode kPorted, and a host entry point that
/// fails the task (GPU devices only). Throws
/// Error(kInvalidArgument) for a bad parameter. (Out of line: also used by tests.)
kernel::KernelInfo ported_kernel_info(const std::string& name, const std::string& source,
                                      const std::string& function,
                                      const std::vector<CudaParam>& params,
                                      const std::string& annotation);
}  // namespace detail

}  // namespace lightning
