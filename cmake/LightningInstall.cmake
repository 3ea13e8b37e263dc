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
# Every public header, and the runtime headers they include as
# lightning_kokkos/internal/<folder>/<file> (and those include in turn), found by following
# those include lines at install time (install_consumer fails when one is missing).
install(DIRECTORY include/lightning_kokkos DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(CODE "
  set(LIGHTNING_PUBLIC_HEADER_DIRS \"${PROJECT_SOURCE_DIR}/include;${PROJECT_BINARY_DIR}/include\")
  set(LIGHTNING_INTERNAL_HEADER_SOURCE \"${PROJECT_SOURCE_DIR}/src\")
  set(LIGHTNING_INTERNAL_HEADER_DESTINATION \"${CMAKE_INSTALL_INCLUDEDIR}/lightning_kokkos/internal\")
  include(\"${PROJECT_SOURCE_DIR}/cmake/LightningInstallInternalHeaders.cmake\")")
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
              cmake/LightningFixKokkos.cmake cmake/LightningCompileCheck.cmake
        DESTINATION ${LIGHTNING_INSTALL_CMAKEDIR})
