// The compile check (--lightning-compile-check): architectures, and every registered kernel
// compiled for one, failures carrying NVRTC's error with the kernel's name.
#include "backend/cuda/compile_check.hpp"

#include <gtest/gtest.h>

#include <string>

#include "kernel/kernel_registry.hpp"
#include "lightning_kokkos/cuda_kernel.hpp"

namespace lightning::cuda {
namespace {

TEST(CompileCheck, ArchitecturesAreSmNumbersOrCapabilities) {
  for (const char* text : {"sm_90", "90", "9.0"}) {
    const auto a = Architecture::parse(text);
    ASSERT_TRUE(a) << text;
    EXPECT_EQ(a->major, 9);
    EXPECT_EQ(a->minor, 0);
    EXPECT_EQ(a->to_string(), "sm_90");
  }
  EXPECT_EQ(Architecture::parse("8.6")->to_string(), "sm_86");
  for (const char* bad : {"", "sm_", "sm_x", "9", "900", "9.01", "compute_90", "2.0"})
    EXPECT_FALSE(Architecture::parse(bad)) << bad;
}

TEST(CompileCheck, EveryKernelIsCompiledAndFailuresNameTheKernel) {
  using lightning::CudaParam;
  const std::vector<CudaParam> params{CudaParam::array<float>("v", 1)};
  kernel::KernelRegistry::add(lightning::detail::ported_kernel_info(
      "check::fine", "__device__ void fine(dim3 b, lightning::Vector<float> v) { v[0] = 1; }",
      "fine", params, "global i => write v[i]"));
  kernel::KernelRegistry::add(lightning::detail::ported_kernel_info(
      "check::broken",
      "__device__ void broken(dim3 b, lightning::Vector<float> v) {\n  v[0] = nowhere;\n}",
      "broken", params, "global i => write v[i]"));
  // A value only its launch's Kokkos reducer folds: skipped, not failed.
  kernel::KernelInfo awaiting = lightning::detail::ported_kernel_info(
      "check::awaits_reducer",
      "__device__ void awaits(dim3 b, lightning::Vector<float> v) { v[0] = 1; }", "awaits",
      params, "global i => write v[i]");
  awaiting.reduction = Reduction::custom(16);
  kernel::KernelRegistry::add(std::move(awaiting));
  const auto results = compile_registered_kernels(*Architecture::parse("sm_90"));
  bool fine = false, broken = false, skipped = false;
  for (const KernelCompileResult& r : results) {
    if (r.kernel == "check::fine") {
      fine = true;
      EXPECT_TRUE(r.compiled) << r.error;
      EXPECT_GT(r.cubin_bytes, 0u);
    }
    if (r.kernel == "check::broken") {
      broken = true;
      EXPECT_FALSE(r.compiled);
      EXPECT_NE(r.error.find("check::broken"), std::string::npos) << r.error;
      EXPECT_NE(r.error.find("identifier \"nowhere\" is undefined"), std::string::npos) << r.error;
      EXPECT_NE(r.error.find("v[0] = nowhere;"), std::string::npos) << r.error;  // its line
    }
    if (r.kernel == "check::awaits_reducer") {
      skipped = true;
      EXPECT_TRUE(r.skipped);
      EXPECT_FALSE(r.compiled);
      EXPECT_EQ(r.error, "");
    } else {
      EXPECT_FALSE(r.skipped) << r.kernel;
    }
  }
  EXPECT_TRUE(fine && broken && skipped);
}

}  // namespace
}  // namespace lightning::cuda
