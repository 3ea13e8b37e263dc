// Ported CUDA kernels through the public API, on emulated host devices (no GPU needed):
// registration layout, argument checks, and the clear error when a launch reaches a host
// device.
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
  // short at 96; 98 rounded to 104.
  EXPECT_EQ(info.device.param_offsets, (std::vector<size_t>{0, 8, 40, 48, 96}));
  EXPECT_EQ(info.functor_size, 104u);
  ASSERT_EQ(info.description.arrays.size(), 2u);
  EXPECT_EQ(info.description.arrays[1].byte_offset, 48u);
  EXPECT_EQ(info.description.arrays[1].rank, 2);
  ASSERT_EQ(info.description.scalars.size(), 2u);  // the integer scalars an annotation may name
  EXPECT_EQ(info.device.kind, lightning::kernel::DeviceCodeKind::kPorted);
  EXPECT_EQ(info.device.function, "f");
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
  try {
    stencil.launch(8, 128, work, 1024, a, a);
    FAIL() << "blocks of 128 threads were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("blocks of 128 threads"), std::string::npos) << e.what();
  }
}

TEST(PortedKernel, ALaunchOnHostDevicesFailsClearlyAtTheFence) {
  lightning::View<float*> in("in", 4096);
  lightning::View<float*> out("out", 4096);
  ported::stencil_kernel().launch(16, 256, lightning::work::block(1024), 4096, out, in);
  try {
    lightning::fence();
    FAIL() << "a ported kernel ran on a host device";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTask);
    const std::string what = e.what();
    EXPECT_NE(what.find("ported::stencil"), std::string::npos) << what;
    EXPECT_NE(what.find("GPU devices only"), std::string::npos) << what;
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
