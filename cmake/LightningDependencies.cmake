# Every third-party dependency of the project, found in one place.

find_package(Kokkos REQUIRED)
include(LightningFixKokkos)
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(cereal REQUIRED)

# libxxhash (Debian: libxxhash-dev) has no CMake package: found by hand, once per build.
if(NOT TARGET lightning_xxhash)
  find_path(LIGHTNING_XXHASH_INCLUDE_DIR xxhash.h)
  find_library(LIGHTNING_XXHASH_LIBRARY NAMES xxhash)
  if(NOT LIGHTNING_XXHASH_INCLUDE_DIR OR NOT LIGHTNING_XXHASH_LIBRARY)
    message(FATAL_ERROR "libxxhash not found (Debian/Ubuntu: apt install libxxhash-dev); "
                        "set LIGHTNING_XXHASH_INCLUDE_DIR and LIGHTNING_XXHASH_LIBRARY")
  endif()
  add_library(lightning_xxhash INTERFACE IMPORTED GLOBAL)
  set_target_properties(lightning_xxhash PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${LIGHTNING_XXHASH_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${LIGHTNING_XXHASH_LIBRARY}")
endif()

# Kokkos Kernels: optional.
set(LIGHTNING_HAVE_KOKKOS_KERNELS OFF)
if(NOT LIGHTNING_ENABLE_KOKKOS_KERNELS STREQUAL "OFF")
  find_package(KokkosKernels QUIET)
  # Kokkos Kernels is built against one Kokkos release (their versions move together): a
  # system Kokkos Kernels 3.4 beside a user's Kokkos 4 would mix two ABIs, so require a match:
  # equal major.minor versions, or, where a Trilinos build gives no version, one install.
  if(KokkosKernels_FOUND)
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" _kk_version "${KokkosKernels_VERSION}")
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" _k_version "${Kokkos_VERSION}")
    get_filename_component(_kk_prefix "${KokkosKernels_DIR}/.." REALPATH)
    get_filename_component(_k_prefix "${Kokkos_DIR}/.." REALPATH)
    if(_kk_version AND NOT _kk_version VERSION_EQUAL _k_version)
      set(_kk_mismatch "Kokkos Kernels ${KokkosKernels_VERSION} with Kokkos ${Kokkos_VERSION}")
    elseif(NOT _kk_version AND NOT _kk_prefix STREQUAL _k_prefix)
      set(_kk_mismatch "Kokkos Kernels from ${KokkosKernels_DIR} with Kokkos from ${Kokkos_DIR}")
    endif()
    if(_kk_mismatch)
      message(STATUS "Ignoring ${_kk_mismatch}: built for another Kokkos")
      set(KokkosKernels_FOUND FALSE)
    endif()
  endif()
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
