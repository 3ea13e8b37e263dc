# Run at install time (install(CODE) in LightningInstall.cmake): installs the runtime headers
# the public headers need. Starting from every public header (lightning_kokkos/**/*.hpp in
# LIGHTNING_PUBLIC_HEADER_DIRS), it follows each `#include "lightning_kokkos/internal/F/H"` to
# LIGHTNING_INTERNAL_HEADER_SOURCE/F/H, then that header's own such includes, and installs each
# header reached as LIGHTNING_INTERNAL_HEADER_DESTINATION/F/H. A runtime header reached this
# way includes its siblings the same way, or the consumer cannot compile it (install_consumer).
if(CMAKE_INSTALL_COMPONENT AND NOT CMAKE_INSTALL_COMPONENT STREQUAL "Unspecified")
  return()
endif()
cmake_policy(PUSH)
cmake_policy(VERSION 3.20)  # IN_LIST; included by cmake_install.cmake, which sets none

set(_lightning_todo "")
foreach(_dir IN LISTS LIGHTNING_PUBLIC_HEADER_DIRS)
  file(GLOB_RECURSE _headers ${_dir}/lightning_kokkos/*.hpp)
  list(APPEND _lightning_todo ${_headers})
endforeach()
set(_lightning_seen "")
set(_lightning_internal "")
while(_lightning_todo)
  list(POP_FRONT _lightning_todo _file)
  if(_file IN_LIST _lightning_seen)
    continue()
  endif()
  list(APPEND _lightning_seen ${_file})
  file(STRINGS ${_file} _lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]lightning_kokkos/internal/")
  foreach(_line IN LISTS _lines)
    if(NOT _line MATCHES "lightning_kokkos/internal/([^\">]+)[\">]")
      continue()
    endif()
    set(_header ${CMAKE_MATCH_1})
    if(NOT EXISTS ${LIGHTNING_INTERNAL_HEADER_SOURCE}/${_header})
      message(FATAL_ERROR "${_file} includes lightning_kokkos/internal/${_header}, which is not "
                          "a header of ${LIGHTNING_INTERNAL_HEADER_SOURCE}")
    endif()
    if(NOT _header IN_LIST _lightning_internal)
      list(APPEND _lightning_internal ${_header})
      list(APPEND _lightning_todo ${LIGHTNING_INTERNAL_HEADER_SOURCE}/${_header})
    endif()
  endforeach()
endwhile()

list(SORT _lightning_internal)
foreach(_header IN LISTS _lightning_internal)
  get_filename_component(_folder ${_header} DIRECTORY)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/${LIGHTNING_INTERNAL_HEADER_DESTINATION}/${_folder}"
       TYPE FILE FILES ${LIGHTNING_INTERNAL_HEADER_SOURCE}/${_header})
endforeach()
cmake_policy(POP)
