#!/usr/bin/env bash
# The correctness suite of libkcoll (tests/algos_check.c, ASan build): one
# launch per p in {1,2,3,4,5,8} running the whole matrix, the two-level path
# under KCOLL_VIRTUAL_NODES in {1,2,3} at p in {3,4,5,8} (MPICH: p up to 4,
# mpi_max_p of common/mpi_flavor.sh), the fallback path
# (KCOLL_SIMULATE_NO_CMA=1, one warning per process), KCOLL_STRICT=1, a
# state that cannot be built on one process (KCOLL_SIMULATE_NO_STATE=1), a
# $KCAL_PARAMS the model cannot use, a $KCOLL_TABLE that forces algorithms
# and one that does not read, a FIFO or a directory as either file (refused,
# one warning per process), KCOLL_VIRTUAL_NODES with a blank or a sign
# (refused alike), the fallback's types above INT_MAX (scaled down), and,
# when the machine has the memory, messages above 2 GiB at p = 2. Against
# the MPI library of $KCAL_MPI (common/mpi_flavor.sh: Open MPI, or MPICH's
# build in $BUILD-mpich); every run must say it ran as one job of p
# processes with that library (a launcher of another library starts p
# singletons, which would pass at p = 1).
set -u
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
prog=$mpi_build/tests/algos_check
[ -x "$prog" ] || { echo "algos_mpi: $prog not built (make test builds it)"; exit 1; }
# The MPI libraries' own allocations are reported as leaks; our code is
# checked by ASan's other checks. Oversubscribed ranks must yield or they
# spin (Open MPI; mpi_flavor.sh says what MPICH does).
export ASAN_OPTIONS=detect_leaks=0
mpi=("${mpi_run[@]}")
mapfile -t ps < <(mpi_ps 1 2 3 4 5 8)
echo "algos_mpi: $mpi_title, ${mpi[*]}, $prog"
fail=0
run() { # name, then the command
  local name=$1; shift
  local start=$SECONDS np
  np=$(awk '{for (i = 1; i < NF; i++) if ($i == "-np") print $(i + 1)}' <<<"$*")
  if "$@" >"$tmp/out" 2>"$tmp/err"; then
    if ! tail -n 1 "$tmp/out" | grep -q "^algos_check p=$np mode=[a-z]* ($mpi_title"; then
      echo "FAIL $name: not one job of $np processes of $mpi_title: $(tail -n 1 "$tmp/out")"; fail=1
      return
    fi
    echo "ok   $name ($((SECONDS - start)) s): $(tail -n 1 "$tmp/out")"
  else
    echo "FAIL $name ($((SECONDS - start)) s)"; tail -n 30 "$tmp/out" "$tmp/err"; fail=1
  fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cma_ok=1
for p in "${ps[@]}"; do
  run "p=$p full matrix" timeout 600 "${mpi[@]}" -np "$p" "$prog" --mode full
  grep -q 'kcoll: warning' "$tmp/err" && cma_ok=0 && echo "     note: CMA is forbidden here, so p=$p ran the MPI fallback only"
done

# Fallback: still right, and exactly one warning per process.
run "p=3 fallback" timeout 120 "${mpi[@]}" -np 3 "$mpi_x" KCOLL_SIMULATE_NO_CMA=1 "$prog" --mode fallback
warnings=$(grep -c 'kcoll: warning: process_vm_readv is not permitted' "$tmp/err")
if [ "$warnings" -ne 3 ]; then
  echo "FAIL fallback: $warnings warnings on stderr, want 3 (one per process)"; fail=1
else
  echo "ok   fallback warned once per process"
fi
run "p=3 strict" timeout 120 "${mpi[@]}" -np 3 "$mpi_x" KCOLL_SIMULATE_NO_CMA=1 "$mpi_x" KCOLL_STRICT=1 "$prog" --mode strict
if grep -q 'kcoll: warning' "$tmp/err"; then echo "FAIL strict: warned instead of failing"; fail=1; fi
# A state that cannot be built on one process (world rank 1): every process
# falls back to the MPI library on that communicator, for good, and says
# so once.
run "p=3 no state" timeout 120 "${mpi[@]}" -np 3 "$mpi_x" KCOLL_SIMULATE_NO_STATE=1 "$prog" --mode nostate
warnings=$(grep -c "^kcoll: warning: cannot set libkcoll up on a communicator of 3 processes (on \(this\|another\) process" "$tmp/err")
if [ "$warnings" -ne 3 ] || [ "$(grep -c 'kcoll: warning' "$tmp/err")" -ne 3 ]; then
  echo "FAIL no state: $warnings warnings on stderr, want 3 (one per process):"; cat "$tmp/err"; fail=1
else
  echo "ok   no state warned once per process"
fi

# A $KCAL_PARAMS the model cannot use: calls that need its choice run the
# MPI built-in (right results, rc 0) after exactly one warning line per
# process naming the file and the reason. Params whose predictions are NaN
# for some algorithms only make the model pick among the finite ones,
# quietly: there the one warning comes from the throttled id without k,
# whose every k is NaN (modelless runs the NULL calls first).
modelless() { # name, params file, the warning (a grep pattern), p
  local name=$1 params=$2 want=$3 np=$4 all matching
  # Without CMA every call takes the MPI built-in before the model is asked.
  [ $cma_ok = 1 ] || { echo "skip $name: CMA is forbidden here"; return; }
  run "p=$np $name" timeout 120 "${mpi[@]}" -np "$np" "$mpi_x" KCAL_PARAMS="$params" "$prog" --mode modelless
  all=$(grep -c 'kcoll: warning' "$tmp/err")
  matching=$(grep -c -- "$want" "$tmp/err")
  if [ "$all" -ne "$np" ] || [ "$matching" -ne "$np" ]; then
    echo "FAIL $name: $all warning lines ($matching matching '$want'), want $np (one per process):"
    cat "$tmp/err"; fail=1
  else
    echo "ok   $name: one warning per process"
  fi
}
modelless "KCAL_PARAMS=/nonexistent" /nonexistent \
  'kcoll: warning: $KCAL_PARAMS: /nonexistent: cannot open: No such file or directory; calls that leave the algorithm to the model use' 3
printf 'format kcal-params-1\nalpha oops\n' >"$tmp/bad.params"
modelless "malformed KCAL_PARAMS" "$tmp/bad.params" "kcoll: warning: \$KCAL_PARAMS: $tmp/bad.params:2: " 2
printf 'format kcal-params-1\nalpha 1e308\nbeta 1e308\nlock 1e-7\npage 4096\ngamma_a 0.1\ngamma_b 1\n' >"$tmp/inf.params"
modelless "overflowing KCAL_PARAMS" "$tmp/inf.params" "kcoll: warning: $tmp/inf.params: every predicted time of .* overflows" 3
printf 'format kcal-params-1\nalpha 1e-6\nbeta 1e-9\nlock 0\npage 4096\ngamma_a 1e308\ngamma_b 0\n' >"$tmp/nan.params"
modelless "partly NaN KCAL_PARAMS" "$tmp/nan.params" \
  "kcoll: warning: $tmp/nan.params: every predicted time of scatter throttled_read at p = 3, n = 4097 overflows" 3
# A FIFO used to block every rank in open() at its first collective, for
# ever and without a word; a directory was a "read error".
mkfifo "$tmp/fifo" && mkdir "$tmp/dir"
modelless "KCAL_PARAMS a FIFO" "$tmp/fifo" \
  "kcoll: warning: \$KCAL_PARAMS: $tmp/fifo: is a FIFO (named pipe), not a regular file; calls that leave" 3
modelless "KCAL_PARAMS a directory" "$tmp/dir" \
  "kcoll: warning: \$KCAL_PARAMS: $tmp/dir: is a directory; calls that leave" 3

# With KCOLL_VERIFY=0 (the pure choice, no run-time check: the modes
# below that count what the model, the hand-off or a table decided),
# small messages go to the MPI library below the crossover kcal probe
# measured (mpi_<coll>_below, here 64 KiB for every collective; its line
# mpi_<coll>_a/_b is only the row's predicted time), and so do the size
# classes of mpi_<coll>_mask above it (here 128-256 KiB), on the embedded
# KNL parameters.
if [ $cma_ok = 1 ]; then
  { sed -n '/^format/,$p' data/knl.params
    for c in scatter gather bcast allgather alltoall; do
      printf 'mpi_%s_a 1e-6\nmpi_%s_b 1e-10\nmpi_%s_below 65536\nmpi_%s_mask 131072\n' $c $c $c $c
    done; } >"$tmp/handoff.params"
  run "p=3 MPI hand-off" timeout 120 "${mpi[@]}" -np 3 "$mpi_x" KCOLL_VERIFY=0 "$mpi_x" KCAL_PARAMS="$tmp/handoff.params" "$prog" --mode handoff
  if grep -q 'kcoll: warning' "$tmp/err"; then echo "FAIL hand-off: warned"; cat "$tmp/err"; fail=1; fi
  # KCOLL_STATS=1: rank 0 alone prints its table at MPI_Finalize, and the
  # rows are what the hand-off run did: per collective, its handed-off calls
  # (4 sizes, with and without in place; bcast has no in place) went to the
  # MPI library, and the one named gather call of 1 KiB at p = 3 took
  # parallel_write_flags with 3 KiB in all.
  run "p=3 KCOLL_STATS" timeout 120 "${mpi[@]}" -np 3 "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_VERIFY=0 "$mpi_x" KCAL_PARAMS="$tmp/handoff.params" "$prog" --mode handoff
  stats_ok=1
  [ "$(grep -c '^kcoll stats (rank 0 of MPI_COMM_WORLD)' "$tmp/err")" -eq 1 ] || stats_ok=0
  for c in scatter gather allgather alltoall; do
    grep -Eq "^$c +mpi +8 " "$tmp/err" || stats_ok=0
  done
  grep -Eq '^bcast +mpi +4 ' "$tmp/err" || stats_ok=0
  grep -Eq '^gather +parallel_write_flags +1 +3072 ' "$tmp/err" || stats_ok=0
  if [ $stats_ok = 1 ]; then echo "ok   KCOLL_STATS table on rank 0 counts the calls"
  else echo "FAIL KCOLL_STATS table:"; cat "$tmp/err"; fail=1; fi
else
  echo "skip MPI hand-off: CMA is forbidden here"
fi

# A selection table ($KCOLL_TABLE, docs/tune.md) decides the NULL calls it
# has a rule for, before the model: algorithms forced per collective, p and
# size, results byte for byte the built-in's, each decision counted; no
# warning. A table that does not read: one warning per process naming
# file:line, and the NULL calls run the MPI library's own collectives.
if [ $cma_ok = 1 ]; then
  cat >"$tmp/force.table" <<'EOF2'
kcoll-table 1 tests/algos_mpi.sh: forces algorithms at p = 3 (not measured)
scatter    3     0..4095      mpi
scatter    3     4K..         sequential_write
gather     3     *            throttled_write:2
bcast      3..8  0..1048575   knomial:5      # k > p - 1 at p = 3: the model's k
allgather  3..4  *            ring_neighbor:2
alltoall   1..2  *            mpi            # not p = 3: the model decides
EOF2
  run "p=3 KCOLL_TABLE forcing algorithms" timeout 120 "${mpi[@]}" -np 3 "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_VERIFY=0 "$mpi_x" KCOLL_TABLE="$tmp/force.table" "$prog" --mode table
  if grep -q 'kcoll: warning' "$tmp/err"; then echo "FAIL KCOLL_TABLE: warned"; cat "$tmp/err"; fail=1; fi
  # What ran, by KCOLL_STATS (rank 0): the rules' algorithms, knomial with
  # the model's k at p = 3, and alltoall (no rule at p = 3) the model's:
  # with the embedded params copy_in_out for the two smallest sizes,
  # pairwise for the rest.
  table_ok=1
  for row in 'scatter +mpi +4 ' 'scatter +sequential_write +4 ' 'gather +throttled_write:2 +8 ' \
             'bcast +knomial:2 +4 ' 'allgather +ring_neighbor:2 +8 ' \
             'alltoall +copy_in_out +2 ' 'alltoall +pairwise +6 '; do
    grep -Eq "^$row" "$tmp/err" || { echo "FAIL KCOLL_TABLE: no KCOLL_STATS row '$row'"; table_ok=0; }
  done
  [ $table_ok = 1 ] && echo "ok   KCOLL_TABLE: KCOLL_STATS shows the table's algorithms ran" || { cat "$tmp/err"; fail=1; }
  printf 'kcoll-table 1 broken on purpose\nscatter 3 * mpi\ngather 3 * parallel_read\n' >"$tmp/bad.table"
  run "p=3 bad KCOLL_TABLE" timeout 120 "${mpi[@]}" -np 3 "$mpi_x" KCOLL_TABLE="$tmp/bad.table" "$prog" --mode badtable
  all=$(grep -c 'kcoll: warning' "$tmp/err")
  matching=$(grep -c -F -- "kcoll: warning: \$KCOLL_TABLE: $tmp/bad.table:3: 'parallel_read' is not an algorithm of gather (nor mpi); calls that leave the algorithm to libkcoll use the MPI library's own collectives" "$tmp/err")
  if [ "$all" -ne 3 ] || [ "$matching" -ne 3 ]; then
    echo "FAIL bad KCOLL_TABLE: $all warning lines ($matching naming bad.table:3), want 3 (one per process):"
    cat "$tmp/err"; fail=1
  else
    echo "ok   bad KCOLL_TABLE: one warning per process, naming file:line"
  fi
  for what in fifo dir; do
    run "p=3 KCOLL_TABLE a $what" timeout 120 "${mpi[@]}" -np 3 "$mpi_x" KCOLL_TABLE="$tmp/$what" "$prog" --mode badtable
    all=$(grep -c 'kcoll: warning' "$tmp/err")
    matching=$(grep -c -- "^kcoll: warning: \$KCOLL_TABLE: $tmp/$what: is a \(FIFO (named pipe), not a regular file\|directory\); calls that leave" "$tmp/err")
    if [ "$all" -ne 3 ] || [ "$matching" -ne 3 ]; then
      echo "FAIL KCOLL_TABLE a $what: $all warning lines ($matching saying what it is), want 3 (one per process):"
      cat "$tmp/err"; fail=1
    else
      echo "ok   KCOLL_TABLE a $what: one warning per process, saying what it is"
    fi
  done
else
  echo "skip KCOLL_TABLE: CMA is forbidden here"
fi

# Two levels across (virtual) nodes: KCOLL_VIRTUAL_NODES=K makes each group
# of K consecutive world ranks a node. The vnodes matrix checks every
# algorithm byte for byte against the MPI built-in on the world, the odd/even
# split and an interleaved permutation (tests/algos_check.c), and rank 0's
# KCOLL_STATS table must show the two-level path: a two_level: row for every
# collective where the world spans nodes (p > K), carrying the named node
# algorithm (two_level:local where every node is one rank), and none where
# the world is one node (p <= K). No warning: CMA works in every virtual node.
mapfile -t vps < <(mpi_ps 3 4 5 8)
for k in 1 2 3; do
  for p in "${vps[@]}"; do
    run "p=$p KCOLL_VIRTUAL_NODES=$k" timeout 300 "${mpi[@]}" -np "$p" "$mpi_x" KCOLL_VIRTUAL_NODES=$k "$mpi_x" KCOLL_STATS=1 "$prog" --mode vnodes
    rows=0
    for c in scatter gather bcast allgather alltoall; do
      grep -Eq "^$c +two_level:" "$tmp/err" && rows=$((rows + 1))
    done
    want=5 named='two_level:parallel_write '
    [ "$k" = 1 ] && named='two_level:local '
    [ "$p" -le "$k" ] && want=0 named=
    if [ $rows -ne $want ] || { [ -n "$named" ] && ! grep -Eq "^gather +$named" "$tmp/err"; }; then
      echo "FAIL p=$p K=$k: $rows collectives with two_level: rows (want $want${named:+, and gather $named}):"
      cat "$tmp/err"; fail=1
    fi
    if [ $cma_ok = 1 ] && grep -q 'kcoll: warning' "$tmp/err"; then
      echo "FAIL p=$p K=$k: warned"; cat "$tmp/err"; fail=1
    fi
  done
done
# Across virtual nodes without CMA: each node step runs the MPI library's
# collective, still right, one warning per process.
run "p=4 KCOLL_VIRTUAL_NODES=2 fallback" timeout 120 "${mpi[@]}" -np 4 "$mpi_x" KCOLL_VIRTUAL_NODES=2 "$mpi_x" KCOLL_SIMULATE_NO_CMA=1 "$prog" --mode fallback
warnings=$(grep -c 'kcoll: warning: process_vm_readv is not permitted' "$tmp/err")
if [ "$warnings" -ne 4 ]; then
  echo "FAIL virtual nodes fallback: $warnings warnings on stderr, want 4 (one per process)"; fail=1
else
  echo "ok   virtual nodes fallback warned once per process"
fi

# One rule for every numeric variable (algos/config.def): decimal digits
# only. ' 2' and '+2' used to be taken as 2 where '2 ' was refused: now
# each is one warning per process and the default (no virtual nodes: no
# two_level row), and the results stay right.
for v in ' 2' '+2' '2 '; do
  run "p=4 KCOLL_VIRTUAL_NODES='$v'" timeout 120 "${mpi[@]}" -np 4 "$mpi_x" "KCOLL_VIRTUAL_NODES=$v" "$mpi_x" KCOLL_STATS=1 "$prog" --mode fallback
  all=$(grep -c 'kcoll: warning' "$tmp/err")
  matching=$(grep -c -F -- "kcoll: warning: KCOLL_VIRTUAL_NODES='$v' is not a whole number from 1 to 2147483647 (decimal digits only); using the default" "$tmp/err")
  if [ "$all" -ne 4 ] || [ "$matching" -ne 4 ] || grep -q 'two_level' "$tmp/err"; then
    echo "FAIL KCOLL_VIRTUAL_NODES='$v': $all warning lines ($matching matching), want 4 (one per process) and no two_level row:"
    cat "$tmp/err"; fail=1
  else
    echo "ok   KCOLL_VIRTUAL_NODES='$v': refused, one warning per process"
  fi
done

# The fallback's derived type for blocks above INT_MAX bytes, scaled down.
run "p=3 fallback types" timeout 120 "${mpi[@]}" -np 3 "$prog" --mode types

avail=$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)
if [ "${avail:-0}" -ge 10 ]; then
  run "p=2 above 2 GiB" timeout 300 "${mpi[@]}" -np 2 "$prog" --mode big
else
  echo "skip p=2 above 2 GiB: ${avail} GiB available, want 10"
fi
exit $fail
