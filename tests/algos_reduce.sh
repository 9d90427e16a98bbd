#!/usr/bin/env bash
# libkcoll's reductions (tests/reduce_check.c) under MPI at p = 1-5 and 8
# (MPICH: up to 4, mpi_max_p; 3 and up oversubscribed on the 2-core
# machines: correctness, not speed): every algorithm and NULL, every (type,
# op) pair the check knows, in place and not, every root, against the
# rank-order fold and the MPI library; and in virtual nodes
# (KCOLL_VIRTUAL_NODES=K: p = 4 in two nodes of 2, p = 5 in nodes of 3 and
# 2, p = 3 in nodes of 1), where every reduction runs in two levels
# (algos/two_level_reduce.c), on the world and on a communicator whose
# nodes' ranks are not consecutive: rank 0's KCOLL_STATS table must show a
# two_level: row for each of the three, and (nodes of more than one rank) a
# two_level:mpi(order) row for the non-commutative op on the second; and
# ranks that read different params, which must still cut
# reduce_scatter_write's slices alike. Against the MPI library of $KCAL_MPI
# (common/mpi_flavor.sh).
set -u
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
prog=$mpi_build/tests/reduce_check
[ -x "$prog" ] || { echo "algos_reduce: $prog not built (make test builds it)"; exit 1; }
export ASAN_OPTIONS=detect_leaks=0
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_VERIFY KCOLL_TEST_SLOW KCOLL_VIRTUAL_NODES
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
run() { # name, then the command
  local name=$1; shift
  local start=$SECONDS
  if "$@" >"$tmp/out" 2>"$tmp/err" && grep -q '^reduce_check p=[0-9]*: [0-9]* cases, 0 failed' "$tmp/out"; then
    echo "ok   $name ($((SECONDS - start)) s): $(grep '^reduce_check' "$tmp/out")"
  else
    echo "FAIL $name ($((SECONDS - start)) s)"; tail -n 30 "$tmp/out" "$tmp/err"; fail=1
  fi
}
for p in $(mpi_ps 1 2 3 4 5); do
  run "p=$p" timeout 600 "${mpi_run[@]}" -np "$p" "$prog"
done
# p = 8 (oversubscribed 4 to a core here): the same cases, reduce at roots
# 0, 4 and 7 only (every root took 203 s with Open MPI on 2 cores).
[ -n "$(mpi_ps 8)" ] && run "p=8, roots 0, 4, 7" timeout 600 "${mpi_run[@]}" -np 8 "$prog" --few-roots
# Ranks that read different params still cut reduce_scatter_write's
# slices alike (rank 0's F, algos/reduce.c): here rank 0 prices every op
# at a fold 8x a copy (F = 9, slices near even) and the others at a copy
# (F = 2: their file has no reduce_beta).
data=$(cd "$(dirname "$0")" && pwd)/data
grep -v '^reduce_' "$data/probed-quick.params" >"$tmp/slow.params"
beta=$(awk '$1 == "beta" {print $2}' "$tmp/slow.params")
awk -v b="$beta" 'BEGIN {printf "reduce_beta %.6g\n", 8 * b}' >>"$tmp/slow.params"
for p in 2 3; do
  run "p=$p, rank 0 with other params" timeout 600 "${mpi_run[@]}" \
    -np 1 env KCAL_PARAMS="$tmp/slow.params" "$prog" : \
    -np $((p - 1)) env KCAL_PARAMS="$data/probed-quick.params" "$prog"
done
for pk in 4:2 5:3 3:1; do
  p=${pk%:*} k=${pk#*:}
  [ -n "$(mpi_ps "$p")" ] || continue
  run "p=$p, virtual nodes of $k" timeout 600 "${mpi_run[@]}" -np "$p" "$mpi_x" KCOLL_VIRTUAL_NODES=$k "$mpi_x" KCOLL_STATS=1 "$prog"
  for c in reduce allreduce reduce_scatter_block; do
    grep -Eq "^$c +two_level:" "$tmp/err" || { echo "FAIL p=$p K=$k: no $c two_level: row"; cat "$tmp/err"; fail=1; }
  done
  # (a node of one rank is consecutive in any order)
  [ "$k" = 1 ] || grep -Eq "^[a-z_]+ +two_level:mpi\(order\)" "$tmp/err" ||
    { echo "FAIL p=$p K=$k: no two_level:mpi(order) row (the non-commutative op, nodes not consecutive)"; cat "$tmp/err"; fail=1; }
done
exit $fail
