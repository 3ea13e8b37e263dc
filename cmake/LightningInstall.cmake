# Installs the library, its public headers and a CMake package:
#   find_package(LightningKokkos) -> LightningKokkos::lightning_kokkos
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LIGHTNING_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/LightningKokkos)

install(TARGETS lightning_kokkos EXPORT LightningKokkosTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Every public header, and the runtime headers they include (listed: install_consumer fails
# when one is missing), which keep their module folders under lightning_kokkos/internal/.
install(DIRECTORY include/lightning_kokkos DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
set(_lightning_internal_headers
    core/data_type.hpp core/error.hpp core/ids.hpp core/point.hpp core/rect.hpp
    core/reduction.hpp
    annotation/kernel_signature.hpp
    distribution/box_index.hpp distribution/chunk.hpp distribution/data_distribution.hpp
    distribution/data_layout.hpp distribution/device_set.hpp distribution/placement.hpp
    distribution/superblock.hpp distribution/work_distribution.hpp
    kernel/device_code.hpp kernel/kernel_description.hpp kernel/kernel_registry.hpp
    kernel/native_kernel.hpp)
foreach(_h IN LISTS _lightning_internal_headers)
  get_filename_component(_dir ${_h} DIRECTORY)
  install(FILES src/${_h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lightning_kokkos/internal/${_dir})
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/include/lightning_kokkos/build_config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lightning_kokkos)
install(EXPORT LightningKokkosTargets NAMESPACE LightningKokkos::
        DESTINATION ${LIGHTNING_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/LightningKokkosConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/LightningKokkosConfig.cmake
                              INSTALL_DESTINATION ${LIGHTNING_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/LightningKokkosConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/LightningKokkosConfig.cmake
              ${PROJECT_BINARY_DIR}/LightningKokkosConfigVersion.cmake
              cmake/LightningFixKokkos.cmake
        DESTINATION ${LIGHTNING_INSTALL_CMAKEDIR})
