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
# Installed headers are listed one by one: the Kokkos adapter's headers (view.hpp, kernel.hpp,
# ...) still include runtime headers from src/ and are installed once they stand alone.
install(FILES include/lightning_kokkos/lightning_kokkos.hpp include/lightning_kokkos/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lightning_kokkos)
# The device headers are plain C++ (also compiled by NVRTC): they stand alone.
install(FILES include/lightning_kokkos/device/array_handle.hpp
              include/lightning_kokkos/device/device_array.hpp
              include/lightning_kokkos/device/kokkos_macros.hpp
              include/lightning_kokkos/device/launch_box.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lightning_kokkos/device)
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
