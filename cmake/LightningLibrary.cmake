# The one library: every module's objects, with Kokkos, MPI and (when enabled) NVRTC as usage
# requirements. Shared, so that the modules' private dependencies (spdlog, fmt, ...) stay
# private to it; static when Kokkos is, since a static Kokkos 4 (its default build) is not
# position-independent and cannot be linked into a shared object ("relocation
# R_X86_64_TPOFF32 ... can not be used when making a shared object"). -DBUILD_SHARED_LIBS
# chooses otherwise.
include(GNUInstallDirs)  # the install include directory below, before LightningInstall
include(LightningModuleBounds)
lightning_module_boundaries()  # each module's include root; the map of the module_bounds test
get_property(_lightning_modules GLOBAL PROPERTY LIGHTNING_MODULES)
get_property(_lightning_deps GLOBAL PROPERTY LIGHTNING_MODULE_DEPENDS)
list(REMOVE_DUPLICATES _lightning_deps)
list(FILTER _lightning_deps EXCLUDE REGEX "^lk_")
# What the library links: the dependencies, libxxhash by its file (its target is this
# build's own, which a static library's users would not know).
set(_lightning_link_deps ${_lightning_deps})
list(TRANSFORM _lightning_link_deps REPLACE "^lightning_xxhash$" "${LIGHTNING_XXHASH_LIBRARY}")
set(_lightning_objects "")
foreach(_m IN LISTS _lightning_modules)
  list(APPEND _lightning_objects $<TARGET_OBJECTS:${_m}>)
endforeach()

set(_lightning_kokkos_type "")
foreach(_k Kokkos::kokkoscore kokkoscore)
  if(TARGET ${_k} AND NOT _lightning_kokkos_type)
    get_target_property(_lightning_kokkos_type ${_k} TYPE)
  endif()
endforeach()
if(DEFINED BUILD_SHARED_LIBS)
  if(BUILD_SHARED_LIBS)
    set(LIGHTNING_LIBRARY_TYPE SHARED)
  else()
    set(LIGHTNING_LIBRARY_TYPE STATIC)
  endif()
elseif(_lightning_kokkos_type STREQUAL "STATIC_LIBRARY")
  set(LIGHTNING_LIBRARY_TYPE STATIC)
  message(STATUS "lightning_kokkos: Kokkos is a static library, so lightning_kokkos is one too "
                 "(-DBUILD_SHARED_LIBS=ON for a shared one, with a shared or -fPIC Kokkos)")
else()
  set(LIGHTNING_LIBRARY_TYPE SHARED)
endif()
if(LIGHTNING_LIBRARY_TYPE STREQUAL "SHARED" AND _lightning_kokkos_type STREQUAL "STATIC_LIBRARY")
  message(WARNING "lightning_kokkos: a shared lightning_kokkos over a static Kokkos links only "
                  "if Kokkos was built with -DCMAKE_POSITION_INDEPENDENT_CODE=ON; otherwise "
                  "configure with -DBUILD_SHARED_LIBS=OFF, or use a shared Kokkos")
endif()
add_library(lightning_kokkos ${LIGHTNING_LIBRARY_TYPE} ${_lightning_objects})
add_library(LightningKokkos::lightning_kokkos ALIAS lightning_kokkos)
# Installed, a shared library finds a Kokkos outside the system's directories where it was
# linked.
set_target_properties(lightning_kokkos PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
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
  PRIVATE ${_lightning_link_deps})
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
