#!/usr/bin/env bash
# scripts/bench-launches and its summary (scripts/bench-launches.awk): on
# made-up launches whose answer is known, the percentiles, the count below
# the threshold and the correlations come out as worked by hand; a file
# that is not kcal bench's CSV, or a size without its mpi row, is one line
# on stderr naming the file, a non-zero exit and nothing on stdout; bad N
# or THRESHOLD is refused before anything runs; and a real two-launch run
# of kcal bench gives one summary row per size.
set -u
cd "$(dirname "$0")/.." || exit 1
. common/mpi_flavor.sh
export ASAN_OPTIONS=detect_leaks=0
KCAL_RELEASE=${KCAL_RELEASE:-./kcal}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
H="collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed,p25_s,p75_s,half1_s,half2_s,p05_s"
row() { # SIZE ALG MEDIAN_US
  awk -v n="$1" -v a="$2" -v m="$3" 'BEGIN {
    printf "bcast,2,%d,%s,,%.9g,%.9g,%.9g,300,0,%.9g,%.9g,%.9g,%.9g,%.9g\n", n, a,
      m * 1e-6, m * 1e-6, m * 1e-6, m * 1e-6, m * 1e-6, m * 1e-6, m * 1e-6, m * 1e-6 }'
}

# Ten launches at 64K: libkcoll's best (direct_split) 4 µs in every one
# but the last (4.2), direct_read slower, limit = 4 + i/2 and the MPI
# library at limit + 1 µs, so speedup_i = (5 + i/2)/4 for i = 1..9:
# 1.375, 1.5, ..., 2.375, and (5 + 5)/4.2 = 2.381 for i = 10. Below 1.5:
# only launch 1. Nearest rank over ten (the speedups are already in
# order): p10 = the 1st (1.375), median = the 5th (1.875), p90 = the 9th
# (2.375). Speedup rises with limit (correlation near +1).
# 128K: speedup 2 in every launch (no spread: correlation n/a).
for i in $(seq 1 10); do
  best=4; [ "$i" -eq 10 ] && best=4.2
  lim=$(awk -v i="$i" 'BEGIN { print 4 + i / 2 }')
  { echo "$H"
    row 65536 mpi "$(awk -v l="$lim" 'BEGIN { print l + 1 }')"
    row 65536 direct_read 9
    row 65536 direct_split "$best"
    row 65536 auto 3 # auto never counts as libkcoll's best
    row 65536 limit "$lim"
    row 131072 mpi 20; row 131072 direct_split 10; row 131072 auto 10; row 131072 limit 12
  } >"$tmp/l$i.csv"
done
files=$(for i in $(seq 1 10); do echo "$tmp/l$i.csv"; done)
# shellcheck disable=SC2086
awk -v threshold=1.5 -f scripts/bench-launches.awk $files >"$tmp/sum" 2>"$tmp/err"
rc=$?
want64='^65536 +10 +1\.38 +1\.88 +2\.38 +1 \( *10%\) +7\.50 +4\.00 +6\.50 +\+(0\.9[0-9]|1\.00) +\+0\.[0-9]+$'
want128='^131072 +10 +2\.00 +2\.00 +2\.00 +0 \( *0%\) +20\.00 +10\.00 +12\.00 +n/a +n/a$'
if [ $rc -ne 0 ] || ! grep -Eq "$want64" "$tmp/sum" || ! grep -Eq "$want128" "$tmp/sum" ||
   ! grep -q 'below_1.5' "$tmp/sum"; then
  echo "FAIL: summary of ten made-up launches (exit $rc):"; cat "$tmp/sum" "$tmp/err"; fail=1
fi

# Errors: one line naming the file, non-zero exit, nothing on stdout.
bad_awk() { # NAME PATTERN FILES...
  local name=$1 pat=$2; shift 2
  awk -f scripts/bench-launches.awk "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 0 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
     ! grep -Eq "$pat" "$tmp/err"; then
    echo "FAIL: $name: exit $rc, stdout $(wc -c <"$tmp/out") bytes, stderr:"; cat "$tmp/err"; fail=1
  fi
}
echo "size,median" >"$tmp/other.csv"
bad_awk "not a kcal bench CSV" "other\\.csv:1: not a kcal bench CSV" "$tmp/l1.csv" "$tmp/other.csv"
{ echo "$H"; row 65536 direct_split 4; row 65536 limit 5; } >"$tmp/nompi.csv"
bad_awk "size without mpi" "nompi\\.csv: size 65536 lacks its mpi row" "$tmp/l1.csv" "$tmp/nompi.csv"
{ echo "$H"; row 65536 mpi 5; echo "bcast,2,65536,limit,,x"; } >"$tmp/junk.csv"
bad_awk "a row without a median" "junk\\.csv:3: not a row" "$tmp/junk.csv"

bad_env() { # NAME VAR=VALUE...
  local name=$1; shift
  env "$@" KCAL="$KCAL_RELEASE" scripts/bench-launches >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    echo "FAIL: bench-launches $name: exit $rc (want 2), stdout $(wc -c <"$tmp/out") bytes, stderr:"; cat "$tmp/err"; fail=1
  fi
}
bad_env "N=0" N=0
bad_env "N=abc" N=abc
bad_env "THRESHOLD=x" THRESHOLD=x

# A real run: two launches of kcal bench, two sizes, a summary row each.
mpi_require
if KCAL="$KCAL_RELEASE" N=2 COLL=gather P=2 SIZES=4K,8K ITER=5 WARMUP=1 KEEP="$tmp/keep" \
     scripts/bench-launches >"$tmp/real" 2>"$tmp/rerr"; then
  if ! grep -Eq '^4096 +2 ' "$tmp/real" || ! grep -Eq '^8192 +2 ' "$tmp/real" ||
     ! grep -q '^# gather, p = 2: 2 launches' "$tmp/real" ||
     [ ! -s "$tmp/keep/1.csv" ] || [ ! -s "$tmp/keep/2.csv" ] ||
     ! grep -q '2 of 2 launches' "$tmp/rerr"; then
    echo "FAIL: a real two-launch run:"; cat "$tmp/real" "$tmp/rerr"; fail=1
  fi
else
  echo "FAIL: a real two-launch run exited non-zero:"; cat "$tmp/real" "$tmp/rerr"; fail=1
fi
exit $fail
