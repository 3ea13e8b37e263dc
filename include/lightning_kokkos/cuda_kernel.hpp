// Ported CUDA kernels (the paper's route): an existing CUDA kernel, changed in three ways,
// registered with its parameters and an annotation, launched over a grid on every GPU.
//
//   The three changes to the kernel (docs/cuda.md):
//     1. `__global__` becomes `__device__`;
//     2. the block index is a parameter, `dim3 blockIdx`, first (the runtime passes the
//        index of the block in the whole grid);
//     3. raw pointers become lightning::Vector<T> / Matrix<T> / Tensor<T>, indexed with
//        global coordinates (`v[i]`, `m(i, j)`).
//   Blocks and grids of 1-3 axes, static and dynamic __shared__ memory, __syncthreads,
//   __launch_bounds__, gridDim, warp intrinsics and atomics work as in CUDA.
//
//   const lightning::CudaKernel stencil(
//       "stencil", stencil_source, "stencil",
//       {lightning::CudaParam::scalar<int>("n"), lightning::CudaParam::array<float>("out", 1),
//        lightning::CudaParam::array<float>("in", 1)},
//       "global i => read in[i-1:i+1], write out[i]");
//   stencil.launch(grid, 256, lightning::work::block(65536), n, out, in);
//   hotspot.launch({{gx, gy}, {16, 16}}, lightning::work::block(1, rows), ...);  // 2-D
//
// Construct kernels at namespace scope (static initialisation), like LIGHTNING_KERNEL, so
// every process of a program registers the same kernels. They run on GPUs through NVRTC, and
// on emulated host devices when registered with lightning::on_host<function>() (the CUDA
// shim, lightning_kokkos/cuda_shim.hpp); without it a superblock placed on a host device
// fails its task, reported at the next fence.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "lightning_kokkos/device/ported_launch.hpp"
#include "lightning_kokkos/internal/core/data_type.hpp"
#include "lightning_kokkos/internal/core/error.hpp"
#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/distribution/work_distribution.hpp"
#include "lightning_kokkos/internal/kernel/kernel_registry.hpp"
#include "lightning_kokkos/view.hpp"

namespace lightning {

/// One parameter of a ported kernel: an array (element type, 1-3 axes) or a scalar (rank 0);
/// or a named constant for its annotation (`constant("BLOCK_SIZE", 16)`: the value of a macro
/// the kernel uses), which is no argument of the function and takes no launch argument.
struct CudaParam {
  std::string name;
  DataType type = DataType::kFloat32;
  int rank = 0;
  bool is_constant = false;
  int64_t value = 0;  ///< of a constant

  template <class T>
  static CudaParam array(std::string name, int rank) {
    return {std::move(name), data_type_of<std::remove_const_t<T>>(), rank};
  }
  template <class T>
  static CudaParam scalar(std::string name) {
    static_assert(std::is_arithmetic_v<T>, "ported kernels' scalar parameters are numbers");
    return {std::move(name), data_type_of<T>(), 0};
  }
  static CudaParam constant(std::string name, int64_t value) {
    return {std::move(name), DataType::kInt64, 0, true, value};
  }
};

/// A grid or block extent, as CUDA's dim3: 1 to 3 axes, x first (`{16, 16}` has two).
struct Dim3 {
  Dim3(int64_t x) : x(x), rank(1) {}  // NOLINT: an integer is a 1-D extent, as in CUDA
  Dim3(int64_t x, int64_t y) : x(x), y(y), rank(2) {}
  Dim3(int64_t x, int64_t y, int64_t z) : x(x), y(y), z(z), rank(3) {}
  int64_t x = 1, y = 1, z = 1;
  int rank = 1;
};

/// How a ported kernel is launched: CUDA's <<<grid, block, shared_bytes>>>. The launch
/// domain has as many axes as the larger of grid and block (axis 0 is x), and its threads
/// are the grid's: `global [x, y]` is (blockIdx.x * blockDim.x + threadIdx.x, ... .y).
struct CudaLaunch {
  Dim3 grid;
  Dim3 block;
  uint64_t shared_bytes = 0;  ///< dynamic shared memory per block (extern __shared__)
};

/// A ported kernel's function built for emulated host devices by the host compiler through
/// the CUDA shim: `lightning::on_host<function>()` (lightning_kokkos/cuda_shim.hpp) makes one.
/// Without it, a ported kernel runs on GPU devices only.
struct PortedHostCode {
  kernel::HostEntry run = nullptr;
  /// The function's parameters after the block index, as its signature gives them (type and
  /// rank; no names): checked against the registered parameters.
  std::vector<CudaParam> params;
};

/// A registered ported CUDA kernel.
class CudaKernel {
 public:
  /// Registers `function` of the CUDA source `source` as kernel `name`, with `params` (the
  /// function's parameters after the block index, in order, and any named constants) and
  /// `annotation` (its threads
  /// are the grid's: `global i` is blockIdx.x * blockDim.x + threadIdx.x; it is checked
  /// against the parameters at the first launch, as LIGHTNING_KERNEL's). Throws
  /// Error(kInvalidArgument) for a bad parameter list or a name already registered.
  /// `host` (lightning::on_host<function>()) lets it run on emulated host devices too; its
  /// parameters must be the registered ones.
  CudaKernel(std::string name, std::string source, std::string function,
             std::vector<CudaParam> params, std::string annotation, PortedHostCode host = {});
  /// The same with the source read from `path`; throws Error(kInvalidArgument) naming the
  /// file when it cannot be read.
  static CudaKernel from_file(std::string name, const std::string& path, std::string function,
                              std::vector<CudaParam> params, std::string annotation,
                              PortedHostCode host = {});

