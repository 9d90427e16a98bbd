#!/usr/bin/env bash
# Fortran under the interposer: tests/interpose_fortran.f90 (`use mpi`: the
# five collectives, MPI_IN_PLACE, DOUBLE PRECISION, INTEGER and a derived
# contiguous type, roots 0 and p-1; MPI_ALLREDUCE and MPI_REDUCE, in place
# and not; MPI_ALLTOALLV and MPI_ALLGATHERV with counts that differ by
# pair and gaps between the received blocks) and tests/interpose_f08.f90 (`use mpi_f08`, whose calls reach
# Open MPI by other names; MPI_Allreduce and MPI_Reduce too), built with mpifort
# (gfortran), run at p = 1 and 3 with libkcoll_pmpi.so preloaded. Their own
# checks must pass and, at p = 3, the KCOLL_STATS table must count every
# call as taken by a libkcoll algorithm.
set -u
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
lib=$mpi_build/libkcoll_pmpi.so
[ -e "$lib" ] || { echo "interpose_fortran: $lib not built (make test builds it)"; exit 1; }
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
here=$(cd "$(dirname "$0")" && pwd)
command -v gfortran >/dev/null || { echo "gfortran not found (Debian package gfortran)"; exit 77; }
command -v "$mpi_fc" >/dev/null || { echo "$mpi_fc not found (Debian package libopenmpi-dev or libmpich-dev)"; exit 77; }
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_STRICT KCOLL_SIMULATE_NO_CMA
mpi=("${mpi_run[@]}")
kcal=${KCAL:-$PWD/kcal}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
. "$here/interpose_stats.bash"

for f in interpose_fortran interpose_f08; do
  "$mpi_fc" -O1 -o "$tmp/$f" "$here/$f.f90" -J "$tmp" 2>"$tmp/build" || {
    bad "$mpi_fc $f.f90:"; cat "$tmp/build"; continue; }
  for p in 1 3; do
    # p = 1 by hand (mpirun with LD_PRELOAD), p = 3 through `kcal run`.
    if [ $p = 1 ]; then
      launch=("${mpi[@]}" -np $p "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1)
    else
      launch=("$kcal" run --np $p --oversubscribe --timeout 300 --stats --)
    fi
    if timeout 300 "${launch[@]}" "$tmp/$f" >"$tmp/out" 2>"$tmp/err"; then
      echo "ok   $f p=$p: $(tail -n 1 "$tmp/out")"
    else
      bad "$f p=$p:"; tail -n 20 "$tmp/out" "$tmp/err"; continue
    fi
    [ $p -gt 1 ] || continue
    cma=1
    grep -q 'kcoll: warning: process_vm_readv is not permitted' "$tmp/err" && cma=0
    if check_stats "$tmp/out" "$tmp/err" >"$tmp/why"; then
      echo "ok   $f p=$p KCOLL_STATS: $(awk '$1 == "expect" {printf "%s%s %s", s, $2, $4; s = ", "}' "$tmp/out") calls taken by kcoll"
    else
      bad "$f p=$p KCOLL_STATS:"; cat "$tmp/why" "$tmp/err"
    fi
  done
done
exit $fail
