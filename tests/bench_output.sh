#!/usr/bin/env bash
# One line means one line. `kcal` without a command: one line on stderr,
# exit 2, nothing on stdout. kcal bench where CMA is forbidden (simulated
# with KCOLL_SIMULATE_NO_CMA=1) and with a result that differs from the MPI
# built-in: with -q exactly one line on stderr, the job's own message, and
# mpirun's whole output kept in the file that line names; -v shows mpirun's
# messages as they come instead (and keeps no file). A reduction's bad
# --type or --op is one line too.
set -u
KCAL=${KCAL:-./kcal}
. "$(dirname "$0")/../common/mpi_flavor.sh"
export ASAN_OPTIONS=detect_leaks=0
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp/logs
mkdir -p "$TMPDIR"

"$KCAL" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q '^kcal: ' "$tmp/err"; then
  echo "FAIL: kcal without a command: exit $rc (want 2), stdout $(wc -l <"$tmp/out") lines, stderr (want one line):"
  cat "$tmp/err"; fail=1
fi
"$KCAL" --help >"$tmp/out" 2>"$tmp/err" && grep -q '^  bench ' "$tmp/out" ||
  { echo "FAIL: kcal --help does not list the commands"; fail=1; }

# A reduction's --type and --op (bench/reduce_names.c): a name kcal does
# not know, a combination MPI does not define, a type or op given to a
# collective that moves bytes, a pair libkcoll hands to the MPI library,
# a size that is not whole elements: exit 2, nothing on stdout, one line
# naming the option and the value, before anything is launched (no MPI
# needed). usage_line WANT_IN_LINE ARGS...
usage_line() {
  local line=$1; shift
  "$KCAL" bench "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
     ! grep -qF -- "kcal bench: $line" "$tmp/err"; then
    echo "FAIL: kcal bench $* -> exit $rc (want 2), stdout $(wc -c <"$tmp/out") bytes, stderr (want one line 'kcal bench: $line'):"
    cat "$tmp/err"; fail=1
  fi
}
usage_line "--op band is not defined on --type double (the default)" --coll allreduce --p 2 --op band
usage_line "--op land is not defined on --type float" --coll reduce --p 2 --type float --op land
usage_line "--op maxloc is not defined on --type int" --coll reduce_scatter_block --p 2 --type int --op maxloc
usage_line "--op sum (the default) is not defined on --type 2int" --coll allreduce --p 2 --type 2int
usage_line "--type: only the reductions" --coll scatter --p 2 --type int
usage_line "--op: only the reductions" --coll bcast --p 2 --op max
usage_line "--type: 'int128' is not a type (double, " --coll allreduce --p 2 --type int128
usage_line "--op: 'avg' is not an op (sum, " --coll allreduce --p 2 --op avg
usage_line "--type double_int: libkcoll hands this pair to the MPI library" --coll allreduce --p 2 --type double_int --op maxloc
usage_line "--sizes: 1001 bytes is not a whole number of int64 (8 bytes each" --coll allreduce --p 2 --type int64 --sizes 1K,1001

mpi_require

# one_line WANT_EXIT WANT_IN_LINE WANT_IN_LOG ARGS...: exit, one line on
# stderr holding WANT_IN_LINE and naming a log in $TMPDIR holding WANT_IN_LOG.
one_line() {
  local want=$1 line=$2 inlog=$3; shift 3
  rm -f "$TMPDIR"/*
  "$KCAL" bench -q "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  local log
  log=$(grep -o "$TMPDIR/kcal-bench-[A-Za-z0-9]*\.log" "$tmp/err")
  if [ $rc -ne "$want" ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
     ! grep -qF -- "$line" "$tmp/err"; then
    echo "FAIL: kcal bench -q $* -> exit $rc (want $want), stdout $(wc -c <"$tmp/out") bytes, stderr (want one line with '$line'):"
    cat "$tmp/err"; fail=1
  elif [ -z "$log" ] || ! grep -qF -- "$inlog" "$log"; then
    echo "FAIL: kcal bench -q $*: no log with '$inlog' named in: $(cat "$tmp/err")"; fail=1
  fi
}
no_cma=(--coll bcast --p 2 --sizes 4K --mpirun "$mpi_launcher $mpi_x KCOLL_SIMULATE_NO_CMA=1")
KCOLL_SIMULATE_NO_CMA=1 one_line 3 "CMA (process_vm_readv) is not permitted" \
  "kcal-bench-mpi: process_vm_readv is not permitted" "${no_cma[@]}"
# The log keeps mpirun's own report of the failed job, which stderr lost.
grep -q 'mpirun' "$TMPDIR"/kcal-bench-*.log 2>/dev/null ||
  { echo "FAIL: the log lacks mpirun's messages"; cat "$TMPDIR"/* 2>/dev/null; fail=1; }

KCAL_BENCH_CORRUPT_FOR_TEST=1 one_line 1 "kcal-bench-mpi: CHECK FAILED" "CHECK FAILED" \
  --coll scatter --p 2 --sizes 4K --iterations 2 --check --mpirun "$mpi_launcher $mpi_x KCAL_BENCH_CORRUPT_FOR_TEST=1"

# --check compares typed reductions too (kcal-bench-mpi's own data for
# the type and op), and a wrong byte is one line.
KCAL_BENCH_CORRUPT_FOR_TEST=1 one_line 1 "kcal-bench-mpi: CHECK FAILED: allreduce" "CHECK FAILED" \
  --coll allreduce --p 2 --type uint8 --op bxor --sizes 4K --iterations 2 --check --mpirun "$mpi_launcher $mpi_x KCAL_BENCH_CORRUPT_FOR_TEST=1"

# -v: mpirun's messages as they come, no file.
rm -f "$TMPDIR"/*
KCOLL_SIMULATE_NO_CMA=1 "$KCAL" bench -q -v "${no_cma[@]}" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -ne 3 ] || ! grep -q '^kcal-bench-mpi: process_vm_readv' "$tmp/err" ||
   ! grep -q 'mpirun' "$tmp/err" || [ -n "$(ls "$TMPDIR")" ]; then
  echo "FAIL: -v: exit $rc (want 3), files: $(ls "$TMPDIR"), stderr:"; cat "$tmp/err"; fail=1
fi
[ $fail -eq 0 ] && echo "one-line errors: all checks passed"
exit $fail
