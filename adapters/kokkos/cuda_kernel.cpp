// Ported CUDA kernels: registration (packed parameter layout) and launches.
#include "lightning_kokkos/cuda_kernel.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "driver/driver.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/runtime.hpp"

namespace lightning {

namespace detail {

namespace {
// A ported kernel's host entry point: it has GPU code only, so a superblock placed on an
// emulated host device fails its task with this (the worker adds kernel, superblock and
// device; the next fence throws it).
void ported_kernel_on_host(const void*, const Rect&, void*) {
  throw std::runtime_error(
      "ported CUDA kernels run on GPU devices only, not on emulated host devices "
      "(LIGHTNING_DEVICES=cuda)");
}
}  // namespace

kernel::KernelInfo ported_kernel_info(const std::string& name, const std::string& source,
                                      const std::string& function,
                                      const std::vector<CudaParam>& params,
                                      const std::string& annotation) {
  auto fail = [&](const std::string& what) -> void {
    throw Error(ErrorKind::kInvalidArgument, "ported CUDA kernel '" + name + "': " + what);
  };
  if (function.empty()) fail("no __device__ function named");
  kernel::KernelInfo info;
  info.name = name;
  info.description.annotation = annotation;
  size_t at = 0;
  for (size_t p = 0; p < params.size(); ++p) {
    const CudaParam& param = params[p];
    if (param.name.empty()) fail("parameter " + std::to_string(p) + " has no name");
    if (info.description.signature.find(param.name) >= 0)
      fail("two parameters are called '" + param.name + "'");
    size_t size = 0;
    size_t align = 0;
    if (param.rank == 0) {
      size = align = size_of(param.type);
      info.description.signature.add_scalar(param.name, param.type);
      if (is_integral(param.type))
        info.description.scalars.push_back(
            {static_cast<int>(p), (at + align - 1) / align * align, param.type});
    } else if (param.rank >= 1 && param.rank <= 3) {
      size = static_cast<size_t>(array_handle_size(param.rank));
      align = 8;
      info.description.signature.add_array(param.name, param.type, param.rank);
      info.description.arrays.push_back(
          {static_cast<int>(p), (at + align - 1) / align * align, param.rank});
    } else {
      fail("array '" + param.name + "' has rank " + std::to_string(param.rank) +
           " (1 to 3 axes, or 0 for a scalar)");
    }
    at = (at + align - 1) / align * align;
    info.device.param_offsets.push_back(at);
    at += size;
  }
  info.functor_size = (at + 7) / 8 * 8;
  if (info.functor_size == 0) info.functor_size = 8;
  info.run_host = &ported_kernel_on_host;
  info.device.kind = kernel::DeviceCodeKind::kPorted;
  info.device.source = source;
  info.device.function = function;
  return info;
}

}  // namespace detail

CudaKernel::CudaKernel(std::string name, std::string source, std::string function,
                       std::vector<CudaParam> params, std::string annotation)
    : name_(std::move(name)), params_(std::move(params)) {
  kernel::KernelInfo info =
      detail::ported_kernel_info(name_, source, function, params_, annotation);
  offsets_ = info.device.param_offsets;
  functor_size_ = info.functor_size;
  id_ = kernel::KernelRegistry::add(std::move(info));
}

CudaKernel CudaKernel::from_file(std::string name, const std::string& path, std::string function,
                                 std::vector<CudaParam> params, std::string annotation) {
  std::ifstream in(path);
  if (!in)
    throw Error(ErrorKind::kInvalidArgument,
                "ported CUDA kernel '" + name + "': cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return CudaKernel(std::move(name), text.str(), std::move(function), std::move(params),
                    std::move(annotation));
}

void CudaKernel::check_arity(size_t count) const {
  if (count != params_.size())
    throw Error(ErrorKind::kInvalidArgument,
                "ported CUDA kernel '" + name_ + "' takes " + std::to_string(params_.size()) +
                    " arguments, the launch gives " + std::to_string(count));
}

void CudaKernel::check_array(size_t p, DataType type, int rank, ArrayId array) const {
  const CudaParam& param = params_.at(p);
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::kInvalidArgument,
                "ported CUDA kernel '" + name_ + "', argument '" + param.name + "': " + what);
  };
  if (param.rank == 0) fail("a scalar is declared, a lightning::View given");
  if (param.rank != rank || param.type != type)
    fail("declared " + std::string(name_of(param.type)) + " with " + std::to_string(param.rank) +
         " axes, given a View of " + std::string(name_of(type)) + " with " + std::to_string(rank));
  if (!array.valid()) fail("the lightning::View is empty (default-constructed)");
}

void CudaKernel::store_scalar(std::vector<unsigned char>& bytes, size_t p, double as_double,
                              int64_t as_integer, bool is_floating) const {
  const CudaParam& param = params_.at(p);
  if (param.rank != 0)
    throw Error(ErrorKind::kInvalidArgument, "ported CUDA kernel '" + name_ + "', argument '" +
                                                 param.name +
                                                 "': an array is declared, a scalar given");
  unsigned char* at = bytes.data() + offsets_.at(p);
  auto put = [&](auto v) { std::memcpy(at, &v, sizeof(v)); };
  switch (param.type) {
    case DataType::kFloat32:
      return put(static_cast<float>(is_floating ? as_double : double(as_integer)));
    case DataType::kFloat64:
      return put(is_floating ? as_double : double(as_integer));
    case DataType::kInt8:
      return put(static_cast<int8_t>(as_integer));
    case DataType::kInt16:
      return put(static_cast<int16_t>(as_integer));
    case DataType::kInt32:
      return put(static_cast<int32_t>(as_integer));
    case DataType::kInt64:
      return put(as_integer);
    case DataType::kUInt8:
      return put(static_cast<uint8_t>(as_integer));
    case DataType::kUInt16:
      return put(static_cast<uint16_t>(as_integer));
    case DataType::kUInt32:
      return put(static_cast<uint32_t>(as_integer));
    case DataType::kUInt64:
      return put(static_cast<uint64_t>(as_integer));
    default:  // vector types: arrays only (CudaParam::scalar refuses them)
      break;
  }
  throw Error(ErrorKind::kInternal, "ported CUDA kernel '" + name_ + "': scalar parameter '" +
                                        param.name + "' of " + std::string(name_of(param.type)));
}

void CudaKernel::launch_bytes(int64_t grid, int block, const WorkDistribution& work,
                              const std::vector<unsigned char>& bytes,
                              std::vector<ArrayId> arrays) const {
  if (grid < 1 || block < 1 || block > 1024)
    throw Error(ErrorKind::kInvalidArgument, "ported CUDA kernel '" + name_ +
                                                 "': a launch needs at least one block of 1 to "
                                                 "1024 threads (given " +
                                                 std::to_string(grid) + " blocks of " +
                                                 std::to_string(block) + ")");
  // GPU devices launch blocks of 256 threads (the kernel ABI's default); a ported kernel
  // computes its indices from blockDim, so another size would give wrong virtual blocks.
  if (block != 256)
    throw Error(ErrorKind::kInvalidArgument,
                "ported CUDA kernel '" + name_ + "': blocks of " + std::to_string(block) +
                    " threads; GPU devices launch blocks of 256 threads for now");
  driver::Launch l;
  l.kernel = id_;
  l.functor = bytes.data();
  l.arrays = std::move(arrays);
  l.domain = Rect(Point{0}, Point{grid * block});
  l.block_size = Point{block};
  l.work = work;
  detail::runtime().launch(l);
}

}  // namespace lightning
