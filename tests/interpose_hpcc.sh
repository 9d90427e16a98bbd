#!/usr/bin/env bash
# A real application no one here wrote, unmodified, under the interposer:
# Debian's hpcc (HPC Challenge 1.5, built with Open MPI; its MPI FFT moves
# its data with MPI_Alltoall, HPL and PTRANS broadcast their parameters)
# at p = 2 on a small input (N = 1000, a few seconds), with
# libkcoll_pmpi.so preloaded and KCOLL_STATS=1. hpcc's own validation must
# pass (hpccoutf.txt: Success=1, HPL and every PTRANS run PASSED, no
# RandomAccess errors, the FFT's error at rounding level, STREAM validates)
# and the stats must show calls taken by libkcoll's algorithms: alltoall
# and bcast.
set -u
BUILD=${BUILD:-build}
lib=$BUILD/libkcoll_pmpi.so
[ -e "$lib" ] || { echo "interpose_hpcc: $lib not built (make test builds it)"; exit 1; }
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
command -v mpirun >/dev/null || { echo "mpirun not found"; exit 77; }
command -v hpcc >/dev/null || { echo "hpcc not found (Debian package hpcc)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_STRICT KCOLL_SIMULATE_NO_CMA
kcal=${KCAL:-$PWD/kcal}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

# The input kcal ships for this example (examples/hpccinf.txt, installed in
# PREFIX/share/kcal/examples/): HPL's format, one problem of N = 1000 on a
# 1 x 2 grid and one PTRANS size; hpcc reads it from its working directory.
inf=$(dirname "$0")/../examples/hpccinf.txt
[ -r "$inf" ] || { echo "FAIL $inf is missing"; exit 1; }
cp "$inf" "$tmp/hpccinf.txt"

start=$SECONDS
# Through `kcal run`, as a user would start it (it preloads the interposer).
(cd "$tmp" && "$kcal" run --np 2 --oversubscribe --timeout 300 --stats -- hpcc) >"$tmp/out" 2>"$tmp/err"
rc=$?
out=$tmp/hpccoutf.txt
if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
  bad "hpcc exited $rc"; tail -n 30 "$tmp/out" "$tmp/err"; exit 1
fi
echo "ok   hpcc ran under kcal run (the interposer) in $((SECONDS - start)) s"

# hpcc's own verdicts.
val() { awk -F= -v k="$1" '$1 == k {print $2}' "$out"; }
[ "$(val Success)" = 1 ] && echo "ok   Success=1" || bad "hpcc: Success=$(val Success)"
if grep -q 'PASSED$' <(sed -n '/^Begin of HPL section/,/^End of HPL section/p' "$out") &&
   ! grep -q FAILED "$out"; then
  echo "ok   HPL's residual check PASSED"
else
  bad "HPL's residual check did not pass"
fi
ptrans=$(sed -n '/^Begin of PTRANS section/,/^End of PTRANS section/p' "$out" | grep -Ec '^(WALL|CPU) ')
ptrans_ok=$(sed -n '/^Begin of PTRANS section/,/^End of PTRANS section/p' "$out" | grep -Ec '^(WALL|CPU) .* PASSED ')
[ "$ptrans" -gt 0 ] && [ "$ptrans" = "$ptrans_ok" ] && echo "ok   PTRANS: $ptrans_ok of $ptrans runs PASSED" \
  || bad "PTRANS: $ptrans_ok of $ptrans runs PASSED"
for k in MPIRandomAccess_Errors MPIRandomAccess_LCG_Errors; do
  [ "$(val $k)" = 0 ] || bad "$k=$(val $k)"
done
fft=$(val MPIFFT_maxErr)
awk -v e="$fft" 'BEGIN {exit !(e != "" && e + 0 < 1e-10)}' && echo "ok   MPI FFT max error $fft" \
  || bad "MPIFFT_maxErr=$fft"
grep -q 'Solution Validates' "$out" && echo "ok   STREAM validates" || bad "STREAM did not validate"

# libkcoll took hpcc's alltoall and bcast calls (where CMA is forbidden it
# runs the MPI library's collectives, recorded as "mpi").
table=$(sed -n '/^kcoll stats/,$p' "$tmp/err")
mpi_too=0
grep -q 'kcoll: warning: process_vm_readv is not permitted' "$tmp/err" && mpi_too=1 &&
  echo "     note: CMA is forbidden here: libkcoll ran the MPI library's collectives"
for c in alltoall bcast; do
  n=$(echo "$table" | awk -v c="$c" -v m=$mpi_too '$1 == c && $2 != "local" && ($2 !~ /^mpi/ || (m && $2 == "mpi")) {n += $3} END {print n + 0}')
  [ "$n" -gt 0 ] && echo "ok   $c: $n calls taken by libkcoll" || bad "$c: no call taken by libkcoll"
done
echo "$table"
exit $fail
