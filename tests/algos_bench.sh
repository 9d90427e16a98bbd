#!/usr/bin/env bash
# kcal bench: option errors (exit 2, one line, nothing on stdout), a real
# checked run (CSV columns, one row per size and variant, the oversubscribed
# flag), the reductions' --type and --op checked at p = 2 and 3, the
# table, a result that differs from the MPI built-in (exit 1,
# nothing on stdout), the launcher override, and the MPI program run directly.
# Against the MPI library of $KCAL_MPI (common/mpi_flavor.sh; kcal bench
# reads it too): the table and --library name that library, and the other
# library's build, where there is one, is refused with one line.
set -u
KCAL=${KCAL:-./kcal}
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
export ASAN_OPTIONS=detect_leaks=0
mpi_require
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp # the failing runs below keep the launcher's output in a file
bad() { # expected exit, then args
  local want=$1; shift
  "$KCAL" bench "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne "$want" ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    echo "FAIL: kcal bench $* -> exit $rc (want $want), stdout $(wc -c <"$tmp/out") bytes, stderr:"; cat "$tmp/err"; fail=1
  fi
}
bad 2 --p 2
bad 2 --coll scatter
bad 2 --coll scan --p 2
bad 2 --coll scatter --p 0
bad 2 --coll scatter --p 2 --sizes 0
bad 2 --coll scatter --p 2 --sizes 1K:x
bad 2 --coll scatter --p 2 --algorithm nope
bad 2 --coll scatter --p 4 --algorithm throttled_read:4
bad 2 --coll allgather --p 4 --algorithm ring_neighbor:2
bad 2 --coll scatter --p 2 --format xml
bad 2 --coll scatter --p 2 --iterations 0
bad 2 --coll scatter --p 2 --bogus 1

cores=$(lscpu -p=core 2>/dev/null | grep -v '^#' | sort -u | wc -l)
p=3; over=0; [ "$p" -gt "$cores" ] && over=1

# A real checked run: mpi + parallel_read + sequential_write + throttled_read:2
# + parallel_read_flags, then auto (libkcoll's own choice, checked like the
# others) and limit (the copy limit).
if "$KCAL" bench --coll scatter --p $p --sizes 4K,65549 --iterations 3 --warmup 1 \
     --check --cold --format csv >"$tmp/csv" 2>"$tmp/err"; then
  header=$(head -n 1 "$tmp/csv")
  [ "$header" = "collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed,p25_s,p75_s,half1_s,half2_s,p05_s" ] ||
    { echo "FAIL: csv header: $header"; fail=1; }
  rows=$(tail -n +2 "$tmp/csv" | wc -l)
  [ "$rows" -eq 18 ] || { echo "FAIL: $rows rows, want 18 (2 sizes x (mpi, 6 algorithms, auto, limit))"; cat "$tmp/csv"; fail=1; }
  for size in 4096 65549; do
    for ref in auto limit; do
      [ "$(grep -c "^scatter,3,$size,$ref,," "$tmp/csv")" -eq 1 ] ||
        { echo "FAIL: want one $ref row at $size"; cat "$tmp/csv"; fail=1; }
    done
  done
  # The limit is a time (positive, finite), and auto and limit come last.
  awk -F, 'NR > 1 && $4 == "limit" && !($6 > 0 && $6 < 1) {bad=1} END {exit bad}' "$tmp/csv" ||
    { echo "FAIL: a limit is not a positive time below 1 s"; cat "$tmp/csv"; fail=1; }
  [ "$(awk -F, 'NR > 1 && $3 == 4096 {a = a $4 " "} END {print a}' "$tmp/csv")" = \
    "mpi parallel_read sequential_write throttled_read parallel_read_flags parallel_read_split copy_in_out auto limit " ] ||
    { echo "FAIL: row order at 4K"; cat "$tmp/csv"; fail=1; }
  grep -q '^scatter,3,65549,throttled_read,2,' "$tmp/csv" || { echo "FAIL: no throttled_read k=2 row"; fail=1; }
  grep -q '^scatter,3,4096,mpi,,' "$tmp/csv" || { echo "FAIL: no mpi row"; fail=1; }
  awk -F, -v o=$over 'NR > 1 && ($10 != o || $9 != 3 || !($7 <= $6 && $6 <= $8)) {bad=1} END {exit bad}' "$tmp/csv" ||
    { echo "FAIL: iterations/oversubscribed/min<=median<=max wrong"; cat "$tmp/csv"; fail=1; }
  # issue 9: min <= p25 <= median <= p75 <= max, both halves within min..max;
  # issue 8: min <= p05 <= p25
  awk -F, 'NR > 1 && !($7 <= $11 && $11 <= $6 && $6 <= $12 && $12 <= $8 &&
                       $7 <= $13 && $13 <= $8 && $7 <= $14 && $14 <= $8 &&
                       $7 <= $15 && $15 <= $11 && NF == 15) {bad=1}
           END {exit bad}' "$tmp/csv" ||
    { echo "FAIL: quartiles, 5th percentile or halves out of order"; cat "$tmp/csv"; fail=1; }
  grep -q 'kcal bench: \[scatter' "$tmp/err" || { echo "FAIL: no progress on stderr"; fail=1; }
