#!/usr/bin/env bash
# libkcoll.so exports exactly kcoll.h's public functions (KCOLL_API) and
# nothing else: no model or params code, no internal kcoll_* helpers, no
# test hooks. The library is built with -fvisibility=hidden (algos/module.mk).
# For $KCAL_MPI=mpich: libkcoll-mpich.so (common/mpi_flavor.sh), with its
# own soname.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/common/mpi_flavor.sh"
so=
for d in "${BUILD:+$BUILD/..}" "${KCAL_RELEASE:+$(dirname "$KCAL_RELEASE")}" "$here"; do
  [ -n "$d" ] && [ -f "$d/algos/$mpi_lib.so" ] && { so=$d/algos/$mpi_lib.so; break; }
done
[ -n "$so" ] || { [ "$KCAL_MPI" = openmpi ] || mpi_require
                  echo "algos_exports: $mpi_lib.so not found (make lib builds it)"; exit 1; }
command -v nm >/dev/null || { echo "nm not found"; exit 77; }
want="kcoll_allgather kcoll_allgatherv kcoll_allreduce kcoll_alltoall kcoll_alltoallv kcoll_bcast kcoll_gather kcoll_gatherv kcoll_reduce kcoll_reduce_scatter_block kcoll_scatter kcoll_scatterv"
# What the header marks public must be that list too.
declared=$(grep -o 'KCOLL_API int kcoll_[a-z_]*' "$here/algos/kcoll.h" | awk '{print $3}' | sort | xargs)
got=$(nm -D --defined-only "$so" | awk '{print $NF}' | sort | xargs)
fail=0
[ "$declared" = "$want" ] || { echo "FAIL: kcoll.h marks '$declared' KCOLL_API, want '$want'"; fail=1; }
[ "$got" = "$want" ] || { echo "FAIL: $so exports '$got', want '$want'"; fail=1; }
soname=$(objdump -p "$so" 2>/dev/null | awk '$1 == "SONAME" {print $2}')
[ "$soname" = "$mpi_lib.so" ] || { echo "FAIL: $so has soname '$soname', want $mpi_lib.so"; fail=1; }
# The library the shared object links is this flavor's (the ABIs differ).
case $KCAL_MPI in openmpi) want_mpi=libmpi.so ;; mpich) want_mpi=libmpich.so ;; esac
objdump -p "$so" | grep -q "NEEDED *$want_mpi" || { echo "FAIL: $so does not link $want_mpi"; fail=1; }
[ $fail -eq 0 ] && echo "$mpi_lib.so ($soname, $want_mpi) exports exactly: $got"
exit $fail
