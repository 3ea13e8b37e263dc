// Ported CUDA kernels through the public API, on emulated host devices (no GPU needed):
// registration layout, argument and launch-shape checks, and the clear error when a kernel
// without host code reaches a host device. (The CUDA shim: cuda_shim_test.cpp.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "lightning_kokkos/cuda_kernel.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"
#include "ported_kernels.hpp"

namespace {

using lightning::CudaParam;
using lightning::Error;
using lightning::ErrorKind;

TEST(PortedKernel, PackedLayoutFollowsTheParameters) {
  const lightning::kernel::KernelInfo info = lightning::detail::ported_kernel_info(
      "test::layout", "", "f",
      {CudaParam::scalar<int>("n"), CudaParam::array<float>("out", 1),
       CudaParam::scalar<double>("w"), CudaParam::array<int>("m", 2),
       CudaParam::scalar<short>("s")},
      "global i => write out[i]");
  // int at 0, a rank-1 handle (32 bytes) at 8, double at 40, a rank-2 handle (48) at 48,
  // short at 96; then the launch shape (32 bytes) at 98 rounded to 104.
  EXPECT_EQ(info.device.param_offsets, (std::vector<size_t>{0, 8, 40, 48, 96}));
  EXPECT_EQ(info.device.launch_offset, 104u);
  EXPECT_EQ(info.functor_size, 136u);
  ASSERT_EQ(info.description.arrays.size(), 2u);
  EXPECT_EQ(info.description.arrays[1].byte_offset, 48u);
  EXPECT_EQ(info.description.arrays[1].rank, 2);
  ASSERT_EQ(info.description.scalars.size(), 2u);  // the integer scalars an annotation may name
  EXPECT_EQ(info.device.kind, lightning::kernel::DeviceCodeKind::kPorted);
  EXPECT_EQ(info.device.function, "f");
}

TEST(PortedKernel, NamedConstantsAreForTheAnnotationNotTheLayout) {
  const lightning::kernel::KernelInfo info = lightning::detail::ported_kernel_info(
      "test::constants", "", "f",
      {CudaParam::constant("TILE", 16), CudaParam::scalar<int>("n"),
       CudaParam::array<float>("out", 1), CudaParam::constant("HALO", 2)},
      "global i => write out[i * TILE + HALO]");
  EXPECT_EQ(info.device.param_offsets, (std::vector<size_t>{0, 8}));
  EXPECT_EQ(info.description.signature.params.size(), 2u);
  ASSERT_EQ(info.description.signature.constants.size(), 2u);
  EXPECT_EQ(info.description.signature.constants[0].name, "TILE");
  EXPECT_EQ(info.description.signature.constants[1].value, 2);
  ASSERT_EQ(info.description.arrays.size(), 1u);
  EXPECT_EQ(info.description.arrays[0].param, 1);  // its place among the parameters
  EXPECT_THROW(lightning::detail::ported_kernel_info(
                   "test::constants2", "", "f",
                   {CudaParam::scalar<int>("n"), CudaParam::constant("n", 1)}, ""),
               Error);
}

TEST(PortedKernel, BadParameterListsNameTheKernel) {
  try {
    lightning::detail::ported_kernel_info(
        "test::bad", "", "f", {CudaParam::scalar<int>("n"), CudaParam::scalar<int>("n")}, "");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'test::bad': two parameters are called 'n'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(lightning::detail::ported_kernel_info("test::bad", "", "f",
                                                     {{"a", lightning::DataType::kFloat32, 4}}, ""),
               Error);
  EXPECT_THROW(lightning::detail::ported_kernel_info("test::bad", "", "", {}, ""), Error);
  try {
    lightning::detail::ported_kernel_info(
        "test::table", "__constant__ float table[4];\n__device__ void f(dim3 b) {}", "f", {}, "");
    FAIL() << "__constant__ memory was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'test::table': its source declares __constant__ "
                                         "memory"),
              std::string::npos)
        << e.what();
  }
}