  KernelId id() const { return id_; }
  const std::string& name() const { return name_; }

  /// Launches `config.grid` blocks of `config.block` threads with `config.shared_bytes` of
  /// dynamic shared memory per block, split into superblocks by `work` (whole blocks: each
  /// superblock's edges are multiples of the block's extent on every axis). Throws
  /// Error(kInvalidArgument) for a shape no device allows (more than 1024 threads per block,
  /// more than the kernel's __launch_bounds__, grids beyond CUDA's limits). `args` follow
  /// the parameters: a lightning::View of the declared element type and rank per array, a
  /// value per scalar (converted to the declared type). Asynchronous, like parallel_for.
  template <class... Args>
  void launch(const CudaLaunch& config, const WorkDistribution& work, const Args&... args) const {
    check_arity(sizeof...(Args));
    std::vector<unsigned char> bytes(functor_size_, 0);
    std::vector<ArrayId> arrays;
    size_t p = 0;
    (add_argument(bytes, arrays, p++, args), ...);
    launch_bytes(config, work, bytes, std::move(arrays));
  }
  /// The same without dynamic shared memory: `launch(grid, block, work, args...)`.
  template <class... Args>
  void launch(const Dim3& grid, const Dim3& block, const WorkDistribution& work,
              const Args&... args) const {
    launch(CudaLaunch{grid, block, 0}, work, args...);
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
  void launch_bytes(const CudaLaunch& config, const WorkDistribution& work,
                    std::vector<unsigned char>& bytes, std::vector<ArrayId> arrays) const;

  KernelId id_;
  std::string name_;
  std::vector<CudaParam> params_;
  std::vector<size_t> offsets_;  ///< of each parameter in the packed bytes
  size_t launch_offset_ = 0;     ///< of the jit::PortedLaunch that follows them
  size_t functor_size_ = 0;
  int64_t max_threads_ = 0;  ///< its __launch_bounds__' threads per block; 0: none
};

namespace detail {
/// The KernelInfo of a ported kernel: signature, packed layout (arrays as ArrayHandles,
/// 8-aligned; scalars naturally aligned; then, 8-aligned, the launch's jit::PortedLaunch:
/// kernel/packed_parameters.hpp), DeviceCode kPorted, and as host entry point `host.run`, or
/// one that fails the task (GPU devices only). Throws Error(kInvalidArgument) for a bad
/// parameter or host code whose parameters differ. (Out of line: also used by tests.)
kernel::KernelInfo ported_kernel_info(const std::string& name, const std::string& source,
                                      const std::string& function,
                                      const std::vector<CudaParam>& params,
                                      const std::string& annotation,
                                      const PortedHostCode& host = {});
}  // namespace detail

}  // namespace lightning
