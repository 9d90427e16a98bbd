#!/usr/bin/env bash
# kcal report on input that is not a kcal CSV at all: every rejected input
# gives exactly one line on stderr (no "params:" line before it), nothing
# on stdout, exit 2, no output directory — and quickly, in bounded memory,
# however large the input: /dev/zero, a stream without newlines, an
# endless stream of lines, a NUL byte, a directory.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
KCAL=$(realpath "${KCAL:-$root/kcal}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

pred=$tmp/pred.csv meas=$tmp/meas.csv
printf '%s\n' 'collective,p,size_bytes,algorithm,k,predicted_s,rank' \
  'scatter,2,16384,parallel_read,,10e-6,1' >"$pred"
printf '%s\n' 'collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed' \
  'scatter,2,16384,parallel_read,,8e-6,7e-6,9e-6,100,0' >"$meas"
params=(--params "$root/data/knl.params")

# Peak memory of the run in KiB when GNU time is there (else 0: not checked).
TIME=/usr/bin/time
[ -x $TIME ] || TIME=

# rejected WANT ARGS...: one stderr line containing WANT, exit 2, empty
# stdout, no --out directory, within 30 s and (ASan included) 600 MiB.
rejected() {
  local want=$1; shift
  rm -rf "$tmp/out"
  local start=$SECONDS
  if [ -n "$TIME" ]; then
    timeout 30 $TIME -o "$tmp/rss" -f '%M' "$KCAL" report --out "$tmp/out" \
      "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  else
    echo 0 >"$tmp/rss"
    timeout 30 "$KCAL" report --out "$tmp/out" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  fi
  local rc=$? secs=$((SECONDS - start)) rss
  rss=$(tail -n 1 "$tmp/rss")
  local lines; lines=$(grep -c '' "$tmp/stderr")
  if [ $rc -eq 2 ] && [ ! -s "$tmp/stdout" ] && [ "$lines" -eq 1 ] &&
     grep -qF -- "$want" "$tmp/stderr" && [ ! -e "$tmp/out" ] &&
     [ "$rss" -lt $((600 * 1024)) ]; then
    ok
  else
    no "kcal report $* -> rc=$rc ${secs}s ${rss}KiB, stdout $(wc -c <"$tmp/stdout")B, $lines stderr lines (want 1 with '$want'): $(head -c 600 "$tmp/stderr")"
  fi
}

# Not a CSV of kcal at all.
rejected "$tmp/nope.csv: No such file" --measured "$tmp/nope.csv" --predicted "$pred" "${params[@]}"
rejected "$tmp/nope.csv: No such file" --measured "$meas" --predicted "$tmp/nope.csv" "${params[@]}"
rejected "$tmp: Is a directory" --measured "$tmp" --predicted "$pred" "${params[@]}"
printf 'a,b,c\n1,2,3\n' >"$tmp/other.csv"
rejected "$tmp/other.csv:1: header lacks column 'collective'" --measured "$tmp/other.csv" --predicted "$pred" "${params[@]}"
cp /dev/null "$tmp/empty.csv"
rejected "$tmp/empty.csv:1: empty file" --measured "$tmp/empty.csv" --predicted "$pred" "${params[@]}"

# A NUL byte: named with its line.
{ cat "$meas"; printf 'scatter,2,1024,parallel_read,,8e-6,7e-6,9e-6,100,0\0\n'; } >"$tmp/nul.csv"
rejected "$tmp/nul.csv:3: NUL byte" --measured "$tmp/nul.csv" --predicted "$pred" "${params[@]}"
rejected "/dev/zero:1: NUL byte" --measured /dev/zero --predicted "$pred" "${params[@]}"
rejected "/dev/zero:1: NUL byte" --measured "$meas" --predicted /dev/zero "${params[@]}"

# No newline for ever (a pipe, so there is no size to look at first): the
# first line is too long, whatever follows.
rejected ":1: line longer than 4096 bytes" --measured <(yes abcdefgh | tr -d '\n') --predicted "$pred" "${params[@]}"
head -c 5000000 /dev/zero | tr '\0' x >"$tmp/long.csv"
rejected "$tmp/long.csv:1: line longer than 4096 bytes" --measured "$tmp/long.csv" --predicted "$pred" "${params[@]}"
{ cat "$pred"; head -c 5000 /dev/zero | tr '\0' 7; echo; } >"$tmp/long2.csv"
rejected "$tmp/long2.csv:3: line longer than 4096 bytes" --measured "$meas" --predicted "$tmp/long2.csv" "${params[@]}"

# Lines for ever, or a file larger than any sweep: the size cap.
rejected ": larger than 64 MiB" --measured <(yes 'scatter,2,16384,parallel_read,,8e-6,7e-6,9e-6,100,0') --predicted "$pred" "${params[@]}"
{ cat "$pred"; yes 'scatter,2,16384,parallel_read,,10e-6,1' | head -c 70000000; } >"$tmp/big.csv"
rejected "$tmp/big.csv: larger than 64 MiB" --measured "$meas" --predicted "$tmp/big.csv" "${params[@]}"

# Headers only, nothing else: nothing to join (found by fuzzing: the join
# sorted a NULL array).
head -n 1 "$pred" >"$tmp/hpred.csv"
head -n 1 "$meas" >"$tmp/hmeas.csv"
rejected "nothing to compare" --measured "$tmp/hmeas.csv" --predicted "$tmp/hpred.csv" "${params[@]}"

# Bad params after good CSVs: still one line, the params error.
rejected "$tmp/nope.params" --measured "$meas" --predicted "$pred" --params "$tmp/nope.params"
# A CSV error and bad params: the CSV's line only.
rejected "$tmp/other.csv:1: header lacks column" --measured "$tmp/other.csv" --predicted "$pred" --params "$tmp/nope.params"

# The inputs themselves are fine: the report runs, params line included.
"$KCAL" report --measured "$meas" --predicted "$pred" "${params[@]}" --no-plots \
  --out "$tmp/good" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if [ $rc -eq 0 ] && grep -q '^kcal report: params: ' "$tmp/stderr" &&
   grep -q '^report: ' "$tmp/stdout"; then ok
else no "good input: rc=$rc $(cat "$tmp/stderr")"; fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
