# cmake -P script: one fault test. Runs PROGRAM MODE over three ranks with a short peer timeout
# and a fresh spill directory, and checks that every process ended within BOUND seconds, with
# a non-zero status and output matching EXPECT, and that no spill directory was left behind.
#   -DMPIEXEC=... -DPROGRAM=... -DMODE=... -DEXPECT=regex -DBOUND=seconds -DWORK_DIR=...
#   [-DRECOVERY=ON: mpirun --enable-recovery, so that the runtime, not mpirun, ends the job]
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
# The ceiling is far above the bound: a run that hangs is reported as such, not as a ctest timeout.
execute_process(COMMAND ${MPIEXEC} ${_flags} ${PROGRAM} ${MODE}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out TIMEOUT 90)
string(TIMESTAMP _end "%s" UTC)
math(EXPR _elapsed "${_end} - ${_start}")
message(STATUS "${MODE}: exit status '${_rc}' after ${_elapsed} s\n${_out}")
if(_rc MATCHES "timeout")
  message(FATAL_ERROR "${MODE}: the job did not end (killed after 90 s)")
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
