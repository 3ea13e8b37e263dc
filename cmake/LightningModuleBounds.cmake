# Module boundaries, derived from the module declarations (lightning_module in
# src/CMakeLists.txt) once every module is declared (included by LightningLibrary.cmake).
#
# A module's *folder* is the directory of the CMakeLists.txt that declares it, relative to src/
# or adapters/ (`core`, `backend/cuda`, `kokkos`); several modules may share one folder. A
# module may include headers of its own folder and of the folders of the modules it reaches
# through its dependencies: the modules it links (DEPENDS, or target_link_libraries later), and
# theirs, transitively. Transitive, because DEPENDS are public link dependencies: a module's
# headers may use its dependencies' types, so whatever includes them sees those folders anyway,
# and repeating every indirect module in each DEPENDS would only make the lists long and
# brittle; the layering (docs/architecture.md) is kept by what each module declares directly.
#
# lightning_module_boundaries() then
#  - gives each module an include root, module_include/<module>/ in the build tree, holding
#    links to exactly those folders (as `<folder>/` and as `lightning_kokkos/internal/<folder>/`)
#    and nothing else of src/, so an include of an undeclared module does not compile;
#  - makes internal_include/lightning_kokkos/internal/<folder> -> src/<folder> for every module
#    folder of src/: how the public headers reach the runtime headers they need in the build
#    tree (installed as include/lightning_kokkos/internal/<folder>/, see LightningInstall.cmake);
#  - writes lightning_modules.cmake, the map read by the module_bounds test
#    (unit_tests/structure/check_module_bounds.cmake), which names every violating include.
# Links, not copies: a header reached by two paths is then one file, so `#pragma once` holds
# (GCC compares the files' times, sizes and contents, clang their identity).

# Known violations, allowed until they are redesigned: "<module>:<header as included>". This is
# the one place for them; each entry must still match an include (the check fails on a stale
# one) and gives the module's include root the header's folder.
set(LIGHTNING_MODULE_BOUNDS_ALLOWED "")

# Where module folders are, in this order.
set(LIGHTNING_MODULE_ROOTS ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/adapters)

# Makes directory `dir` hold exactly the links "<name>=<target>" of `links` (rebuilt only when
# they change, so the build sees no new files otherwise). Names may have folders (backend/cuda).
function(_lightning_link_tree dir links)
  string(REPLACE ";" "\n" _spec "${links}")
  if(EXISTS ${dir}.links)
    file(READ ${dir}.links _old)
    if(_old STREQUAL _spec AND IS_DIRECTORY ${dir})
      return()
    endif()
  endif()
  file(REMOVE_RECURSE ${dir})  # removes links, never what they point at
  file(MAKE_DIRECTORY ${dir})
  foreach(_link IN LISTS links)
    string(REGEX MATCH "^([^=]+)=(.+)$" _ "${_link}")
    get_filename_component(_parent ${dir}/${CMAKE_MATCH_1} DIRECTORY)
    file(MAKE_DIRECTORY ${_parent})
    file(CREATE_LINK ${CMAKE_MATCH_2} ${dir}/${CMAKE_MATCH_1} SYMBOLIC)
  endforeach()
  file(WRITE ${dir}.links "${_spec}")
endfunction()

