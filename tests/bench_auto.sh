#!/usr/bin/env bash
# scripts/bench-auto's verdict (scripts/bench-auto.awk) on made-up rows
# whose answer is worked by hand: every target holds on good rows; each of
# A1 (auto below 0.95x mpi once; marked, not excused, where the two
# medians' own noise reaches 0.95), A2 (auto more than 1.10x the fastest in
# two launches of ten from 4K; one is allowed, and below 4K none counts),
# A5 (the loop 1.04x) and A6 (oversubscribed below 0.9x) fails alone and
# names its point; a mode without rows fails; bad input is one line on
# stderr naming file:line, exit 2, nothing on stdout; a bad N or ROUNDS
# is refused before anything runs.
set -u
cd "$(dirname "$0")/.." || exit 1
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
H="collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed,p25_s,p75_s,half1_s,half2_s,p05_s"
row() { # MODE LAUNCH P SIZE ALG MEDIAN_US
  awk -v m="$1" -v l="$2" -v p="$3" -v n="$4" -v a="$5" -v t="$6" 'BEGIN {
    s = t * 1e-6
    printf "%s,%s,bcast,%d,%d,%s,,%.9g,%.9g,%.9g,100,0,%.9g,%.9g,%.9g,%.9g,%.9g\n", m, l, p, n, a, s, s, s, s, s, s, s, s }'
}
loop_row() { # LAUNCH ALG US_PER_CALL
  awk -v l="$1" -v a="$2" -v t="$3" 'BEGIN { printf "loop,%s,bcast,2,16384,%s,,10000,%.9g,0\n", l, a, t * 1e-6 }'
}
# Good rows: at 1K auto 1.6 us against mpi 2 and the fastest 1.5 (1.07x:
# A2 does not judge 1K anyway); at 64K auto 5.2 against direct_split 5
# (1.04x) and mpi 10; the loop 5.1 against 5 (1.02x), direct_split's twin
# 4.9 (the control, 0.98, never the fastest: 5.1/4.9 would fail A5); oversubscribed auto
# 21 against mpi 20 (0.952 >= 0.9). Launch AUTO64_AT (one per line:
# "launch us") overrides auto at 64K, AUTO1_AT at 1K.
make_rows() { # FILE, then VAR=VALUE settings
  local f=$1; shift
  local auto64_at="" auto1_at="" loop_auto=5.1 loop_twin=4.9 over_auto=21 modes="plain hooked loop oversub"
  local kv; for kv in "$@"; do printf -v "${kv%%=*}" '%s' "${kv#*=}"; done
  : >"$f"
  for m in plain hooked; do
    [[ " $modes " == *" $m "* ]] || continue
    for l in $(seq 10); do
      a64=$(awk -v l="$l" -v d=5.2 'BEGIN { v = d } { if ($1 == l) v = $2 } END { print v }' <<<"$auto64_at")
      a1=$(awk -v l="$l" -v d=1.6 'BEGIN { v = d } { if ($1 == l) v = $2 } END { print v }' <<<"$auto1_at")
      { echo "$m,$l,$H"
        row $m "$l" 2 1024 mpi 2; row $m "$l" 2 1024 copy_in_out 1.5; row $m "$l" 2 1024 auto "$a1"; row $m "$l" 2 1024 limit 0.5
        row $m "$l" 2 65536 mpi 10; row $m "$l" 2 65536 direct_split 5; row $m "$l" 2 65536 direct_read 9
        row $m "$l" 2 65536 auto "$a64"; row $m "$l" 2 65536 limit 1; } >>"$f"
    done
  done
  if [[ " $modes " == *" loop "* ]]; then
    for l in $(seq 10); do
      { loop_row "$l" direct_split 5; loop_row "$l" mpi 9; loop_row "$l" auto "$loop_auto"
        loop_row "$l" "direct_split#2" "$loop_twin"; } >>"$f"
    done
  fi
  if [[ " $modes " == *" oversub "* ]]; then
    for p in 3 4; do { row oversub 1 $p 65536 mpi 20; row oversub 1 $p 65536 auto "$over_auto"; } >>"$f"; done
  fi
}
verdict() { # NAME, WANT_RC, PATTERN THAT MUST BE IN STDOUT, FILE
  awk -f scripts/bench-noise.awk -f scripts/bench-auto.awk "$4" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne "$2" ] || ! grep -Eq -- "$3" "$tmp/out"; then
    echo "FAIL: $1: exit $rc (want $2), no line /$3/:"; cat "$tmp/out" "$tmp/err"; fail=1
  else
    echo "ok   $1"
  fi
}
make_rows "$tmp/good"
verdict "good rows: every target holds" 0 '^ok   A6 ' "$tmp/good"
if grep -q '^FAIL' "$tmp/out" || [ "$(grep -c '^ok   A[1-6] ' "$tmp/out")" -ne 6 ]; then
  echo "FAIL: good rows: not six ok lines:"; cat "$tmp/out"; fail=1
fi
# The table: 64K, worst and median mpi/auto 10/5.2 = 1.92, best/auto
# 5/5.2 = 0.96, 10 of 10 launches held.
grep -Eq '^bcast +2 +65536 +1\.92 +1\.92 +0\.96 +0\.96 +10/10 +direct_split$' "$tmp/out" ||
  { echo "FAIL: good rows: no 64K table row as worked by hand:"; cat "$tmp/out"; fail=1; }
