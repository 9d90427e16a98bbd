#!/usr/bin/env bash
# libkcoll's irregular collectives (tests/vcoll_check.c) under MPI at p =
# 1-5 and 8 (MPICH: up to 4, mpi_max_p; 3 and up oversubscribed on the
# 2-core machines: correctness, not speed): scatterv, gatherv, allgatherv
# and alltoallv, every algorithm of algos/irregular.def, "mpi" and NULL,
# counts uniform, skewed, random, sparse and zero, displacements with gaps
# and in reverse order, every root, in place and not, against the senders'
# pattern and the MPI library; unknown ids, overlapping receive regions and
# mismatched counts; NULL repeated, so the root runs each of its help
# policies (and the policy's choice on made-up times, tests/vhelp_check.c);
# and at p = 4 in two virtual nodes (KCOLL_VIRTUAL_NODES=2). Against the MPI
# library of $KCAL_MPI (common/mpi_flavor.sh).
set -u
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
prog=$mpi_build/tests/vcoll_check
[ -x "$prog" ] || { echo "algos_vcoll: $prog not built (make test builds it)"; exit 1; }
export ASAN_OPTIONS=detect_leaks=0
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_VERIFY KCOLL_TEST_SLOW KCOLL_VIRTUAL_NODES
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
run() { # name, then the command
  local name=$1; shift
  local start=$SECONDS
  if "$@" >"$tmp/out" 2>"$tmp/err" && grep -q '^vcoll_check p=[0-9]*: [0-9]* cases, 0 failed' "$tmp/out"; then
    echo "ok   $name ($((SECONDS - start)) s): $(grep '^vcoll_check' "$tmp/out" | tr '\n' ' ')"
  else
    echo "FAIL $name ($((SECONDS - start)) s)"; tail -n 30 "$tmp/out" "$tmp/err"; fail=1
  fi
}
# The root's help policy (algos/vhelp.h) on made-up times, no MPI run.
if out=$("$mpi_build/tests/vhelp_check" 2>&1) && grep -q ', 0 failed$' <<<"$out"; then
  echo "ok   vhelp_check: $out"
else
  echo "FAIL vhelp_check:"; echo "$out"; fail=1
fi
for p in $(mpi_ps 1 2 3 4 5); do
  run "p=$p" timeout 600 "${mpi_run[@]}" -np "$p" "$prog"
done
# p = 8 (oversubscribed 4 to a core here): the same cases, scatterv and
# gatherv at roots 0, 4 and 7 only.
[ -n "$(mpi_ps 8)" ] && run "p=8, roots 0, 4, 7" timeout 600 "${mpi_run[@]}" -np 8 "$prog" --few-roots
run "p=4, two virtual nodes" timeout 600 "${mpi_run[@]}" -np 4 "$mpi_x" KCOLL_VIRTUAL_NODES=2 "$prog"
# Measured params (the MPI library's lines): NULL's per-pair crossover is
# then kilobytes, so its small blocks go as MPI messages; the embedded
# default has none and sends every pair by CMA.
params=$(cd "$(dirname "$0")" && pwd)/data/probed-quick.params
run "p=3, NULL with a crossover" timeout 600 "${mpi_run[@]}" -np 3 "$mpi_x" KCAL_PARAMS="$params" "$prog"
# At p = 2 NULL's split rows get the root's help for a pair of 128 KiB or
# more and at least twice the root's own block (irregular.h): the skewed
# 65549-byte cases have one (1 MiB), so one call mixes helped pairs,
# plain CMA pairs and messages.
run "p=2, NULL with a crossover and the split's help" timeout 600 "${mpi_run[@]}" -np 2 "$mpi_x" KCAL_PARAMS="$params" "$prog"
# NULL's allgatherv from its largest block (every rank knows every
# count), at rank 0 (KCOLL_STATS; kcal-vcoll-bench's auto rows alone are
# NULL's, its other row is mpi), as bytes per call (2 blocks; as many
# calls of each size; the bench's mpi row calls the MPI library itself).
# With those params (mpi_allgather_below 512): the MPI library's call
# below the measured crossover, the staged row (copy_in_out) from it to
# 4 KiB (model/irregular.h's KCAL_V_STAGED_MAX), the MPI library's again
# up to the first row's crossover (the model's, above 5K here), then
# source_read_flags. With a table: its mpi rule, its staged range (cut at
# 4 KiB) and its row. That static decision is what KCOLL_VERIFY=0 runs
# (on one node the verified choice measures it against the others:
# below).
cat >"$tmp/s.table" <<'EOF2'
kcoll-table 1 tests/algos_vcoll.sh: allgatherv's staged range
allgatherv 2  0..511     mpi
allgatherv 2  512..8K    copy_in_out
allgatherv 2  8193..     source_read
EOF2
vbench=$mpi_build/kcal-vcoll-bench
for how in params table; do
  if [ $how = params ]; then
    env=(KCAL_PARAMS="$params")
    want="copy_in_out=$(( 1024 + 4096 )) mpi=$(( 256 + 5120 )) source_read_flags=$(( 2 * 65536 ))"
  else
    env=(KCOLL_TABLE="$tmp/s.table")
    want="copy_in_out=$(( 1024 + 4096 )) mpi=$(( 2 * 256 )) source_read=$(( 5120 + 65536 ))"
  fi
  if "${mpi_run[@]}" -np 2 "$mpi_x" "${env[0]}" "$mpi_x" KCOLL_STATS=1 \
       "$mpi_x" KCOLL_VERIFY=0 \
       "$vbench" --coll allgatherv --counts uniform --sizes 256,1K,4K,5K,64K \
       --iterations 20 --min-iterations 20 --algorithm mpi --quiet \
       >"$tmp/out" 2>"$tmp/err"; then
    got=$(awk '$1 == "allgatherv" && NF == 5 { print $2 "=" $4 / $3 }' "$tmp/out" "$tmp/err" | sort | xargs)
    if [ "$got" = "$want" ]; then
      echo "ok   p=2, NULL's allgatherv by its largest block ($how): $got"
    else
      echo "FAIL p=2, NULL's allgatherv by its largest block ($how): '$got', want '$want'"; fail=1
    fi
  else
    echo "FAIL p=2, NULL's allgatherv by its largest block ($how): the bench failed"; tail -n 20 "$tmp/err"; fail=1
  fi