else
  echo "FAIL: checked run failed:"; cat "$tmp/err"; fail=1
fi

# Reductions of every --type (bench/reduce_names.c), each case an op MPI
# defines on it, so that every op runs and each type meets a bitwise or
# logical op and min or max where MPI defines them: --check compares every
# algorithm's, auto's result with the MPI library's byte for byte, at p =
# 2 and 3 (3 oversubscribed here). The data keep every order of folding
# exact (bench/reduce_fill.h: no overflow, uint8 sums below 256, no
# rounding). Open MPI 4.1.4 and MPICH 4.0.2 folded in libkcoll's own order
# here: with sums that round (doubles up to 2^55) they still gave its bytes
# (Open MPI at p = 3-5, MPICH at 3 and 4; 2026-11-27), so these runs catch a wrong op, type or byte,
# and the exact data keep --check true where a library folds otherwise.
# Sizes: not a multiple of p elements, and one above the 256 KiB chunk.
red_cases=(
  "allreduce double prod" "reduce double min" "reduce_scatter_block double sum"
  "allreduce float sum" "reduce_scatter_block float max"
  "reduce int sum" "allreduce int land"
  "reduce_scatter_block unsigned band" "allreduce unsigned min"
  "allreduce long max" "reduce long prod"
  "reduce_scatter_block short lxor" "reduce short sum"
  "allreduce int64 bxor" "reduce_scatter_block int64 lor"
  "reduce uint64 bor" "allreduce uint64 prod"
  "allreduce uint8 sum" "reduce uint8 max" "reduce_scatter_block uint8 bxor"
  "reduce byte band" "allreduce byte bor"
  "allreduce 2int minloc" "reduce_scatter_block 2int maxloc"
  "reduce float_int maxloc" "allreduce float_int minloc"
)
for rp in 2 3; do
  for c in "${red_cases[@]}"; do
    set -- $c
    if "$KCAL" bench -q --coll "$1" --p $rp --type "$2" --op "$3" --sizes 4120,300K \
         --iterations 1 --warmup 0 --check --format csv >"$tmp/red" 2>"$tmp/err"; then
      # each size: mpi, at least one algorithm, auto and limit
      awk -F, -v c="$1" -v p=$rp 'NR > 1 { n[$3]++; if ($1 != c || $2 != p) bad = 1
                                            if ($4 == "mpi" || $4 == "auto" || $4 == "limit") r[$3 $4]++ }
        END { for (s in n) if (n[s] < 4 || r[s "mpi"] != 1 || r[s "auto"] != 1 || r[s "limit"] != 1) bad = 1
              if (length(n) != 2) bad = 1; exit bad }' "$tmp/red" ||
        { echo "FAIL: kcal bench --coll $1 --p $rp --type $2 --op $3: rows"; cat "$tmp/red"; fail=1; }
    else
      echo "FAIL: kcal bench --coll $1 --p $rp --type $2 --op $3 --check:"; cat "$tmp/err"; fail=1
    fi
  done
