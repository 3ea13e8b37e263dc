# Debian 12's Kokkos 3.4 (libtrilinos-kokkos-dev) exports Kokkos::kokkos with the include
# directory /usr/lib/include, which does not exist; its headers are in /usr/include/trilinos.
# Point the target at the directory that really holds Kokkos_Core.hpp. A sound Kokkos (e.g. a
# user's 4.x via Kokkos_ROOT) is left untouched. Used by the build and by the installed package.
#
# A Kokkos 3 without a parallel host back-end (that one: Serial only) also makes
# Kokkos::atomic_* plain reads and writes, while team members run on threads of their own on
# host devices: every user of Kokkos::kokkos gets GCC's atomics instead (what Kokkos 3 picks
# for GCC and Clang whenever it has a parallel host back-end; Kokkos 4 has its own).
# lightning_kokkos/execution_space.hpp refuses to compile without them.
if(TARGET Kokkos::kokkos)
  get_target_property(_lightning_kokkos_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
  set(_lightning_kokkos_ok FALSE)
  foreach(_dir IN LISTS _lightning_kokkos_inc)
    if(NOT _dir MATCHES "\\$<" AND EXISTS "${_dir}/Kokkos_Core.hpp")
      set(_lightning_kokkos_ok TRUE)
    elseif(_dir MATCHES "\\$<")
      set(_lightning_kokkos_ok TRUE)  # generator expressions: an exported, relocatable install
    endif()
  endforeach()
  if(NOT _lightning_kokkos_ok)
    find_path(LIGHTNING_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
              HINTS ${Kokkos_INCLUDE_DIRS} PATHS /usr/include/trilinos /usr/include
              NO_DEFAULT_PATH)
    if(NOT LIGHTNING_KOKKOS_INCLUDE_DIR)
      message(FATAL_ERROR "Kokkos::kokkos names include directories '${_lightning_kokkos_inc}' "
                          "without Kokkos_Core.hpp, and no Kokkos_Core.hpp was found elsewhere")
    endif()
    set_target_properties(Kokkos::kokkos PROPERTIES
                          INTERFACE_INCLUDE_DIRECTORIES "${LIGHTNING_KOKKOS_INCLUDE_DIR}")
    message(STATUS "Repaired Kokkos::kokkos include directory: ${LIGHTNING_KOKKOS_INCLUDE_DIR}")
  endif()
endif()
if(TARGET Kokkos::kokkos AND Kokkos_VERSION VERSION_LESS 4.0)
  set_property(TARGET Kokkos::kokkos APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS
                                                     KOKKOS_ENABLE_GNU_ATOMICS)
endif()
