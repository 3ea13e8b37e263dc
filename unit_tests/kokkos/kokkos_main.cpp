// Kokkos, a stand-in for a Kokkos tool, then the lightning runtime (on two emulated host
// devices unless LIGHTNING_DEVICES says otherwise), then the tests.
#include <gtest/gtest.h>

#include <cstdlib>

#include "kokkos_test_tool.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"

int main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  setenv("LIGHTNING_DEVICES", "host:2", /*overwrite=*/0);
  Kokkos::ScopeGuard kokkos(argc, argv);
  lk_test::install_test_tool();
  lightning::ScopeGuard lightning(argc, argv);
  return RUN_ALL_TESTS();
}
