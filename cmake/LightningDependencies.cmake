# Every third-party dependency of the project, found in one place.

find_package(Kokkos REQUIRED)
include(LightningFixKokkos)
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(cereal REQUIRED)

# Kokkos Kernels: optional.
set(LIGHTNING_HAVE_KOKKOS_KERNELS OFF)
if(NOT LIGHTNING_ENABLE_KOKKOS_KERNELS STREQUAL "OFF")
  find_package(KokkosKernels QUIET)
  if(KokkosKernels_FOUND)
    set(LIGHTNING_HAVE_KOKKOS_KERNELS ON)
  elseif(LIGHTNING_ENABLE_KOKKOS_KERNELS STREQUAL "ON")
    message(FATAL_ERROR "LIGHTNING_ENABLE_KOKKOS_KERNELS=ON but Kokkos Kernels was not found")
  endif()
endif()

# CUDA: headers and NVRTC only. libcuda is never linked: the runtime opens it with dlopen so
# that one binary runs on machines with and without a GPU driver.
set(LIGHTNING_HAVE_CUDA OFF)
if(NOT LIGHTNING_ENABLE_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND TARGET CUDA::nvrtc)
    set(LIGHTNING_HAVE_CUDA ON)
  elseif(LIGHTNING_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "LIGHTNING_ENABLE_CUDA=ON but the CUDA toolkit (with NVRTC) was not found")
  endif()
endif()

# 0/1 spellings for the generated build_config.hpp.
foreach(_flag LIGHTNING_HAVE_CUDA LIGHTNING_HAVE_KOKKOS_KERNELS)
  if(${_flag})
    set(${_flag}_01 1)
  else()
    set(${_flag}_01 0)
  endif()
endforeach()
