#!/usr/bin/env bash
# kcal tune: bad options are one line on stderr, exit 2, nothing on stdout
# (a FIFO or a directory as --params too);
# a small real run (p = 2, two sizes, two collectives, few iterations)
# prints a table libkcoll reads and then follows for every call it leaves
# to libkcoll (tests/algos_check --mode tabled: each call decided by the
# table, results byte for byte the MPI built-in's); --exhaustive also says
# how many measurements each table needed and the guided table's regret;
# a run that fails prints nothing on stdout; an oversubscribed run says so
# in the table and on stderr; params whose pass_spread is large widen the
# window S, so a candidate ranked 4th but within S of the best is measured,
# and the header says which S.
set -u
KCAL=${KCAL:-./kcal}
BUILD=${BUILD:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp

bad() { # want-in-line, then the arguments
  local want=$1; shift
  timeout 60 "$KCAL" tune "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
     ! grep -qF -- "kcal tune: $want" "$tmp/err"; then
    echo "FAIL: kcal tune $* -> exit $rc (want 2), stdout $(wc -c <"$tmp/out") bytes, stderr (want one line with '$want'):"
    cat "$tmp/err"; fail=1
  fi
}
bad "--p is required" --colls bcast
bad "--p: '1' is not a process count >= 2" --p 1
bad "--p: 'x' is not a process count >= 2" --p x
bad "--colls: 'scan' is not a collective" --p 2 --colls bcast,scan
bad "--colls: bcast is listed twice" --p 2 --colls bcast,scatter,bcast
bad "--colls: '' is not a collective" --p 2 --colls bcast,
bad "--sizes: " --p 2 --sizes 0
bad "--sizes: " --p 2 --sizes 4K:1K
bad "--candidates: '0' is not a count >= 1" --p 2 --candidates 0
bad "--iters: '0' is not a count >= 1" --p 2 --iters 0
bad "--warmup: '-1' is not a count >= 0" --p 2 --warmup -1
bad "--timeout: 'soon' is not a number of seconds >= 0" --p 2 --timeout soon
bad "--mpirun needs a command" --p 2 --mpirun ""
bad "unexpected argument 'extra'" --p 2 extra
bad "unknown option '--bogus'" --p 2 --bogus
bad "/nonexistent.params: cannot open" --p 2 --params /nonexistent.params
# A FIFO used to block kcal tune before the launch, for ever and silently.
mkfifo "$tmp/fifo" && mkdir "$tmp/dir"
bad "$tmp/fifo: is a FIFO (named pipe), not a regular file" --p 2 --params "$tmp/fifo"
bad "$tmp/dir: is a directory" --p 2 --params "$tmp/dir"
bad "--p 100000: at most" --p 100000
bad "--counts: 'bogus': not uniform" --p 2 --colls alltoallv --counts bogus
bad "--counts: uniform is listed twice" --p 2 --colls alltoallv --counts uniform,skew:4,uniform
bad "--counts: empty" --p 2 --colls gatherv --counts uniform,
bad "--counts: /nonexistent: cannot open" --p 2 --colls scatterv --counts file:/nonexistent
bad "--counts is for the v-collectives" --p 2 --colls bcast --counts uniform
bad "--colls: alltoallv is listed twice" --p 2 --colls alltoallv,bcast,alltoallv
bad "--sizes: 16T needs" --p 2 --sizes 16T
# The v-collectives' buffers, as kcal bench checks them (p x p blocks).
bad "--sizes: 1T with --counts uniform needs" --p 2 --colls alltoallv --sizes 1K,1T
bad "--sizes: 1T with --counts skew:16 needs" --p 2 --colls gatherv --counts skew:16 --sizes 1T
"$KCAL" tune --help >"$tmp/out" 2>&1 && grep -q -- '--exhaustive' "$tmp/out" ||
  { echo "FAIL: kcal tune --help"; fail=1; }
"$KCAL" --help | grep -q '^  tune ' || { echo "FAIL: kcal --help does not list tune"; fail=1; }
# kcal alone names every command --help lists (profile was left out once).
usage_line=$("$KCAL" 2>&1)
for c in $("$KCAL" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}'); do
  [[ $usage_line == *"$c"[,\ \;]* ]] || { echo "FAIL: kcal's usage line does not name $c: $usage_line"; fail=1; }
done
[[ $usage_line == *tune* ]] || { echo "FAIL: kcal's usage line does not name tune"; fail=1; }

# The MPI library of $KCAL_MPI (common/mpi_flavor.sh; kcal tune reads it).
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
check=$mpi_build/tests/algos_check
vcheck=$mpi_build/tests/vcoll_check
for prog in "$check" "$vcheck"; do
  [ -x "$prog" ] || { echo "tune_cli: $prog not built (make test builds it)"; exit 1; }
done
mpi=("${mpi_run[@]}")

# A run that fails (CMA forbidden, simulated) prints nothing on stdout.
KCOLL_SIMULATE_NO_CMA=1 "$KCAL" tune -q --p 2 --colls bcast --sizes 4K --iters 2 \
  --mpirun "$mpi_launcher $mpi_x KCOLL_SIMULATE_NO_CMA=1" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -ne 3 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
  echo "FAIL: tune where CMA is forbidden: exit $rc (want 3), stdout $(wc -c <"$tmp/out") bytes, stderr:"
  cat "$tmp/err"; fail=1
fi

# The model-guided run: a table the reader takes, for these collectives
# and p only, with both sizes' ranges (from 0, the last open).
start=$SECONDS
"$KCAL" tune --p 2 --colls scatter,allgather,allreduce --sizes 64K,4K --iters 5 --warmup 2 \
  >"$tmp/guided.table" 2>"$tmp/err"; rc=$?
echo "guided run: exit $rc in $((SECONDS - start)) s"
head -n 1 "$tmp/guided.table"
if [ $rc -ne 0 ] || ! head -n 1 "$tmp/guided.table" | grep -q '^kcoll-table 1 kcal tune on .*p = 2, not oversubscribed, the paper model.s 3 best and those within S of its best (S = 1.25, the default without pass_spread) and mpi, median of 5 iterations'; then
  echo "FAIL: guided run: exit $rc, table:"; cat "$tmp/guided.table" "$tmp/err"; fail=1
fi
rules=$(grep -v '^#' "$tmp/guided.table" | tail -n +2)
if [ -z "$rules" ] || echo "$rules" | awk '$1 != "scatter" && $1 != "allgather" && $1 != "allreduce" || $2 != "2" { bad = 1 } END { exit !bad }'; then
  echo "FAIL: rules for other collectives or p:"; echo "$rules"; fail=1
fi
for c in scatter allgather allreduce; do
  first=$(echo "$rules" | awk -v c=$c '$1 == c { print $3; exit }')
  last=$(echo "$rules" | awk -v c=$c '$1 == c { s = $3 } END { print s }')
  case $first in '*'|0..*) ;; *) echo "FAIL: $c's first rule starts at '$first', want 0"; fail=1 ;; esac
  case $last in '*'|*..) ;; *) echo "FAIL: $c's last rule ends at '$last', want no end"; fail=1 ;; esac
