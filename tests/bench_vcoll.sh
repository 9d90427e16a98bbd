#!/usr/bin/env bash
# kcal bench --coll scatterv|gatherv|allgatherv|alltoallv --counts D: the
# v-collectives measured through kcal-vcoll-bench (bench/vcoll_bench.c).
# Option errors (exit 2, one line, nothing on stdout); for each of the four
# at p = 2 and at p = 3 (oversubscribed on 2 cores) a run whose CSV is
# kcal-bench-mpi's: its header, the collective column naming the
# distribution as kcal predict --counts does, one row per size for mpi, every id of
# algos/irregular.def for the collective, auto and limit, in that order,
# the fixed --iterations, the oversubscribed flag, ordered quantiles (the
# program checks every row's result in its first warm-up round: a wrong
# result is exit 1 and no CSV); --algorithm keeping only the ids it names;
# a count matrix from a file; the table naming the distribution; the
# program under a launch of the wrong size refusing with one line.
# Against the MPI library of $KCAL_MPI (common/mpi_flavor.sh).
set -u
KCAL=${KCAL:-./kcal}
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
export ASAN_OPTIONS=detect_leaks=0
mpi_require
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp # the failing runs keep the launcher's output in a file
def=$(dirname "$0")/../algos/irregular.def
bad() { # expected exit, then args
  local want=$1; shift
  "$KCAL" bench "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne "$want" ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    echo "FAIL: kcal bench $* -> exit $rc (want $want), stdout $(wc -c <"$tmp/out") bytes, stderr:"; cat "$tmp/err"; fail=1
  else
    echo "ok   kcal bench $* -> $want: $(cat "$tmp/err")"
  fi
}
printf '1 2\n3 4 5\n' >"$tmp/bad.txt"
bad 2 --coll bcast --p 2 --counts skew:4
bad 2 --coll alltoallv --p 2 --counts bogus
bad 2 --coll alltoallv --p 2 --counts file:"$tmp/bad.txt"
bad 2 --coll alltoallv --p 2 --counts file:"$tmp/none.txt"
bad 2 --coll alltoallv --p 2 --algorithm nope
bad 2 --coll scatterv --p 2 --algorithm parallel_read,pairwise
bad 2 --coll gatherv --p 3 --algorithm parallel_write:1
bad 2 --coll scatterv --p 3 --algorithm throttled_read:3
bad 2 --coll scatterv --p 3 --algorithm throttled_read:0
bad 2 --coll gatherv --p 2 --type int
bad 2 --coll gatherv --p 2 --cold
bad 2 --coll allgatherv
bad 2 --coll allgathervv --p 2
# more buffers than this machine has: 4 blocks of 1 TiB
bad 2 --coll alltoallv --p 2 --sizes 1099511627776