function(lightning_module_boundaries)
  get_property(_targets GLOBAL PROPERTY LIGHTNING_MODULES)
  set(_modules "")
  foreach(_t IN LISTS _targets)
    string(REGEX REPLACE "^lk_" "" _m ${_t})
    list(APPEND _modules ${_m})
    get_target_property(_dir ${_t} SOURCE_DIR)
    set(_folder "")
    foreach(_root IN LISTS LIGHTNING_MODULE_ROOTS)
      string(FIND "${_dir}/" "${_root}/" _at)
      if(_at EQUAL 0 AND NOT _dir STREQUAL _root)
        file(RELATIVE_PATH _folder ${_root} ${_dir})
        set(_in_src_${_m} FALSE)
        if(_root STREQUAL "${PROJECT_SOURCE_DIR}/src")
          set(_in_src_${_m} TRUE)
        endif()
        break()
      endif()
    endforeach()
    if(_folder STREQUAL "")
      message(FATAL_ERROR "module ${_m}: declared in ${_dir}, which is no folder of src/ or "
                          "adapters/ (declare a module in its own folder's CMakeLists.txt)")
    endif()
    set(_dir_${_m} ${_dir})
    set(_folder_${_m} ${_folder})
  endforeach()
  # Folders: one directory each, none inside another module's folder (a link to the outer one
  # would expose the inner one).
  foreach(_a IN LISTS _modules)
    foreach(_b IN LISTS _modules)
      if(_folder_${_a} STREQUAL _folder_${_b} AND NOT _dir_${_a} STREQUAL _dir_${_b})
        message(FATAL_ERROR "modules ${_a} and ${_b}: both have folder ${_folder_${_a}}/ "
                            "(${_dir_${_a}}, ${_dir_${_b}})")
      endif()
      string(FIND "${_dir_${_b}}" "${_dir_${_a}}/" _at)
      if(_at EQUAL 0)
        message(FATAL_ERROR "module ${_b}: its folder ${_dir_${_b}} is inside module ${_a}'s")
      endif()
    endforeach()
  endforeach()
  # Direct dependencies: every module the target links, however declared.
  foreach(_m IN LISTS _modules)
    get_target_property(_links lk_${_m} LINK_LIBRARIES)
    set(_direct_${_m} "")
    foreach(_l IN LISTS _links)
      string(REGEX REPLACE "^lk_" "" _d "${_l}")
      if(_l MATCHES "^lk_" AND _d IN_LIST _modules)
        list(APPEND _direct_${_m} ${_d})
      endif()
    endforeach()
  endforeach()

  set(_map "# Generated by cmake/LightningModuleBounds.cmake: the modules of this configuration.\n")
  string(APPEND _map "set(LIGHTNING_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")\n"
                     "set(LIGHTNING_MODULES \"${_modules}\")\n"
                     "set(LIGHTNING_MODULE_BOUNDS_ALLOWED \"${LIGHTNING_MODULE_BOUNDS_ALLOWED}\")\n")
  set(_all_internal "")
  foreach(_m IN LISTS _modules)
    # Transitive closure of the dependencies.
    set(_reach "")
    set(_todo ${_direct_${_m}})
    while(_todo)
      list(POP_FRONT _todo _d)
      if(NOT _d IN_LIST _reach AND NOT _d STREQUAL _m)
        list(APPEND _reach ${_d})
        list(APPEND _todo ${_direct_${_d}})
      endif()
    endwhile()
    # The include root: own folder, reached folders, allowed exceptions' folders.
    set(_visible ${_m} ${_reach})
    set(_links "")
    foreach(_d IN LISTS _visible)
      list(APPEND _links "${_folder_${_d}}=${_dir_${_d}}")
      if(_in_src_${_d})
        list(APPEND _links "lightning_kokkos/internal/${_folder_${_d}}=${_dir_${_d}}")
      endif()
    endforeach()
    foreach(_allowed IN LISTS LIGHTNING_MODULE_BOUNDS_ALLOWED)
      if(_allowed MATCHES "^${_m}:(.+)$")
        set(_header ${CMAKE_MATCH_1})
        foreach(_d IN LISTS _modules)
          string(FIND "${_header}" "${_folder_${_d}}/" _at)
          if(_at EQUAL 0)
            list(APPEND _links "${_folder_${_d}}=${_dir_${_d}}")
            if(_in_src_${_d})
              list(APPEND _links "lightning_kokkos/internal/${_folder_${_d}}=${_dir_${_d}}")
            endif()
          endif()
        endforeach()
      endif()
    endforeach()
    list(REMOVE_DUPLICATES _links)
    list(SORT _links)
    _lightning_link_tree(${PROJECT_BINARY_DIR}/module_include/${_m} "${_links}")
    target_include_directories(lk_${_m} PRIVATE ${PROJECT_BINARY_DIR}/module_include/${_m})
    if(_in_src_${_m})
      list(APPEND _all_internal "${_folder_${_m}}=${_dir_${_m}}")
    endif()

    get_target_property(_sources lk_${_m} SOURCES)
    set(_abs_sources "")
    foreach(_s IN LISTS _sources)
      get_filename_component(_s ${_s} ABSOLUTE BASE_DIR ${_dir_${_m}})
      list(APPEND _abs_sources ${_s})
    endforeach()
    string(APPEND _map "set(LIGHTNING_MODULE_${_m}_DIR \"${_dir_${_m}}\")\n"
                       "set(LIGHTNING_MODULE_${_m}_FOLDER \"${_folder_${_m}}\")\n"
                       "set(LIGHTNING_MODULE_${_m}_DEPENDS \"${_direct_${_m}}\")\n"
                       "set(LIGHTNING_MODULE_${_m}_REACHES \"${_reach}\")\n"
                       "set(LIGHTNING_MODULE_${_m}_SOURCES \"${_abs_sources}\")\n")
  endforeach()
  list(REMOVE_DUPLICATES _all_internal)
  list(SORT _all_internal)
  _lightning_link_tree(${PROJECT_BINARY_DIR}/internal_include/lightning_kokkos/internal
                       "${_all_internal}")
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/lightning_modules.cmake CONTENT "${_map}" @ONLY)
endfunction()