done
# The table names a reduction's type and op; without --type and --op it is
# the table it always was (doubles summed; a size that is not whole
# doubles, bytes OR'd) and says nothing of them.
if "$KCAL" bench -q --coll allreduce --p 2 --type int64 --op bxor --sizes 4K --iterations 1 --warmup 0 >"$tmp/tab" 2>"$tmp/err"; then
  grep -qx '# elements: int64 (8 bytes) under bxor; limit applies the same op (docs/bench.md)' "$tmp/tab" ||
    { echo "FAIL: the table does not name the type and op"; cat "$tmp/tab"; fail=1; }
else
  echo "FAIL: typed table run failed"; cat "$tmp/err"; fail=1
fi
if "$KCAL" bench -q --coll reduce --p 2 --sizes 4K,1001 --iterations 1 --warmup 0 --check >"$tmp/tab" 2>"$tmp/err"; then
  ! grep -q '^# elements' "$tmp/tab" && grep -q '^ *1001  limit ' "$tmp/tab" ||
    { echo "FAIL: the default reduction table"; cat "$tmp/tab"; fail=1; }
else
  echo "FAIL: default reduction run failed"; cat "$tmp/err"; fail=1
fi
# kcal-bench-mpi run directly makes the same checks (one line, exit 2).
"$mpi_launcher" -np 2 "$mpi_build/kcal-bench-mpi" --coll allreduce --type double --op bxor --sizes 1K >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || ! grep -q '^kcal-bench-mpi: --op bxor is not defined on --type double (MPI' "$tmp/err"; then
  echo "FAIL: kcal-bench-mpi --type double --op bxor: exit $rc (want 2)"; cat "$tmp/err"; fail=1
fi

# Table: says when it is oversubscribed and which library `mpi` is; -q
# keeps stderr quiet.
if "$KCAL" bench --coll allgather --p $p --sizes 4K --iterations 2 --warmup 0 -q >"$tmp/tab" 2>"$tmp/err"; then
  grep -q 'ring_neighbor' "$tmp/tab" || { echo "FAIL: table lacks ring_neighbor"; fail=1; }
  grep -q "^# MPI library: $mpi_title " "$tmp/tab" || { echo "FAIL: table does not name $mpi_title"; cat "$tmp/tab"; fail=1; }
  grep -q '^ *4K  auto ' "$tmp/tab" && grep -q '^ *4K  limit .* 1.00$' "$tmp/tab" ||
    { echo "FAIL: table lacks auto, or limit with x_limit 1.00"; cat "$tmp/tab"; fail=1; }
  if [ $over = 1 ]; then grep -q OVERSUBSCRIBED "$tmp/tab" || { echo "FAIL: table does not say oversubscribed"; fail=1; }; fi
  [ -s "$tmp/err" ] && { echo "FAIL: -q printed on stderr:"; cat "$tmp/err"; fail=1; }
else
  echo "FAIL: table run failed"; cat "$tmp/err"; fail=1
fi

# A wrong result fails loudly and prints nothing on stdout.
KCAL_BENCH_CORRUPT_FOR_TEST=1 "$KCAL" bench --coll scatter --p 2 --sizes 4K --iterations 2 --check \
  --mpirun "$mpi_launcher $mpi_x KCAL_BENCH_CORRUPT_FOR_TEST=1" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 1 ] || [ -s "$tmp/out" ] || ! grep -q 'CHECK FAILED' "$tmp/err"; then
  echo "FAIL: corrupted result: exit $rc, stdout $(wc -c <"$tmp/out") bytes"; cat "$tmp/err"; fail=1
fi

# An iteration's time is its span, first start to last end: with every
# rank but 0 starting 300 µs after the barrier, every collective takes at
# least that long, copy_in_out too, whose root does not wait for the
# others (the maximum of each process's own duration measured it in about
# 3 µs); limit is the copies alone, each process's own duration. The
# line is drawn at half the skew: rank 1 may leave the barrier before
# rank 0 does, and the span, from rank 0's start, then holds a little less
# than the 300 µs (CI: copy_in_out's median 299.91 µs).
KCAL_BENCH_SKEW_US_FOR_TEST=300 "$KCAL" bench --coll bcast --p 2 --sizes 8K --iterations 20 \
  --algorithm copy_in_out --format csv -q \
  --mpirun "$mpi_launcher $mpi_x KCAL_BENCH_SKEW_US_FOR_TEST=300" >"$tmp/skew" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: skewed run: exit $rc"; cat "$tmp/err"; fail=1