# The rows one size should have, in order: mpi, the .def's ids, auto, limit.
want_rows() {
  echo "mpi $(sed -n "s/^KCOLL_VALGORITHM(${1^^}, *\([a-z_]*\),.*/\1/p" "$def" | paste -sd' ') auto limit"
}

cores=$(lscpu -p=core 2>/dev/null | grep -v '^#' | sort -u | wc -l)
header="collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed,p25_s,p75_s,half1_s,half2_s,p05_s"
for p in 2 3; do
  over=0; [ "$p" -gt "$cores" ] && over=1
  for c in scatterv gatherv allgatherv alltoallv; do
    d=skew:4; [ $c = alltoallv ] && [ $p = 3 ] && d=sparse
    if ! "$KCAL" bench --coll $c --p $p --counts $d --sizes 1K,65541 --iterations 3 \
         --warmup 1 --format csv -q >"$tmp/csv" 2>"$tmp/err"; then
      echo "FAIL: kcal bench --coll $c --p $p --counts $d:"; cat "$tmp/err"; fail=1; continue
    fi
    ok=1
    lab=$c-${d//:/-} # the collective column: common/vcounts.h's label
    [ "$(head -n 1 "$tmp/csv")" = "$header" ] || { echo "FAIL: $c p=$p: header $(head -n 1 "$tmp/csv")"; ok=0; }
    want=$(want_rows $c)
    for size in 1024 65541; do
      got=$(awk -F, -v s=$size -v c=$lab -v p=$p 'NR > 1 && $1 == c && $2 == p && $3 == s {a = a (a ? " " : "") $4} END {print a}' "$tmp/csv")
      [ "$got" = "$want" ] || { echo "FAIL: $c p=$p size $size: rows '$got', want '$want'"; ok=0; }
    done
    [ "$(tail -n +2 "$tmp/csv" | wc -l)" -eq $((2 * $(wc -w <<<"$want"))) ] || { echo "FAIL: $c p=$p: extra rows"; ok=0; }
    awk -F, -v o=$over 'NR > 1 && !(NF == 15 && $5 == "" && $9 == 3 && $10 == o &&
         $6 > 0 && $7 <= $11 && $11 <= $6 && $6 <= $12 && $12 <= $8 &&
         $7 <= $15 && $15 <= $11) {bad = 1} END {exit bad}' "$tmp/csv" ||
      { echo "FAIL: $c p=$p: k, iterations, oversubscribed or quantiles wrong"; ok=0; }
    if [ $ok = 1 ]; then echo "ok   kcal bench --coll $c --p $p --counts $d: rows $want"; else cat "$tmp/csv"; fail=1; fi
  done
done

# --algorithm keeps only the ids it names (mpi, auto and limit always).
if "$KCAL" bench --coll scatterv --p 2 --counts random:3 --sizes 4K --iterations 2 --warmup 1 \
     --algorithm sequential_write --format csv -q >"$tmp/csv" 2>"$tmp/err"; then
  got=$(tail -n +2 "$tmp/csv" | cut -d, -f4 | paste -sd' ')
  [ "$got" = "mpi sequential_write auto limit" ] && echo "ok   --algorithm sequential_write: $got" ||
    { echo "FAIL: --algorithm sequential_write: rows '$got'"; fail=1; }
else
  echo "FAIL: --algorithm sequential_write:"; cat "$tmp/err"; fail=1
fi

# A windowed row named with its windows: a row per window, w in the k
# column (the rooted protocol with at most w copies at once).
if "$KCAL" bench --coll gatherv --p 3 --counts skew:4 --sizes 65541 --iterations 2 --warmup 1 \
     --algorithm throttled_write:1,throttled_write:2 --format csv -q >"$tmp/csv" 2>"$tmp/err"; then
  got=$(tail -n +2 "$tmp/csv" | cut -d, -f4,5 | paste -sd' ')
  want="mpi, throttled_write,1 throttled_write,2 auto, limit,"
  [ "$got" = "$want" ] && echo "ok   --algorithm throttled_write:1,throttled_write:2: $got" ||
    { echo "FAIL: --algorithm throttled_write:1,2: rows '$got', want '$want'"; fail=1; }
else
  echo "FAIL: --algorithm throttled_write:1,2:"; cat "$tmp/err"; fail=1
fi

# A matrix from a file (p = 2: rank 0 sends itself 0 bytes and rank 1
# 100000; rank 1 sends 7 and 3), and the table naming it; uniform counts
# are the bare name in the CSV.
printf '0 100000\n7 3\n' >"$tmp/m.txt"
if "$KCAL" bench --coll alltoallv --p 2 --counts file:"$tmp/m.txt" --sizes 4K --iterations 2 \
     --warmup 1 >"$tmp/table" 2>"$tmp/err"; then
  grep -q "^# counts: file:$tmp/m.txt" "$tmp/table" && grep -q '^      4K  pairwise ' "$tmp/table" &&
    grep -q '^      4K  limit ' "$tmp/table" && echo "ok   --counts file: table names it" ||
    { echo "FAIL: --counts file: table:"; cat "$tmp/table"; fail=1; }
else
  echo "FAIL: --counts file:"; cat "$tmp/err"; fail=1
fi
"$KCAL" bench --coll allgatherv --p 2 --sizes 4K --iterations 2 --warmup 1 --format csv -q >"$tmp/csv" 2>"$tmp/err" &&
  [ "$(tail -n +2 "$tmp/csv" | cut -d, -f1 | sort -u)" = allgatherv ] && echo "ok   uniform: collective column allgatherv" ||
  { echo "FAIL: uniform allgatherv:"; cat "$tmp/csv" "$tmp/err"; fail=1; }

# The program itself, launched as 2 processes but told to expect 3 (what
# a launcher of another library does: singletons): one line, exit 2.
"${mpi_run[@]}" -np 2 "$mpi_build/kcal-vcoll-bench" --coll alltoallv --counts uniform \
  --sizes 1K --expect-p 3 >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q 'kcal-vcoll-bench: MPI_COMM_WORLD has 2 processes, not 3' "$tmp/err"; then
  echo "ok   kcal-vcoll-bench --expect-p 3 under -np 2 -> 2"
else
  echo "FAIL: kcal-vcoll-bench --expect-p 3 under -np 2 -> exit $rc:"; cat "$tmp/out" "$tmp/err"; fail=1
fi
exit $fail
