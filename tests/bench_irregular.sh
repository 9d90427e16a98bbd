#!/usr/bin/env bash
# scripts/bench-irregular's verdict (scripts/bench-irregular.awk after
# scripts/bench-noise.awk) on made-up rows whose answer is worked by hand:
# every target holds on good rows; V1 counts a shortfall within the two
# medians' own noise as a tie and one beyond it as a miss; V2 (scatterv
# below 1.3x from 64K), V3 (auto below 0.95x) and V4 (best over 1.25x
# limit from 1M) each fail alone and name their point; bad input is one
# line on stderr naming file:line, exit 2, nothing on stdout.
set -u
cd "$(dirname "$0")/.." || exit 1
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# DIST COLL SIZE ALG MEDIAN_US [HALF1_US HALF2_US]: one row, its halves
# the median's unless given.
row() {
  awk -v d="$1" -v c="$2" -v n="$3" -v a="$4" -v t="$5" -v h1="${6:-$5}" -v h2="${7:-$5}" 'BEGIN {
    s = t * 1e-6
    printf "%s,%s,2,%d,%s,,%.9g,%.9g,%.9g,100,0,%.9g,%.9g,%.9g,%.9g,%.9g\n", d, c, n, a, s, s, s, s, s, h1 * 1e-6, h2 * 1e-6, s }'
}
# One (collective, size): mpi, the best row, a slower row, auto, limit.
point() { # COLL SIZE MPI BEST AUTO LIMIT [BEST_HALF1 BEST_HALF2 MPI_HALF1 MPI_HALF2]
  row uniform "$1" "$2" mpi "$3" ${9:+"$9" "${10}"}
  row uniform "$1" "$2" pairwise "$4" ${7:+"$7" "$8"}
  row uniform "$1" "$2" copy_in_out "$(awk -v t="$4" 'BEGIN { print 2 * t }')"
  row uniform "$1" "$2" auto "$5"
  row uniform "$1" "$2" limit "$6"
}
verdict() { # NAME WANT_RC PATTERN FILE
  awk -f scripts/bench-noise.awk -f scripts/bench-irregular.awk "$4" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne "$2" ] || ! grep -Eq -- "$3" "$tmp/out"; then
    echo "FAIL: $1: exit $rc (want $2), no line /$3/:"; cat "$tmp/out" "$tmp/err"; fail=1
  else
    echo "ok   $1"
  fi
}
# Good: 4K best 10 against mpi 12 (1.2), auto 11; 1M scatterv 130 against
# 200 (1.54 >= 1.3), limit 120 (1.08).
{ point alltoallv 4096 12 10 11 9; point scatterv 1048576 200 130 131 120; } >"$tmp/good"
verdict "good rows: every target met" 0 '^bench-irregular: V1-V4 met' "$tmp/good"
# V1 at the copy limit: best 101 against mpi 100 (0.990), the best's halves
# 99 and 101 (d 0.0198), mpi's 99.5 and 100.5 (d 0.01): 1 - sqrt(d^2 + d^2)
# = 0.978 <= 0.990, a tie.
point alltoallv 1048576 100 101 101 100 99 101 99.5 100.5 >"$tmp/tie"
verdict "V1 within the medians' noise is a tie" 0 '^1M .* ok \(V1 tie within noise\)$' "$tmp/tie"
# The same without the halves' spread: a miss.
point alltoallv 1048576 100 101 101 100 >"$tmp/v1"
verdict "V1 beyond the noise is a miss" 1 '^1M .* MISS V1 \(best_x 0\.990 < 1\.0\)$' "$tmp/v1"
# Below 4K V1 does not judge.
point alltoallv 2048 10 11 10 9 >"$tmp/small"
verdict "V1 does not judge below 4K" 0 '^2K .* ok$' "$tmp/small"
# V2: scatterv at 64K 1.25x.
point scatterv 65536 25 20 20 18 >"$tmp/v2"
verdict "V2 fails at 1.25x" 1 'MISS V2 \(best_x 1\.250 < 1\.3\)' "$tmp/v2"
# V3: auto 1.1 against mpi 1.0 at 1K (0.909).
point gatherv 1024 1.0 0.9 1.1 0.5 >"$tmp/v3"
verdict "V3 fails at 0.909" 1 'MISS V3 \(auto_x 0\.909 < 0\.95\)' "$tmp/v3"
# V4: best 130 against limit 100 at 2M.
point allgatherv 2097152 200 130 131 100 >"$tmp/v4"
verdict "V4 fails at 1.30x limit" 1 'MISS V4 \(best 1\.300 x limit > 1\.25\)' "$tmp/v4"
# Bad input: a short row, a median that is not positive.
for bad in "uniform,alltoallv,2,4096,mpi|short" "$(row uniform alltoallv 4096 mpi 0)|zero"; do
  printf '%s\n' "${bad%|*}" >"$tmp/bad"
  awk -f scripts/bench-noise.awk -f scripts/bench-irregular.awk "$tmp/bad" >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "bad:1:" "$tmp/err"; then
    echo "FAIL: bad input (${bad##*|}): exit $rc:"; cat "$tmp/out" "$tmp/err"; fail=1
  else
    echo "ok   bad input (${bad##*|}): $(cat "$tmp/err")"
  fi
done
exit $fail
