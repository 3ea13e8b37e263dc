# LIGHTNING_SANITIZE applies to every target of the build (and to what tests link), so that
# instrumented and plain code never mix.
if(LIGHTNING_SANITIZE)
  string(REPLACE "," ";" _lightning_sanitizers "${LIGHTNING_SANITIZE}")
  foreach(_s IN LISTS _lightning_sanitizers)
    if(NOT _s MATCHES "^(address|undefined|thread|leak)$")
      message(FATAL_ERROR "LIGHTNING_SANITIZE: unknown sanitizer '${_s}' (use address, undefined, thread, leak)")
    endif()
  endforeach()
  if("thread" IN_LIST _lightning_sanitizers AND "address" IN_LIST _lightning_sanitizers)
    message(FATAL_ERROR "LIGHTNING_SANITIZE: thread and address cannot be combined")
  endif()
  add_compile_options(-fsanitize=${LIGHTNING_SANITIZE} -fno-omit-frame-pointer)
  # RelWithDebInfo, sanitized, compiles at -Og with line tables (the flags come after the
  # configuration's, so they win): instrumented code at -O2 -g takes GCC three to five times
  # as long as plain code, at -Og -g1 about as long, and reports keep their file and line.
  add_compile_options($<$<CONFIG:RelWithDebInfo>:-Og$<SEMICOLON>-g1>)
  add_link_options(-fsanitize=${LIGHTNING_SANITIZE})
  if("undefined" IN_LIST _lightning_sanitizers)
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
