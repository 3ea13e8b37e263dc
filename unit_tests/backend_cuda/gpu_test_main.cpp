// main() of the GPU tests that go through the runtime's driver API: skipped (exit 77, which
// ctest reports as skipped) where no CUDA driver or GPU exists.
#include <gtest/gtest.h>

#include <cstdio>

#include "backend/cuda/driver_api.hpp"

int main(int argc, char** argv) {
  if (!lightning::cuda::DriverApi::available()) {
    std::printf("SKIPPED: %s\n", lightning::cuda::DriverApi::unavailable_reason().c_str());
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