done
grep -q 'measurements (the model.s best and mpi)' "$tmp/err" || { echo "FAIL: no plan on stderr"; cat "$tmp/err"; fail=1; }
if grep -q 'regret' "$tmp/err"; then echo "FAIL: a guided run speaks of regret"; fail=1; fi

# The v-collectives: every row and mpi under each --counts distribution
# (the default's two), one crossover and one row each (kcal_table_vchoice
# follows nothing else): "* mpi", or "0..X mpi" then "X+1.. row", or
# "* row"; the staged row (copy_in_out) may take a range of at most
# 4 KiB between them, from 0 or right after the mpi rule; the scores and
# the choice on stderr.
start=$SECONDS
"$KCAL" tune --p 2 --colls alltoallv,bcast,gatherv --sizes 1K,64K --iters 5 --warmup 1 \
  >"$tmp/v.table" 2>"$tmp/err"; rc=$?
echo "v-collectives run: exit $rc in $((SECONDS - start)) s"
grep -E '^(alltoallv|gatherv) ' "$tmp/v.table"
vshape=$(awk 'function bytes(s) { return s ~ /K$/ ? s * 1024 : s + 0 }
  $1 == "alltoallv" || $1 == "gatherv" {
    n[$1]++; r[$1, n[$1]] = $2 " " $3 " " $4 }
  END {
    for (c in n) {
      split(r[c, 1], a, " "); split(r[c, 2], b, " "); split(r[c, 3], s, " ")
      if (a[1] != 2) { print c ": p " a[1]; continue }
      if (n[c] == 1 && a[2] == "*") continue
      split(a[2], ar, "[.][.]"); split(b[2], br, "[.][.]")
      staged = b[3] == "copy_in_out" && n[c] == 3 &&
               a[3] == "mpi" && bytes(br[1]) == bytes(ar[2]) + 1 &&
               bytes(br[2]) <= 4096 && s[2] ~ /[.][.]$/ && s[3] != "mpi"
      from0 = a[3] == "copy_in_out" && n[c] == 2 &&
              a[2] ~ /^0[.][.]/ && bytes(ar[2]) <= 4096
      if (n[c] == 2 && (a[3] == "mpi" || from0) && b[3] != "mpi" &&
          a[2] ~ /^0[.][.][0-9]+K?$/ && b[2] ~ /[.][.]$/) continue
      if (staged) continue
      print c ": " n[c] " rules, " r[c, 1] "; " r[c, 2] "; " r[c, 3]
    }
    if (!n["alltoallv"] || !n["gatherv"]) print "missing"
  }' "$tmp/v.table")
if [ $rc -ne 0 ] || [ -n "$vshape" ] || ! grep -q '^bcast ' "$tmp/v.table" ||
   ! head -n 1 "$tmp/v.table" | grep -qF '; v-collectives: every row and mpi under uniform, skew:16, median of 5' ||
   ! grep -q '^kcal tune: p = 2, 2 v-collectives x 2 sizes x 2 distributions (uniform, skew:16): 36 measurements (every row and mpi: the model.s window does not apply) in 4 runs$' "$tmp/err" ||
   ! grep -Eq '^kcal tune:   64K +[0-9]+[.][0-9]{2} +[0-9]+[.][0-9]{2} +[0-9]' "$tmp/err" ||
   ! grep -Eq '^kcal tune: gatherv: ((mpi|[a-z_]+) at every size|(mpi below 1K, copy_in_out from 1K to 4K, |copy_in_out up to 4K, )?[a-z_]+ from there|mpi below 64K, [a-z_]+ from there)$' "$tmp/err"; then
  echo "FAIL: v-collectives run: exit $rc, shape '$vshape':"; cat "$tmp/v.table" "$tmp/err"; fail=1
fi

# The window (docs/tune.md): on the KNL params the paper model ranks
# scatter's copy_in_out 4th at p = 2 and 1M, 1.39 times its best. Without
# pass_spread (S = 1.25) the run measures the 3 best and mpi; with a
# pass_spread of 3 (S capped at 2) copy_in_out too, and the header says so.
root=$(cd "$(dirname "$0")/.." && pwd)
{ cat "$root/data/knl.params"; echo "pass_spread 3"; } >"$tmp/spread.params"
for params in "$root/data/knl.params" "$tmp/spread.params"; do
  "$KCAL" tune -v --p 2 --params "$params" --colls scatter --sizes 1M --iters 2 --warmup 1 \
    >"$tmp/window.table" 2>"$tmp/err"; rc=$?
  if [ "$params" = "$tmp/spread.params" ]; then
    want=5 s='S = 2.00 from pass_spread 3, capped'
  else
    want=4 s='S = 1.25, the default without pass_spread'
  fi
  if [ $rc -ne 0 ] || ! grep -q "^kcal tune: p = 2, 1 collective x 1 sizes: $want measurements (the model's best and mpi) in 1 runs; $s\$" "$tmp/err" ||
     ! head -n 1 "$tmp/window.table" | grep -qF "within S of its best ($s) and mpi"; then
    echo "FAIL: window with $params: exit $rc, want $want measurements and '$s':"
    cat "$tmp/window.table" "$tmp/err"; fail=1
  fi
  if [ $want = 5 ] && ! grep -q -- '--algorithm [a-z_,]*copy_in_out' "$tmp/err"; then
    echo "FAIL: copy_in_out, within S of the best, was not measured:"; cat "$tmp/err"; fail=1
  fi
done

# The exhaustive run of the five data collectives (the counts below are
# theirs): its table is followed by every NULL call (each decided by it),
# and stderr has the counts and the regret.
start=$SECONDS
"$KCAL" tune -q --p 2 --machine knl --colls scatter,gather,bcast,allgather,alltoall --sizes 4K,64K --iters 5 --warmup 2 --exhaustive \
  >"$tmp/all.table" 2>"$tmp/err"; rc=$?
echo "exhaustive run: exit $rc in $((SECONDS - start)) s"
cat "$tmp/err"
line=$(grep '^kcal tune: measurements: exhaustive ' "$tmp/err")
ex=$(echo "$line" | sed -n 's/.*exhaustive \([0-9]*\), model-guided (3 candidates within S = 1.25 + mpi) \([0-9]*\) = .*/\1/p')
gu=$(echo "$line" | sed -n 's/.*exhaustive \([0-9]*\), model-guided (3 candidates within S = 1.25 + mpi) \([0-9]*\) = .*/\2/p')
# At p = 2 the bench runs 5 + 5 + 5 + 7 + 3 candidates and mpi per size;
# the guided table needs 3 (2 for alltoall) and mpi, more where the
# model's times tie (docs/tune.md), at most all.
if [ $rc -ne 0 ] || [ "$ex" != 60 ] || [ -z "$gu" ] || [ "$gu" -lt 40 ] || [ "$gu" -gt 60 ]; then
  echo "FAIL: exhaustive run: exit $rc, measurements '$ex' (want 60) and '$gu' (want 40..60)"; fail=1
fi
if ! grep -Eq '^kcal tune: regret of the model-guided table against the exhaustive one over 10 points: mean [0-9]+\.[0-9]+ %, max [0-9]+\.[0-9]+ %$' "$tmp/err"; then
  echo "FAIL: no regret line"; fail=1
fi
two=$(sed -n 's/^kcal tune: with 2 candidates + mpi: \([0-9]*\) measurements = .*/\1/p' "$tmp/err")
if [ -z "$two" ] || [ "$two" -lt 30 ] || [ "$two" -gt "${gu:-0}" ]; then
  echo "FAIL: the line for 2 candidates: '$two' measurements (want 30..$gu)"; fail=1
fi
run() { # name, then the command
  local name=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err2" && ! grep -q 'kcoll: warning' "$tmp/err2"; then
    echo "ok   $name: $(tail -n 1 "$tmp/out")"
  else
    echo "FAIL $name"; tail -n 20 "$tmp/out" "$tmp/err2"; fail=1
  fi
}
run "KCOLL_TABLE=kcal tune's table" timeout 120 "${mpi[@]}" -np 2 "$mpi_x" KCOLL_VERIFY=0 "$mpi_x" KCOLL_TABLE="$tmp/all.table" "$check" --mode tabled
# libkcoll follows the v-collectives' rules kcal tune wrote: vcoll_check
# (every case's NULL call right) under that table, and rank 0's NULL rows
# of alltoallv are the table's: "mpi" for "* mpi", "pairwise+msg<X+1"
# for "0..X mpi" (pairs below X + 1 as messages), the row alone for
# "* row", and "+staged<=Y" in between for a staged rule "..Y
# copy_in_out" (tests/algos_vcoll.sh checks a hand-written table).
run "KCOLL_TABLE=kcal tune's v-collective table" timeout 300 "${mpi[@]}" -np 2 "$mpi_x" KCOLL_TABLE="$tmp/v.table" \
  "$mpi_x" KCOLL_STATS=1 "$vcheck"
want=$(awk 'function bytes(s) { return s ~ /K$/ ? s * 1024 : s + 0 }
  $1 == "alltoallv" { n++; r[n] = $3 " " $4 }
  END { split(r[1], a, " "); split(r[n], last, " ")
        if (n == 1) { print (a[2] == "mpi" ? "mpi" : a[2]); exit }
        split(a[1], x, "[.][.]"); staged = ""; msg = ""
        if (a[2] == "mpi") msg = "+msg<" bytes(x[2]) + 1
        for (i = 1; i < n; i++) {
          split(r[i], b, " "); split(b[1], y, "[.][.]")
          if (b[2] == "copy_in_out") staged = "+staged<=" bytes(y[2])
        }
        print last[2] staged msg }' "$tmp/v.table")
got=$(awk '$1 == "alltoallv" && ($2 ~ /[+](msg<|staged<=)/ || $2 == "mpi" || $2 == "pairwise" || $2 == "copy_in_out") { print $2 }' "$tmp/out" "$tmp/err2" | sort -u | xargs)
# The crossover rows NULL made: exactly the table's (none without one).
msg=$(echo "$got" | tr ' ' '\n' | grep 'msg<' | xargs)
case $want in *msg\<*) want_msg=$want ;; *) want_msg= ;; esac
if [ "$msg" = "$want_msg" ] && [[ " $got " == *" $want "* ]]; then
  echo "ok   alltoallv's NULL calls followed the tuned table: $want"
else
  echo "FAIL: alltoallv's rows '$got', want '$want' from: $(grep '^alltoallv' "$tmp/v.table" | xargs)"; fail=1
fi
# The same program without the table fails its count: the test can fail.
if timeout 120 "${mpi[@]}" -np 2 "$check" --mode tabled >"$tmp/out" 2>&1; then
  echo "FAIL: --mode tabled passed without a table"; fail=1
fi

# Oversubscribed: said in the table's header and on stderr.
cores=$(nproc)
"$KCAL" tune --p $((cores + 1)) --colls gather --sizes 4K --iters 3 --warmup 1 \
  >"$tmp/over.table" 2>"$tmp/err"; rc=$?
if [ $rc -ne 0 ] || ! head -n 1 "$tmp/over.table" | grep -q "OVERSUBSCRIBED ($((cores + 1)) processes on" ||
   ! grep -q '^# OVERSUBSCRIBED' "$tmp/over.table" || ! grep -q 'oversubscribed' "$tmp/err"; then
  echo "FAIL: oversubscribed run: exit $rc:"; cat "$tmp/over.table" "$tmp/err"; fail=1
fi
[ $fail -eq 0 ] && echo "kcal tune: all checks passed"
exit $fail
