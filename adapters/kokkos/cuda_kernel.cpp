// Ported CUDA kernels: registration (packed parameter layout) and launches.
#include "lightning_kokkos/cuda_kernel.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "driver/driver.hpp"
#include "kernel/packed_parameters.hpp"
#include "kernel/ported_launch.hpp"
#include "kernel/ported_source.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/runtime.hpp"

namespace lightning {

namespace detail {

namespace {
// The host entry point of a ported kernel registered without host code: a superblock placed
// on an emulated host device fails its task with this (the worker adds kernel, superblock
// and device; the next fence throws it).
void ported_kernel_on_host(const void*, const Rect&, void*) {
  throw std::runtime_error(
      "this ported CUDA kernel has GPU code only: run it on GPU devices "
      "(LIGHTNING_DEVICES=cuda), or register it with lightning::on_host<function>() "
      "(lightning_kokkos/cuda_shim.hpp) to run it on emulated host devices");
}

std::string describe(const CudaParam& p) {
  return std::string(name_of(p.type)) +
         (p.rank ? " array of " + std::to_string(p.rank) + " axes" : " scalar");
}
}  // namespace

kernel::KernelInfo ported_kernel_info(const std::string& name, const std::string& source,
                                      const std::string& function,
                                      const std::vector<CudaParam>& params,
                                      const std::string& annotation, const PortedHostCode& host) {
  auto fail = [&](const std::string& what) -> void {
    throw Error(ErrorKind::kInvalidArgument, "ported CUDA kernel '" + name + "': " + what);
  };
  if (function.empty()) fail("no __device__ function named");
  if (kernel::read_ported_source(source, function).uses_constant_memory)
    fail(
        "its source declares __constant__ memory, which nothing can fill here (there is no "
        "cudaMemcpyToSymbol): pass the table as an array parameter instead");
  kernel::KernelInfo info;
  info.name = name;
  info.description.annotation = annotation;
  size_t at = 0;
  int index = 0;  // of the parameter in the signature (constants are not parameters)
  std::vector<CudaParam> arguments;
  for (size_t p = 0; p < params.size(); ++p) {
    const CudaParam& param = params[p];
    if (param.name.empty()) fail("parameter " + std::to_string(p) + " has no name");
    if (info.description.signature.find(param.name) >= 0 ||
        std::any_of(info.description.signature.constants.begin(),
                    info.description.signature.constants.end(),
                    [&](const auto& c) { return c.name == param.name; }))
      fail("two parameters are called '" + param.name + "'");
    if (param.is_constant) {
      info.description.signature.add_constant(param.name, param.value);
      continue;
    }
    arguments.push_back(param);
    size_t size = 0;
    size_t align = 0;
    if (param.rank == 0) {
      size = align = size_of(param.type);
      info.description.signature.add_scalar(param.name, param.type);
      if (is_integral(param.type))
        info.description.scalars.push_back({index, kernel::packed_offset(at, align), param.type});
    } else if (param.rank >= 1 && param.rank <= 3) {
      size = static_cast<size_t>(array_handle_size(param.rank));
      align = kernel::kPackedArrayAlignment;
      info.description.signature.add_array(param.name, param.type, param.rank);
      info.description.arrays.push_back({index, kernel::packed_offset(at, align), param.rank});
    } else {
      fail("array '" + param.name + "' has rank " + std::to_string(param.rank) +
           " (1 to 3 axes, or 0 for a scalar)");
    }
    ++index;
    at = kernel::packed_offset(at, align);
    info.device.param_offsets.push_back(at);
    at += size;
  }
  info.device.launch_offset = kernel::packed_launch_offset(at);
  info.functor_size = info.device.launch_offset + sizeof(jit::PortedLaunch);
  info.run_host = &ported_kernel_on_host;
  if (host.run) {
    if (host.params.size() != arguments.size())
      fail("its host function takes " + std::to_string(host.params.size()) +
           " parameters after the block index, " + std::to_string(arguments.size()) +
           " are registered");
    for (size_t p = 0; p < arguments.size(); ++p)
      if (host.params[p].type != arguments[p].type || host.params[p].rank != arguments[p].rank)
        fail("parameter '" + arguments[p].name + "' is registered as a " + describe(arguments[p]) +
             ", the host function takes a " + describe(host.params[p]));
    info.run_host = host.run;
    // Its arrays are DeviceArrays, which follow checked handles on the host too.
    info.takes_checked_handles = true;
  }
  info.device.kind = kernel::DeviceCodeKind::kPorted;
  info.device.source = source;
  info.device.function = function;
  return info;
}

}  // namespace detail

CudaKernel::CudaKernel(std::string name, std::string source, std::string function,
                       std::vector<CudaParam> params, std::string annotation, PortedHostCode host)
    : name_(std::move(name)) {
  kernel::KernelInfo info =
      detail::ported_kernel_info(name_, source, function, params, annotation, host);
  for (CudaParam& p : params)
    if (!p.is_constant) params_.push_back(std::move(p));
  offsets_ = info.device.param_offsets;
  launch_offset_ = info.device.launch_offset;
  functor_size_ = info.functor_size;
  max_threads_ = kernel::read_ported_source(source, function).max_threads;
  id_ = kernel::KernelRegistry::add(std::move(info));
}

CudaKernel CudaKernel::from_file(std::string name, const std::string& path, std::string function,
                                 std::vector<CudaParam> params, std::string annotation,
                                 PortedHostCode host) {
  std::ifstream in(path);
  if (!in)
    throw Error(ErrorKind::kInvalidArgument,
                "ported CUDA kernel '" + name + "': cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return CudaKernel(std::move(name), text.str(), std::move(function), std::move(params),
                    std::move(annotation), std::move(host));
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

void CudaKernel::launch_bytes(const CudaLaunch& config, const WorkDistribution& work,
                              std::vector<unsigned char>& bytes,
                              std::vector<ArrayId> arrays) const {
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::kInvalidArgument, "ported CUDA kernel '" + name_ + "': " + what);
  };
  jit::PortedLaunch shape{};
  shape.rank = static_cast<uint32_t>(std::max(config.grid.rank, config.block.rank));
  const int64_t grid[3] = {config.grid.x, config.grid.y, config.grid.z};
  const int64_t block[3] = {config.block.x, config.block.y, config.block.z};
  for (int a = 0; a < 3; ++a) {
    // CUDA's own limits are far below 2^32; larger values are refused, not truncated.
    if (grid[a] < 1 || block[a] < 1 || grid[a] > UINT32_MAX || block[a] > UINT32_MAX)
      fail("a launch of grid (" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " +
           std::to_string(grid[2]) + ") of blocks (" + std::to_string(block[0]) + ", " +
           std::to_string(block[1]) + ", " + std::to_string(block[2]) +
           "): every extent must be at least 1");
    shape.grid[a] = static_cast<uint32_t>(grid[a]);
    shape.block[a] = static_cast<uint32_t>(block[a]);
  }
  if (config.shared_bytes > UINT32_MAX)
    fail(std::to_string(config.shared_bytes) + " bytes of dynamic shared memory per block");
  shape.shared_bytes = static_cast<uint32_t>(config.shared_bytes);
  const std::string wrong = kernel::limit_violation(shape, max_threads_);
  if (!wrong.empty()) fail(wrong);
  std::memcpy(bytes.data() + launch_offset_, &shape, sizeof(shape));
  driver::Launch l;
  l.kernel = id_;
  l.functor = bytes.data();
  l.arrays = std::move(arrays);
  l.domain = kernel::domain_of(shape);
  l.block_size = kernel::block_size_of(shape);
  l.work = work;
  try {
    detail::runtime().launch(l);
  } catch (Error& e) {
    // Errors found at the launch (its annotation above all) name the kernel and its shape.
    e.with_context("in the launch of ported CUDA kernel '" + name_ + "' (" +
                   kernel::to_string(shape) + ")");
    throw;
  }
}

}  // namespace lightning