# The loop's control: 4.9/5 in each launch; 0.98 is within 1.03x.
grep -Eq '^bcast +16384 +1  1\.020 \(direct_split\)  0\.980 \(direct_split\)$' "$tmp/out" &&
  grep -q '^control: 10 loops, second/first 0\.980-0\.980, median 0\.980; 0 beyond 1\.03x either way$' "$tmp/out" ||
  { echo "FAIL: good rows: the loop's control not as worked by hand:"; cat "$tmp/out"; fail=1; }
make_rows "$tmp/ctl" loop_twin=5.25
verdict "a control beyond 1.03x is counted and judges nothing" 0 '^control: 10 loops, second/first 1\.050-1\.050, median 1\.050; 10 beyond' "$tmp/ctl"

# A1: auto 2.2 us at 1K in launch 7 (mpi 2: 0.909 < 0.95).
make_rows "$tmp/a1" auto1_at="7 2.2"
verdict "A1 fails on one launch at 1K" 1 '^FAIL A1 .* bcast p=2 1024: mpi/auto 0\.909;' "$tmp/a1"
grep -q '^FAIL A2' "$tmp/out" && { echo "FAIL: A2 judged 1K"; fail=1; }
grep -q '^A1: 0 of 1 launch misses within' "$tmp/out" ||
  { echo "FAIL: A1's miss with halves alike counted within noise:"; cat "$tmp/out"; fail=1; }
# The same miss, auto's halves 2.0 and 2.4 us apart (d = 0.4 / 2.2 =
# 0.18): 0.909 reaches 0.95 within the noise, still a miss.
awk -F, -v OFS=, '$1 == "plain" && $2 == 7 && $5 == 1024 && $6 == "auto" { $15 = "2e-06"; $16 = "2.4e-06" } 1' \
  "$tmp/a1" >"$tmp/a1n"
verdict "A1's miss within the medians' noise: marked, still failed" 1 '^A1: 1 of 1 launch misses within' "$tmp/a1n"
grep -q '^FAIL A1 .* bcast p=2 1024: mpi/auto 0\.909;' "$tmp/out" ||
  { echo "FAIL: a miss within noise was not judged a miss:"; cat "$tmp/out"; fail=1; }
# A2: 5.6 us (1.12x) in launches 3 and 8: 8 of 10 held.
make_rows "$tmp/a2" auto64_at="3 5.6
8 5.6"
verdict "A2 fails with two launches of ten out" 1 '^FAIL A2 .* bcast 65536: 8 of 10 launches within 1\.10x;' "$tmp/a2"
make_rows "$tmp/a2ok" auto64_at="3 5.6"
verdict "A2 allows one launch of ten" 0 '^ok   A2 ' "$tmp/a2ok"
# A5: the loop 5.2 against 5.
make_rows "$tmp/a5" loop_auto=5.2
verdict "A5 fails at 1.04x" 1 '^FAIL A5 .* bcast launch 1: 1\.040;' "$tmp/a5"
# A6: oversubscribed 22.5 against 20 (0.889).
make_rows "$tmp/a6" over_auto=22.5
verdict "A6 fails at 0.889x" 1 '^FAIL A6 .* bcast p=3 65536: mpi/auto 0\.889;' "$tmp/a6"
# A mode without rows.
make_rows "$tmp/nohook" modes="plain loop oversub"
verdict "no hooked rows fail A3" 1 '^FAIL A3 .*no rows' "$tmp/nohook"

# Bad input.
bad_input() { # NAME PATTERN LINE
  printf '%s\n' "$3" >"$tmp/bad"
  awk -f scripts/bench-noise.awk -f scripts/bench-auto.awk "$tmp/bad" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -Eq "$2" "$tmp/err"; then
    echo "FAIL: $1: exit $rc, stdout $(wc -c <"$tmp/out") bytes, stderr:"; cat "$tmp/err"; fail=1
  else
    echo "ok   $1"
  fi
}
bad_input "an unknown mode" "bad:1: unknown mode 'fast'" "fast,1,bcast,2,1024,mpi,,1e-6"
bad_input "a launch that is not a number" "bad:1: launch 'x' is not a number" "plain,x,bcast,2,1024,mpi,,1e-6"
bad_input "a time that is not a number" "bad:1: time 'oops' is not a positive number" "plain,1,bcast,2,1024,mpi,,oops"
# Bad N or ROUNDS: refused before any build or launch.
for bad in "N=ten|N, ITER, LOOP and ROUNDS are whole numbers" \
           "ROUNDS=0|ROUNDS must be 1 to LOOP (10000)" \
           "ROUNDS=20001|ROUNDS must be 1 to LOOP (10000)"; do
  if env "${bad%%|*}" scripts/bench-auto >"$tmp/out" 2>"$tmp/err" || [ -s "$tmp/out" ] ||
     ! grep -qF "${bad#*|}" "$tmp/err"; then
    echo "FAIL: ${bad%%|*}:"; cat "$tmp/out" "$tmp/err"; fail=1
  else
    echo "ok   ${bad%%|*} is refused: $(cat "$tmp/err")"
  fi
done
exit $fail
