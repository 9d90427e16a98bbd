#!/usr/bin/env bash
# Python under the interposer: tests/interpose_mpi4py.py (Debian's
# python3-mpi4py and python3-numpy; the uppercase buffer methods Bcast,
# Scatter, Gather, Allgather, Alltoall, Allreduce, Reduce and
# Reduce_scatter_block on arrays of six dtypes, in place and not; a 2-D FFT
# whose transpose is Alltoallv, and Allgatherv; and the pickling
# comm.allreduce, which mpi4py 3 does with MPI_Bcast, not MPI_Allreduce) at
# p = 1 and 3 with libkcoll_pmpi.so preloaded: its own checks
# pass (p = 3 started by `kcal run`) and, at p = 3, the KCOLL_STATS table counts every call as taken by a
# libkcoll algorithm. Debian's python3 is /usr/bin/python3 (another python3
# first in PATH does not see Debian's packages).
set -u
BUILD=${BUILD:-build}
lib=$BUILD/libkcoll_pmpi.so
[ -e "$lib" ] || { echo "interpose_python: $lib not built (make test builds it)"; exit 1; }
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
command -v mpirun >/dev/null || { echo "mpirun not found"; exit 77; }
[ -x $py ] || { echo "$py not found (Debian package python3)"; exit 77; }
$py -c 'import numpy' 2>/dev/null || { echo "numpy not importable by $py (Debian package python3-numpy)"; exit 77; }
$py -c 'import mpi4py' 2>/dev/null || { echo "mpi4py not importable by $py (Debian package python3-mpi4py)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_STRICT KCOLL_SIMULATE_NO_CMA
mpi=(mpirun --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none)
kcal=${KCAL:-$PWD/kcal}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
. "$here/interpose_stats.bash"

for p in 1 3; do
  # p = 1 by hand (mpirun with LD_PRELOAD), p = 3 through `kcal run`.
  if [ $p = 1 ]; then
    launch=("${mpi[@]}" -np $p -x LD_PRELOAD="$lib" -x KCOLL_STATS=1)
  else
    launch=("$kcal" run --np $p --oversubscribe --timeout 300 --stats --)
  fi
  if timeout 300 "${launch[@]}" $py "$here/interpose_mpi4py.py" >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   p=$p: $(tail -n 1 "$tmp/out")"
  else
    bad "p=$p:"; tail -n 20 "$tmp/out" "$tmp/err"; continue
  fi
  [ $p -gt 1 ] || continue
  cma=1
  grep -q 'kcoll: warning: process_vm_readv is not permitted' "$tmp/err" && cma=0
  if check_stats "$tmp/out" "$tmp/err" >"$tmp/why"; then
    echo "ok   p=$p KCOLL_STATS: $(awk '$1 == "expect" {printf "%s%s %s", s, $2, $4; s = ", "}' "$tmp/out") calls taken by kcoll"
  else
    bad "p=$p KCOLL_STATS:"; cat "$tmp/why" "$tmp/err"
  fi
done
exit $fail