else
  awk -F, 'NR > 1 { n++; lim = $4 == "limit"; if (lim != ($6 < 150e-6)) { print "FAIL: skewed start: " $4 " median " $6 " s"; bad = 1 } }
    END { if (n != 4) { print "FAIL: skewed run: " n " rows, not mpi, copy_in_out, auto and limit"; bad = 1 }; exit bad }' "$tmp/skew" ||
    { cat "$tmp/skew"; fail=1; }
fi

# Where CMA is forbidden there is nothing to measure: exit 3.
KCOLL_SIMULATE_NO_CMA=1 "$KCAL" bench --coll bcast --p 2 --sizes 4K -q \
  --mpirun "$mpi_launcher $mpi_x KCOLL_SIMULATE_NO_CMA=1" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && [ ! -s "$tmp/out" ] || { echo "FAIL: CMA forbidden: exit $rc (want 3)"; cat "$tmp/err"; fail=1; }

# Launcher override: a launcher that fails is a run-time failure (exit 1).
KCAL_MPIRUN=false "$KCAL" bench --coll bcast --p 2 --sizes 4K -q >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] || { echo "FAIL: KCAL_MPIRUN=false: exit $rc"; fail=1; }

# --library: one line naming this flavor's library.
if "$KCAL" bench --library >"$tmp/out" 2>"$tmp/err"; then
  [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "^$mpi_title " "$tmp/out" ||
    { echo "FAIL: --library printed:"; cat "$tmp/out"; fail=1; }
else
  echo "FAIL: --library failed"; cat "$tmp/err"; fail=1
fi

# The other library's build under this one's launcher, or this one's
# build under the other library's launcher (P singletons): exit 1, one
# line that says what is wrong, nothing on stdout.
other=; other_launcher=
case $KCAL_MPI in
  openmpi) other=${BUILD}-mpich/kcal-bench-mpi; other_launcher=mpiexec.mpich ;;
  mpich) other=$BUILD/kcal-bench-mpi; other_launcher=mpirun.openmpi ;;
esac
if [ -x "$other" ]; then
  KCAL_BENCH_MPI=$other "$KCAL" bench --coll bcast --p 2 --sizes 4K -q >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ $rc -ne 1 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
     ! grep -q "this program runs with .*, not $mpi_title (--mpi $KCAL_MPI)" "$tmp/err"; then
    echo "FAIL: the other library's build: exit $rc (want 1), stderr:"; cat "$tmp/err"; fail=1
  fi
fi
if command -v "$other_launcher" >/dev/null; then
  # (Open MPI's launcher, as root, needs its permission whatever it runs.)
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    "$KCAL" bench --coll bcast --p 2 --sizes 4K -q --mpirun "$other_launcher" >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ $rc -ne 1 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
     ! grep -q "MPI_COMM_WORLD has 1 process, not 2" "$tmp/err"; then
    echo "FAIL: under $other_launcher: exit $rc (want 1), stderr:"; cat "$tmp/err"; fail=1
  fi
fi

# The MPI program runs directly under a launcher.
if "$mpi_launcher" -np 2 "$mpi_build/kcal-bench-mpi" --coll alltoall --sizes 1K --iterations 2 --quiet >"$tmp/out" 2>"$tmp/err"; then
  # mpi, pairwise, pairwise_flags, copy_in_out, auto, limit
  [ "$(grep -c '^alltoall,2,1024,' "$tmp/out")" -eq 6 ] || { echo "FAIL: direct run output:"; cat "$tmp/out"; fail=1; }
else
  echo "FAIL: direct run failed"; cat "$tmp/err"; fail=1
fi
[ $fail -eq 0 ] && echo "kcal bench: all checks passed"
exit $fail
