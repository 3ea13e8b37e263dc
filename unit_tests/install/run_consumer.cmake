# cmake -P script: install, configure + build the consumer against the install, run it.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
# Against another Kokkos (KOKKOS_ROOT, e.g. a user's Kokkos 4, static or shared): the library
# is first built here against it, as a user would, and must come out static exactly when that
# Kokkos is.
if(DEFINED KOKKOS_ROOT)
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/lightning -G ${GENERATOR}
      -DKokkos_ROOT=${KOKKOS_ROOT} -DCMAKE_BUILD_TYPE=Release -DLIGHTNING_BUILD_TESTS=OFF
      -DLIGHTNING_BUILD_EXAMPLES=OFF -DLIGHTNING_BUILD_PERF_TESTS=OFF)
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/lightning)
  set(BUILD_DIR ${WORK_DIR}/lightning)
  file(GLOB _kokkos_static ${KOKKOS_ROOT}/lib*/libkokkoscore.a)
  file(GLOB _lightning_static ${WORK_DIR}/lightning/liblightning_kokkos.a)
  if(NOT "${_kokkos_static}" STREQUAL "" AND "${_lightning_static}" STREQUAL "")
    message(FATAL_ERROR "Kokkos at ${KOKKOS_ROOT} is static, lightning_kokkos is not")
  endif()
  set(KOKKOS_DIR "")
endif()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# Installed executables start from the prefix alone (their RPATH finds the library).
run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${WORK_DIR}/prefix/bin/lightning-info
    --lightning-devices=host:2)
# The package's include path is the include directory alone (the runtime headers the public
# ones need are under lightning_kokkos/internal/ there), so a user's core/error.hpp is safe.
file(GLOB _targets ${WORK_DIR}/prefix/lib*/cmake/LightningKokkos/LightningKokkosTargets.cmake)
file(STRINGS "${_targets}" _line REGEX "INTERFACE_INCLUDE_DIRECTORIES")
string(REGEX REPLACE "^.*INTERFACE_INCLUDE_DIRECTORIES \"(.*)\"$" "\\1" _includes "${_line}")
string(REPLACE "\\" "" _includes "${_includes}")  # file(STRINGS) wrote each ; as \;
list(REMOVE_DUPLICATES _includes)
if(NOT _includes STREQUAL "\${_IMPORT_PREFIX}/include")
  message(FATAL_ERROR "installed include path is not <prefix>/include alone: ${_includes}")
endif()
# The consumer finds the Kokkos the package was built with (recorded in its config), or the
# one named here.
set(_kokkos_option "")
if(KOKKOS_DIR)
  set(_kokkos_option -DKokkos_DIR=${KOKKOS_DIR})
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix ${_kokkos_option})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${MPIEXEC} -np 2 --oversubscribe ${WORK_DIR}/build/consumer)
