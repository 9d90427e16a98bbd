#!/usr/bin/env bash
# The correctness suite of libkcoll (tests/algos_check.c, ASan build): one
# mpirun per p in {1,2,3,4,5,8} running the whole matrix, the fallback path
# (KCOLL_SIMULATE_NO_CMA=1, one warning per process), KCOLL_STRICT=1, and,
# when the machine has the memory, messages above 2 GiB at p = 2.
set -u
BUILD=${BUILD:-build}
prog=$BUILD/tests/algos_check
[ -x "$prog" ] || { echo "algos_mpi: $prog not built (make test builds it)"; exit 1; }
command -v mpirun >/dev/null || { echo "mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's own allocations are reported as leaks; our code is checked by
# ASan's other checks. Oversubscribed ranks must yield or they spin.
export ASAN_OPTIONS=detect_leaks=0
mpi=(mpirun --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none)
fail=0
run() { # name, then the command
  local name=$1; shift
  local start=$SECONDS
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   $name ($((SECONDS - start)) s): $(tail -n 1 "$tmp/out")"
  else
    echo "FAIL $name ($((SECONDS - start)) s)"; tail -n 30 "$tmp/out" "$tmp/err"; fail=1
  fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

for p in 1 2 3 4 5 8; do
  run "p=$p full matrix" timeout 600 "${mpi[@]}" -np "$p" "$prog" --mode full
  grep -q 'kcoll: warning' "$tmp/err" && echo "     note: CMA is forbidden here, so p=$p ran the MPI fallback only"
done

# Fallback: still right, and exactly one warning per process.
run "p=3 fallback" timeout 120 "${mpi[@]}" -np 3 -x KCOLL_SIMULATE_NO_CMA=1 "$prog" --mode fallback
warnings=$(grep -c 'kcoll: warning: process_vm_readv is not permitted' "$tmp/err")
if [ "$warnings" -ne 3 ]; then
  echo "FAIL fallback: $warnings warnings on stderr, want 3 (one per process)"; fail=1
else
  echo "ok   fallback warned once per process"
fi
run "p=3 strict" timeout 120 "${mpi[@]}" -np 3 -x KCOLL_SIMULATE_NO_CMA=1 -x KCOLL_STRICT=1 "$prog" --mode strict
if grep -q 'kcoll: warning' "$tmp/err"; then echo "FAIL strict: warned instead of failing"; fail=1; fi

printf 'format kcal-params-1\nalpha oops\n' >"$tmp/bad.params"
run "p=2 bad KCAL_PARAMS" timeout 120 "${mpi[@]}" -np 2 -x KCAL_PARAMS="$tmp/bad.params" "$prog" --mode badparams

avail=$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)
if [ "${avail:-0}" -ge 10 ]; then
  run "p=2 above 2 GiB" timeout 300 "${mpi[@]}" -np 2 "$prog" --mode big
else
  echo "skip p=2 above 2 GiB: ${avail} GiB available, want 10"
fi
exit $fail