TEST(PortedKernel, ArgumentsAreCheckedAgainstTheParameters) {
  lightning::View<float*> a("a", 1024);
  lightning::View<double*> d("d", 1024);
  const auto& stencil = ported::stencil_kernel();
  const auto work = lightning::work::block(256);
  auto message = [&](auto&&... args) {
    try {
      stencil.launch(4, 256, work, args...);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(1024, a).find("takes 3 arguments, the launch gives 2"), std::string::npos);
  EXPECT_NE(message(1024, a, d)
                .find("argument 'input': declared float with 1 axes, given a "
                      "View of double"),
            std::string::npos)
      << message(1024, a, d);
  EXPECT_NE(message(a, a, a).find("argument 'n': a scalar is declared"), std::string::npos);
  EXPECT_NE(message(1024, 5, a).find("argument 'output': an array is declared"), std::string::npos);
}

// A kernel with launch bounds, registered like an application's.
const lightning::CudaKernel kBounded(
    "test::bounded",
    "__device__ void __launch_bounds__(128, 4) bounded(dim3 blockIdx, lightning::Matrix<float> m) "
    "{\n"
    "  m(blockIdx.y * blockDim.y + threadIdx.y, blockIdx.x * blockDim.x + threadIdx.x) = 1;\n"
    "}\n",
    "bounded", {CudaParam::array<float>("m", 2)}, "global [x, y] => write m[y, x]");

TEST(PortedKernel, LaunchShapesNoDeviceAllowsAreRefusedNamingTheLimit) {
  lightning::View<float**> m("m", 64, 64);
  auto message = [&](const lightning::CudaLaunch& config) {
    try {
      kBounded.launch(config, lightning::work::block(1, 16), m);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto refused = [&](const lightning::CudaLaunch& config, const std::string& part) {
    const std::string what = message(config);
    EXPECT_NE(what.find("ported CUDA kernel 'test::bounded': " + part), std::string::npos) << what;
  };
  refused({{2, 2}, {64, 32}}, "a block (64, 32) of 2048 threads is more than 1024");
  refused({{2, 2}, {16, 16}},
          "a block (16, 16) of 256 threads is more than the kernel's "
          "__launch_bounds__ allow (128)");
  refused({{2, 70000}, {8, 8}}, "a grid of 70000 blocks along y is more than 65535");
  refused({{1, 1, 1}, {1, 1, 128}}, "a block of 128 threads along z is more than 64");
  refused({{0, 4}, {8, 8}}, "a launch of grid (0, 4, 1) of blocks (8, 8, 1): every extent");
  refused({{4, 4}, {8, -8}}, "a launch of grid (4, 4, 1) of blocks (8, -8, 1): every extent");
}

TEST(PortedKernel, SuperblocksCuttingThroughBlocksAreRefused) {
  lightning::View<float**> m("m", 64, 64);
  try {
    using lightning::Point;
    using lightning::Rect;
    const lightning::DeviceId d0(0);
    kBounded.launch({{8, 8}, {8, 8}},
                    lightning::work::explicit_list({{Rect(Point{0, 0}, Point{64, 12}), d0},
                                                    {Rect(Point{0, 12}, Point{64, 64}), d0}}),
                    m);
    lightning::fence();
    FAIL() << "superblocks of 12 rows of blocks of 8 were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of the block size"), std::string::npos)
        << e.what();
  }
}

TEST(PortedKernel, ALaunchOnHostDevicesWithoutHostCodeFailsClearlyAtTheFence) {
  lightning::View<float**> m("m", 64, 64);
  kBounded.launch({{8, 8}, {8, 8}}, lightning::work::block(1, 16), m);
  try {
    lightning::fence();
    FAIL() << "a ported kernel without host code ran on a host device";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTask);
    const std::string what = e.what();
    EXPECT_NE(what.find("test::bounded"), std::string::npos) << what;
    EXPECT_NE(what.find("has GPU code only"), std::string::npos) << what;
    EXPECT_NE(what.find("lightning::on_host<function>()"), std::string::npos) << what;
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  setenv("LIGHTNING_DEVICES", "host:2", /*overwrite=*/1);
  Kokkos::ScopeGuard kokkos(argc, argv);
  lightning::ScopeGuard lightning(argc, argv);
  return RUN_ALL_TESTS();
}