done
# Verified (the default on one node): rank 0's KCOLL_STATS lists one
# first decision of allgatherv per size class (256, 4K, 64K), each with
# the static decision, another row and the MPI library among its
# candidates, and every row the calls ran is a candidate of one.
if "${mpi_run[@]}" -np 2 "$mpi_x" KCAL_PARAMS="$params" "$mpi_x" KCOLL_STATS=1 \
     "$vbench" --coll allgatherv --counts uniform --sizes 256,4K,64K \
     --iterations 20 --min-iterations 20 --algorithm mpi --quiet \
     >"$tmp/out" 2>"$tmp/err"; then
  firsts=$(grep -c '^decision allgatherv p=2 .*, .* mpi [0-9.]*.* -> [a-z_]* (first)$' "$tmp/err")
  ran=$(awk '$1 == "allgatherv" && NF == 5 { print $2 }' "$tmp/err" | sort -u | xargs)
  stray=""
  for r in $ran; do
    grep -q "^decision allgatherv .* $r [0-9.]*" "$tmp/err" || stray="$stray $r"
  done
  if [ "$firsts" -eq 3 ] && [ -z "$stray" ]; then
    echo "ok   p=2, NULL's allgatherv verified: 3 first decisions, ran $ran"
  else
    echo "FAIL p=2, NULL's allgatherv verified: $firsts first decisions (want 3), rows no decision lists:${stray:- none}"
    cat "$tmp/err"; fail=1
  fi
else
  echo "FAIL p=2, NULL's allgatherv verified: the bench failed"; tail -n 20 "$tmp/err"; fail=1
fi
# A $KCOLL_TABLE with rules of the v-collectives at p = 3: NULL runs the
# rows and crossovers they name (rank 0's KCOLL_STATS must show them), and
# its results stay right. Then rank 0 and the others read different
# tables: rank 0's decides for all (algos/choice.c broadcasts it), so
# the ranks still meet in one protocol and nothing hangs.
cat >"$tmp/a.table" <<'EOF2'
kcoll-table 1 tests/algos_vcoll.sh: rows other than the first, crossovers
scatterv   3  *        sequential_write
gatherv    3  0..4095  mpi
gatherv    3  4K..     throttled_write:1
alltoallv  3  0..8191  mpi
alltoallv  3  8K..     pairwise
allgatherv 3  *        mpi
EOF2
cat >"$tmp/b.table" <<'EOF2'
kcoll-table 1 tests/algos_vcoll.sh: another table for ranks 1 and 2
scatterv   3  *        parallel_read
gatherv    3  *        sequential_read
alltoallv  3  *        pairwise
allgatherv 3  *        source_read
EOF2
# Rank 0's KCOLL_STATS rows that only NULL makes: a crossover's messages
# (+msg<N) and the first rows' help (help:...). The table's, and none of
# the default's (the first rows with their help, the embedded params'
# crossovers).
null_rows() {
  awk '$1 ~ /^(scatterv|gatherv|allgatherv|alltoallv)$/ && $2 ~ /[+]msg<|[(]help:/ { print $1 " " $2 }' \
    "$tmp/out" "$tmp/err" | sort -u | xargs
}
want="alltoallv pairwise+msg<8192 gatherv throttled_write+msg<4096 gatherv throttled_write:1+msg<4096"
# In the second run ranks 1 and 2 have no KCOLL_STATS: a call whose pairs
# at them all go as messages takes the short way there (irregular.c),
# while rank 0 takes the full path, and the two must meet. (A short way
# that skipped the root's own block failed the other NULL runs above.)
for how in "one table" "rank 0's table, another for the others"; do
  if [ "$how" = "one table" ]; then
    run "p=3, NULL by a table ($how)" timeout 600 "${mpi_run[@]}" -np 3 "$mpi_x" KCOLL_TABLE="$tmp/a.table" "$mpi_x" KCOLL_STATS=1 "$prog"
  else
    run "p=3, NULL by a table ($how)" timeout 600 "${mpi_run[@]}" -np 1 env KCOLL_TABLE="$tmp/a.table" KCOLL_STATS=1 "$prog" : \
      -np 2 env KCOLL_TABLE="$tmp/b.table" "$prog"
  fi
  got=$(null_rows)
  if [ "$got" = "$want" ]; then
    echo "ok   p=3, NULL by a table ($how): rank 0's NULL rows are the table's: $got"
  else
    echo "FAIL p=3, NULL by a table ($how): rank 0's NULL rows '$got', want '$want'"; fail=1
  fi
done
exit $fail
