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

# HPL's input format (hpcc reads hpccinf.txt from its working directory):
# one problem of N = 1000 on a 1 x 2 grid, and one PTRANS size.
cat >"$tmp/hpccinf.txt" <<'IN'
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
1000         Ns
1            # of NBs
40           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
1            Number of additional problem sizes for PTRANS
1000         values of N
1            number of additional blocking sizes for PTRANS
40           values of NB
IN

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
