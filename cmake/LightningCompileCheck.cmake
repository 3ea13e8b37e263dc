# lightning_compile_check(<target> [ARCH sm_90]): after <target> (a program linking
# lightning_kokkos) is built, runs it with --lightning-compile-check=<ARCH>, which compiles
# every kernel it registers for that GPU architecture with NVRTC (no GPU needed) and fails
# the build, with NVRTC's errors, kernel names and source lines, when one does not compile.
# Needs a lightning_kokkos built with the CUDA toolkit (LightningKokkos_HAVE_CUDA).
function(lightning_compile_check target)
  cmake_parse_arguments(LCC "" "ARCH" "" ${ARGN})
  if(NOT LCC_ARCH)
    set(LCC_ARCH sm_90)
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
                     COMMAND $<TARGET_FILE:${target}> --lightning-compile-check=${LCC_ARCH}
                     COMMENT "Compiling the GPU kernels of ${target} for ${LCC_ARCH}"
                     VERBATIM)
endfunction()
