# The one library: every module's objects, with Kokkos, MPI and (when enabled) NVRTC as usage
# requirements. Shared, so that the modules' private dependencies (spdlog, fmt, ...) stay
# private to it.
include(GNUInstallDirs)  # the install include directory below, before LightningInstall
include(LightningModuleBounds)
lightning_module_boundaries()  # each module's include root; the map of the module_bounds test
get_property(_lightning_modules GLOBAL PROPERTY LIGHTNING_MODULES)
get_property(_lightning_deps GLOBAL PROPERTY LIGHTNING_MODULE_DEPENDS)
list(REMOVE_DUPLICATES _lightning_deps)
list(FILTER _lightning_deps EXCLUDE REGEX "^lk_")
set(_lightning_objects "")
foreach(_m IN LISTS _lightning_modules)
  list(APPEND _lightning_objects $<TARGET_OBJECTS:${_m}>)
endforeach()

add_library(lightning_kokkos SHARED ${_lightning_objects})
add_library(LightningKokkos::lightning_kokkos ALIAS lightning_kokkos)
set_target_properties(lightning_kokkos PROPERTIES VERSION ${PROJECT_VERSION}
                                                  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
target_include_directories(lightning_kokkos PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# The public headers use a few runtime headers (ids, geometry, distributions, the kernel
# registry) as lightning_kokkos/internal/<folder>/<file>: in the build tree through links to
# src/<folder> (cmake/LightningModuleBounds.cmake), installed under the include directory.
# Nothing else of src/ is on the path: a user's own core/error.hpp cannot collide with ours.
target_include_directories(lightning_kokkos PUBLIC
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/internal_include>)
target_compile_features(lightning_kokkos PUBLIC cxx_std_17)
target_link_libraries(lightning_kokkos
  PUBLIC Kokkos::kokkos MPI::MPI_CXX Threads::Threads ${CMAKE_DL_LIBS}
  PRIVATE ${_lightning_deps})
if(LIGHTNING_HAVE_CUDA)
  # NVRTC by file, not through CUDA::nvrtc, whose usage requirements add the libcuda stub:
  # the library must not need libcuda.so.1 to load (tested by no_libcuda_dependency).
  get_target_property(_lightning_nvrtc CUDA::nvrtc IMPORTED_LOCATION)
  target_link_libraries(lightning_kokkos PRIVATE ${_lightning_nvrtc})
  # CUDA headers are a usage requirement (installed package: see LightningKokkosConfig.cmake).
  target_include_directories(lightning_kokkos SYSTEM PUBLIC $<BUILD_INTERFACE:${CUDAToolkit_INCLUDE_DIRS}>)
endif()

# For the project's own tests, examples and benchmarks: the library plus the internal headers.
# (Include paths only: linking the object libraries again would duplicate their objects.)
add_library(lightning_internal INTERFACE)
target_include_directories(lightning_internal INTERFACE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(lightning_internal INTERFACE lightning_kokkos ${_lightning_deps})
