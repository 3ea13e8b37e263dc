# Warnings for the project's own targets (not for dependencies' headers, which come in as SYSTEM).
add_library(lightning_warnings INTERFACE)
target_compile_options(lightning_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local
                                                    -Wno-unused-parameter)
option(LIGHTNING_WERROR "Treat warnings as errors" OFF)
if(LIGHTNING_WERROR)
  target_compile_options(lightning_warnings INTERFACE -Werror)
endif()
