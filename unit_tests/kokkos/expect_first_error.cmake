# Builds TARGET in BUILD_DIR, which must fail, and checks that the compiler's first error is
# the one expected (MESSAGE, a regular expression): the plugin's static_assert comes before
# anything Kokkos itself would say.
#   cmake -DBUILD_DIR=... -DTARGET=... -DMESSAGE=... -P expect_first_error.cmake
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(status EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled; it must not")
endif()
string(REGEX MATCH "[^\n]*error[^\n]*" first "${out}")
if(NOT first MATCHES "${MESSAGE}")
  message(FATAL_ERROR "${TARGET}: the first error is not the expected one (${MESSAGE}):\n${first}\n\n${out}")
endif()
message(STATUS "${TARGET}: first error as expected: ${first}")
