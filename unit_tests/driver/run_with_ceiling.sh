#!/bin/sh
# For check_rank_fault.cmake, whose rank_fault_program leaves its pids in DIR.
# run_with_ceiling.sh SECONDS DIR COMMAND...: runs COMMAND (mpirun) and kills it, alone, if it
# still runs after SECONDS, exiting 124. Just before, it writes DIR/states: one line "NAME PID
# STATE" per DIR/NAME.pid whose process lives (STATE as in /proc: R, S, T stopped, Z ended but
# not collected). Read before the kill: once mpirun is gone, the kernel wakes and hangs up a
# stopped process of its, and the evidence would go with it.
ceiling=$1
dir=$2
shift 2
"$@" &
command=$!
elapsed=0
while kill -0 "$command" 2>/dev/null; do
  if [ "$elapsed" -ge "$((ceiling * 10))" ]; then
    : > "$dir/states"
    for file in "$dir"/*.pid; do
      [ -e "$file" ] || continue
      pid=$(cat "$file")
      # /proc/PID/stat: "PID (NAME) STATE ..."; NAME, the program's cut to 15 characters,
      # keeps a later process that reuses the pid out.
      state=$(sed -n 's/^[0-9]* (rank_fault_prog[^)]*) \([A-Z]\).*/\1/p' "/proc/$pid/stat" \
        2>/dev/null)
      [ -n "$state" ] && echo "$(basename "$file" .pid) $pid $state" >> "$dir/states"
    done
    kill -KILL "$command"
    wait "$command"
    exit 124
  fi
  sleep 0.1
  elapsed=$((elapsed + 1))
done
wait "$command"
