// Kokkos, a stand-in for a Kokkos tool, then the lightning runtime (on two emulated host
// devices unless LIGHTNING_DEVICES says otherwise), then the tests.
//
// On GPUs (LIGHTNING_DEVICES=cuda...), without a --gtest_filter of its own, it runs the tests
// written to run on a GPU too (kGpuTests); where there is no CUDA driver it exits 77, which
// ctest reports as skipped (the ctest entry kokkos_adapter_tests_cuda, label gpu).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "kokkos_test_tool.hpp"
#include "lightning_kokkos/build_config.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"
#if LIGHTNING_HAVE_CUDA
#include "backend/cuda/driver_api.hpp"
#endif

namespace {

// Host-specific tests (a kernel that throws, lightning::annotate lambdas, host-side View
// checks) stay out; the few host-only ones among these skip themselves on a GPU. In checked
// mode, as ctest runs them, the checked-mode tests of functors and ported kernels run too.
const char* const kGpuTests =
    "KokkosDispatch.SaxpyMatchesHost:KokkosDispatch.AConditionalWrite*:KokkosDispatch.Stencil*:"
    "KokkosDispatch.RowSum*:KokkosDispatch.Rank3*:KokkosReduce.DotToAScalar*:"
    "KokkosReduce.MinAndMax*:"
    "KokkosReduce.OwnInitAndJoin*:KokkosArrayReduction.*:KokkosMDRange.*:KokkosLayoutLeft.*:"
    "KokkosView.DeepCopy*:KokkosCheckedAccess.APortedKernel*:KokkosCheckedAccess.ReadPast*:"
    "KokkosCheckedAccess.WriteToAReadOnly*:KokkosCheckedAccess.WritePast*:"
    "KokkosCheckedAccess.AnOverwrite*:KokkosCheckedAccess.AnElementWritten*:KokkosTeams.*:"
    "KokkosTeamLaunchChecks.*:KokkosKernelLambda.*:KokkosReducers.*:KokkosScan.*:"
    "KokkosViewCopy.*:KokkosWorkTag.*:KokkosDispatch.VectorElementTypes*:PortedBlocks.*:"
    "KokkosSubview.*";

bool on_gpus() {
  const char* devices = std::getenv("LIGHTNING_DEVICES");
  return devices && std::string(devices).rfind("cuda", 0) == 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  setenv("LIGHTNING_DEVICES", "host:2", /*overwrite=*/0);
  if (on_gpus()) {
#if LIGHTNING_HAVE_CUDA
    if (!lightning::cuda::DriverApi::available()) {
      std::printf("SKIPPED: %s\n", lightning::cuda::DriverApi::unavailable_reason().c_str());
      return 77;
    }
#endif
    if (::testing::GTEST_FLAG(filter) == "*") ::testing::GTEST_FLAG(filter) = kGpuTests;
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  lk_test::install_test_tool();
  lightning::ScopeGuard lightning(argc, argv);
  return RUN_ALL_TESTS();
}
