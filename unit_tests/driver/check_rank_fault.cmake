# cmake -P script: one fault test. Runs PROGRAM MODE over three ranks with a short peer timeout
# and a fresh spill directory, and checks that every process ended within BOUND seconds, with
# a non-zero status and output matching EXPECT, and that no spill directory was left behind.
#   -DMPIEXEC=... -DPROGRAM=... -DMODE=... -DEXPECT=regex -DBOUND=seconds -DWORK_DIR=...
#   [-DRECOVERY=ON: mpirun --enable-recovery, so that the runtime, not mpirun, ends the job]
#   [-DCEILING=seconds: when mpirun is killed (default 40)]
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(ENV{LIGHTNING_SPILL_DIR} ${WORK_DIR})
set(ENV{LIGHTNING_DEVICES} host:1)
set(ENV{LIGHTNING_PEER_TIMEOUT} 2s)
set(ENV{LIGHTNING_HEARTBEAT_INTERVAL} 200ms)
set(_flags -np 3 --oversubscribe)
if(RECOVERY)
  list(APPEND _flags --enable-recovery)
endif()
string(TIMESTAMP _start "%s" UTC)
# The ceiling is far above the bound: a run that hangs is reported as such, not as a ctest
# timeout, and with who hung: a process of the job (each leaves its pid in WORK_DIR), or
# mpirun alone (run_with_ceiling.sh kills only mpirun, after writing what still lives).
if(NOT CEILING)
  set(CEILING 40)
endif()
get_filename_component(_here ${CMAKE_CURRENT_LIST_FILE} DIRECTORY)
execute_process(COMMAND sh ${_here}/run_with_ceiling.sh ${CEILING} ${WORK_DIR} ${MPIEXEC} ${_flags}
                        ${PROGRAM} ${MODE}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out TIMEOUT 90)
string(TIMESTAMP _end "%s" UTC)
math(EXPR _elapsed "${_end} - ${_start}")
message(STATUS "${MODE}: exit status '${_rc}' after ${_elapsed} s\n${_out}")
if(_rc MATCHES "timeout")
  message(FATAL_ERROR "${MODE}: the job did not end, nor was mpirun killed after ${CEILING} s")
endif()
if(EXISTS ${WORK_DIR}/states)
  file(GLOB _pid_files ${WORK_DIR}/*.pid)
  list(LENGTH _pid_files _started)
  file(STRINGS ${WORK_DIR}/states _states)
  set(_alive "")
  foreach(_line ${_states})
    string(REPLACE " " ";" _fields "${_line}")
    list(GET _fields 0 _name)
    list(GET _fields 1 _pid)
    list(GET _fields 2 _state)
    if(NOT _state STREQUAL "Z")  # a zombie has ended; only mpirun did not collect it
      list(APPEND _alive "${_name} (pid ${_pid}, state ${_state})")
      execute_process(COMMAND kill -KILL ${_pid})
    endif()
  endforeach()
  list(JOIN _alive ", " _alive_list)
  if(_alive OR NOT _started EQUAL 3)
    message(FATAL_ERROR "${MODE}: the job did not end (mpirun killed after ${CEILING} s); "
                        "${_started} processes started, still alive: ${_alive_list}")
  endif()
  # Open MPI 4.1's mpirun now and then crashes (see docs/runtime.md) or hangs in its own
  # finalisation after an MPI_Abort; every process the runtime had to end has ended.
  message(WARNING "${MODE}: every process of the job ended, but mpirun did not within "
                  "${CEILING} s (a hang of the launcher itself, not held against the runtime; "
                  "the bound of ${BOUND} s is not checked)")
  set(_elapsed 0)
  if(NOT RECOVERY)
    set(_rc 1)  # mpirun's own status went with it
  endif()
endif()
if(_rc EQUAL 0 AND NOT RECOVERY)  # (with --enable-recovery mpirun always says 0)
  message(FATAL_ERROR "${MODE}: the job ended with status 0; a lost rank must fail it")
endif()
if(_elapsed GREATER BOUND)
  message(FATAL_ERROR "${MODE}: the job took ${_elapsed} s to end, more than ${BOUND} s")
endif()
if(NOT _out MATCHES "${EXPECT}")
  message(FATAL_ERROR "${MODE}: the output does not say what failed (expected: ${EXPECT})")
endif()
file(GLOB _left ${WORK_DIR}/lightning-spill-*)
if(_left)
  message(FATAL_ERROR "${MODE}: spill directories left behind: ${_left}")
endif()
