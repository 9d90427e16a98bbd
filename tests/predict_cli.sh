#!/usr/bin/env bash
# kcal predict from the outside: bad input gives one stderr line, exit 2 and
# an empty stdout; good input gives the documented shapes.
set -u
KCAL=$(realpath "${KCAL:-./kcal}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# bad CMD... : exit 2, nothing on stdout, exactly one stderr line that
# contains $want (stderr may also carry the "params:" line when params load).
bad() {
  local want=$1; shift
  "$KCAL" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local errs; errs=$(grep -c . "$tmp/err" || true)  # one line, no params: line before it
  if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$errs" -eq 1 ] && grep -q -- "$want" "$tmp/err"; then ok
  else no "kcal $* -> rc=$rc stdout=$(wc -c <"$tmp/out")B stderr: $(cat "$tmp/err")"; fi
}

bad "unknown collective 'scan'" predict --coll scan --p 4
bad "--p: '0'" predict --coll scatter --p 0
bad "--p: '1000001'" predict --coll scatter --p 1000001
bad "--p: '-3'" predict --coll scatter --p -3
bad "--p: 'x'" predict --coll scatter --p x
bad "is zero" predict --coll scatter --p 4 --size 0
bad "not a positive number" predict --coll scatter --p 4 --size -5
bad "trailing garbage" predict --coll scatter --p 4 --size 12abc
bad "too large" predict --coll scatter --p 4 --size 99999999999999999999
bad "too large" predict --coll scatter --p 4 --sizes 1K:99999999T
bad "MIN is above MAX" predict --coll scatter --p 4 --sizes 8M:1K
bad "unknown option '--bogus'" predict --coll scatter --p 4 --bogus
bad "needs a value" predict --coll scatter --p
bad "--coll and --p are required" predict --p 4
# A list names its bad item, whatever it is: unknown, empty, repeated.
bad "--coll 'scatter,scan': item 2 'scan': unknown collective" predict --coll scatter,scan --p 4
bad "--coll 'scatter,,gather': item 2 '': an empty name" predict --coll scatter,,gather --p 4
bad "--coll 'bcast,': item 2 '': an empty name" predict --coll bcast, --p 4
bad "--coll 'gather,gather': item 2 'gather': named twice" predict --coll gather,gather --p 4
bad "--coll 'scatter,all': item 2 'all': stands alone" predict --coll scatter,all --p 4
bad "--k: allgather has no throttle factor" predict --coll all --p 8 --k 2
bad "unknown model 'fancy'" predict --coll scatter --p 4 --model fancy
bad "unknown format 'xml'" predict --coll scatter --p 4 --format xml
bad "out of range" predict --coll scatter --p 8 --k 8
bad "has no throttle factor" predict --coll alltoall --p 8 --k 2
bad "not both" predict --coll scatter --p 4 --size 1K --sizes 1K:2K
bad "unknown machine 'vax'" predict --coll scatter --p 4 --machine vax
bad "/nonexistent.params: cannot open" predict --coll scatter --p 4 --params /nonexistent.params
bad "unknown command 'frobnicate'" frobnicate

printf 'format kcal-params-1\nalpha 1e-6\nbeta oops\n' >"$tmp/bad.params"
bad "$tmp/bad.params:3: value 'oops' of 'beta' is not a number" predict --coll scatter --p 4 --params "$tmp/bad.params"
printf 'format kcal-params-1\nalpha 1e-6\nbeta 1e-9\nlock 1e-7\npage 4096\ngamma_a 0.1\n' >"$tmp/short.params"
bad "missing required key 'gamma_b'" predict --coll scatter --p 4 --params "$tmp/short.params"
KCAL_PARAMS="$tmp/short.params" bad "missing required key 'gamma_b'" predict --coll scatter --p 4

# Params that pass every check but overflow a double together: no "nan" in
# CSV, JSON (which has no NaN) or the table; one line naming the file and
# the term, exit 2, nothing on stdout, whatever the format or model.
printf 'format kcal-params-1\nalpha 1e-6\nbeta 1e-9\nlock 0\npage 4096\ngamma_a 1e308\ngamma_b 0\n' >"$tmp/nan.params"
for fmt in csv json table; do
  bad "$tmp/nan.params: the predicted time of parallel_read at p = 4, size 1K is NaN: its lock (lock, gamma_a, gamma_b) term overflows" \
    predict --coll scatter --p 4 --params "$tmp/nan.params" --format $fmt
done
bad "$tmp/nan.params: the predicted time of parallel_read at p = 4, size 1K is NaN" \
  predict --coll scatter --p 4 --params "$tmp/nan.params" --model full --explain
KCAL_PARAMS="$tmp/nan.params" bad "nan.params: the predicted time of parallel_read at p = 4" \
  predict --coll scatter --p 4 --k 2 --format json
printf 'format kcal-params-1\nalpha 1e308\nbeta 1e-9\nlock 1e-7\npage 4096\ngamma_a 0.1\ngamma_b 1\n' >"$tmp/inf.params"
bad "$tmp/inf.params: the predicted time of direct_write at p = 8, size 1K is inf: its start-up (alpha) term overflows" \
  predict --coll bcast --p 8 --params "$tmp/inf.params" --format csv
# Only the last size overflows: still nothing on stdout (checked up front).
printf 'format kcal-params-1\nalpha 1e-6\nbeta 1e300\nlock 1e-7\npage 4096\ngamma_a 0.1\ngamma_b 1\n' >"$tmp/big.params"
bad "size 1G is inf: its copy (beta) term overflows" \
  predict --coll allgather --p 3 --sizes 1K,1M,1G --params "$tmp/big.params" --format csv
"$KCAL" predict --coll allgather --p 3 --sizes 1K,1M --params "$tmp/big.params" --format csv >/dev/null 2>&1 && ok || no "finite huge params still predict"

# Good input.
"$KCAL" --help | grep -q '^  predict' && ok || no "kcal --help lists predict"
"$KCAL" predict --help | grep -q -- '--coll' && ok || no "kcal predict --help"
"$KCAL" --version | grep -Eq '^kcal [0-9]+\.[0-9]+' && ok || no "kcal --version"

"$KCAL" predict --coll scatter --p 64 --sizes 1K:8M --format csv >"$tmp/csv" 2>"$tmp/err"
[ $? -eq 0 ] && ok || no "csv run"
[ "$(head -n 1 "$tmp/csv")" = "collective,p,size_bytes,algorithm,k,predicted_s,rank" ] && ok || no "csv header"
# 14 sizes x (parallel_read + sequential_write + 62 throttle factors
# + the derived parallel_read_flags, parallel_read_split and copy_in_out)
[ "$(tail -n +2 "$tmp/csv" | wc -l)" -eq $((14 * 67)) ] && ok || no "csv rows: $(wc -l <"$tmp/csv")"
awk -F, 'NR > 1 && $4 == "throttled_read" && ($5 < 2 || $5 > 63) { bad = 1 }
         NR > 1 && $4 != "throttled_read" && $5 != "" { bad = 1 }
         NR > 1 && $7 == 1 { ones[$3]++ } END { exit bad || length(ones) != 14 }' "$tmp/csv" && ok || no "csv k column / one rank 1 per size"
grep -q 'params: embedded knl (default' "$tmp/err" && ok || no "stderr names the params used: $(cat "$tmp/err")"
# At 1 MiB the KNL model picks throttled_read with k in 4..8.
awk -F, '$3 == 1048576 && $7 == 1 { print $4, $5 }' "$tmp/csv" | grep -Eq '^throttled_read [4-8]$' && ok || no "1M winner"

"$KCAL" predict --coll allgather --p 6 --size 1M --format json >"$tmp/json" 2>/dev/null
if ! command -v python3 >/dev/null; then
  [ "$(grep -c '"algorithm"' "$tmp/json")" -eq 7 ] && ok || no "json records (grep)"
else python3 -c "
import json,sys
r=json.load(open('$tmp/json'))
assert len(r)==7, r
assert {x['algorithm'] for x in r}=={'ring_neighbor','ring_source_read','ring_source_write','recursive_doubling','bruck','ring_source_read_flags','copy_in_out'}
assert all(set(x)=={'collective','p','size_bytes','algorithm','k','predicted_s','rank'} for x in r)
assert [x['k'] for x in r if x['algorithm']=='ring_neighbor']==[1]
" && ok || no "json records"
fi

"$KCAL" predict --coll scatter --p 64 --size 1M >"$tmp/table" 2>/dev/null
grep -q '<- best' "$tmp/table" && grep -q 'more rows' "$tmp/table" && grep -q 'fastest algorithm by size' "$tmp/table" && ok || no "table shape"
"$KCAL" predict --coll scatter --p 64 --size 1M --top 100 2>/dev/null | grep -Ec '^ +[0-9]+ +throttled_read ' | grep -qx 62 && ok || no "--top shows every k"
"$KCAL" predict --coll bcast --p 64 --size 4M --explain 2>/dev/null | grep -q 'startup_us.*copy_us.*lock_us.*sync_us' && ok || no "--explain columns"
"$KCAL" predict --coll bcast --p 64 --sizes 1K:8M 2>/dev/null | grep -q 'crossovers' && ok || no "crossover summary"
"$KCAL" predict --coll gather --p 1 --size 1K --format csv 2>/dev/null | tail -n +2 | awk -F, '$7 != 1 { bad = 1 } END { exit bad }' && ok || no "p=1 all tie"

# --coll all (and a list): one process prints what the eight runs print,
# one after the other: the table as it is; CSV with one header; JSON as
# one array of every run's records.
colls=$("$KCAL" predict --help | sed -n 's/^  \([a-z]*, .*\),$/\1/p' | tr -d ,)
[ "$(echo $colls | wc -w)" -eq 8 ] && ok || no "predict --help lists the eight collectives: '$colls'"
for fmt in table csv; do
  for extra in "" "--params $(dirname "$0")/data/probed-quick.params --explain"; do
    : >"$tmp/cat"
    for c in $colls; do
      "$KCAL" predict --coll "$c" --p 64 --sizes 1K:8M --format $fmt $extra 2>/dev/null >"$tmp/one" || no "--coll $c $fmt"
      if [ $fmt = csv ] && [ -s "$tmp/cat" ]; then tail -n +2 "$tmp/one" >>"$tmp/cat"; else cat "$tmp/one" >>"$tmp/cat"; fi
    done
    "$KCAL" predict --coll all --p 64 --sizes 1K:8M --format $fmt $extra >"$tmp/all" 2>"$tmp/err"
    [ $? -eq 0 ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] && cmp -s "$tmp/all" "$tmp/cat" && ok ||
      no "--coll all --format $fmt $extra is not the five runs one after the other: $(diff "$tmp/all" "$tmp/cat" | head -3)"
  done
done
"$KCAL" predict --coll gather,scatter --p 64 --sizes 1K:8M --format csv >"$tmp/two" 2>/dev/null
{ "$KCAL" predict --coll gather --p 64 --sizes 1K:8M --format csv; "$KCAL" predict --coll scatter --p 64 --sizes 1K:8M --format csv | tail -n +2; } 2>/dev/null |
  cmp -s - "$tmp/two" && ok || no "--coll gather,scatter: gather's rows, then scatter's"
if command -v python3 >/dev/null; then
  "$KCAL" predict --coll all --p 6 --size 1M --format json >"$tmp/alljson" 2>/dev/null
  for c in $colls; do "$KCAL" predict --coll "$c" --p 6 --size 1M --format json >"$tmp/json.$c" 2>/dev/null; done
  python3 -c "
import json,sys
every=json.load(open('$tmp/alljson'))
each=[r for c in sys.argv[1:] for r in json.load(open('$tmp/json.'+c))]
assert every==each and len(each) > 20, (len(every), len(each))
" $colls && ok || no "--coll all --format json: one array of the five runs' records"
fi

# --model full: the same CSV columns and rows; without its keys (the
# embedded params have none) it says on stderr which terms fall back to the
# paper's; with them it is silent, and the structural fixes change times.
"$KCAL" predict --model full --coll scatter --p 64 --sizes 1K:8M --format csv >"$tmp/fcsv" 2>"$tmp/ferr"
[ $? -eq 0 ] && ok || no "--model full csv run: $(cat "$tmp/ferr")"
[ "$(head -n 1 "$tmp/fcsv")" = "collective,p,size_bytes,algorithm,k,predicted_s,rank" ] && ok || no "full csv header"
[ "$(tail -n +2 "$tmp/fcsv" | wc -l)" -eq $((14 * 67)) ] && ok || no "full csv rows: $(wc -l <"$tmp/fcsv")"
grep -q "warning: model full: no beta_hot and no l3_cache" "$tmp/ferr" && grep -q "warning: model full: no sync_step" "$tmp/ferr" && ok || no "full fallback notes: $(cat "$tmp/ferr")"
# pairwise is the paper's row plus its own block's local copy (issue 9:
# alltoall.c copies it): without the full keys exactly n*beta more (the
# embedded KNL beta = 1/3.29e9 s/byte); sequential_write is not (p - 1
# copies).
"$KCAL" predict --coll alltoall --p 8 --format csv >"$tmp/a2a" 2>/dev/null
"$KCAL" predict --model full --coll alltoall --p 8 --format csv >"$tmp/fa2a" 2>/dev/null
# (pairwise rows only: the derived pairwise_flags ranks beside it.)
paste -d, <(grep ',pairwise,' "$tmp/a2a") <(grep ',pairwise,' "$tmp/fa2a") |
  awk -F, '{ d = $13 - $6; w = $3 / 3.29e9;
    if ($4 != "pairwise" || $11 != "pairwise" || $3 != $10) bad = 1;
    if (d < w * (1 - 1e-6) || d > w * (1 + 1e-6)) bad = 1; n++ }
    END { exit bad || n != 14 }' && ok || no "full pairwise = paper + n*beta without the full keys"
join -t, <(awk -F, '$4 == "sequential_write" { print $3 "," $6 }' "$tmp/csv" | sort) \
         <(awk -F, '$4 == "sequential_write" { print $3 "," $6 }' "$tmp/fcsv" | sort) |
  awk -F, '!($3 < $2) { bad = 1 } END { exit bad || NR != 14 }' && ok || no "full sequential_write charges p-1 copies"
cp "$(dirname "$0")/../data/broadwell.params" "$tmp/full.params"
printf 'l3_cache 33554432\nbeta_hot 3e-11\nsync_step 2e-7\n' >>"$tmp/full.params"
"$KCAL" predict --model full --coll bcast --p 2 --sizes 64K,1M --explain --params "$tmp/full.params" >"$tmp/ftable" 2>"$tmp/ferr"
[ $? -eq 0 ] && ok || no "--model full table run"
grep -q 'model full' "$tmp/ftable" && grep -q 'startup_us.*copy_us.*lock_us.*sync_us' "$tmp/ftable" && ok || no "full table header / --explain"
grep -q 'warning' "$tmp/ferr" && no "full with every key warns: $(cat "$tmp/ferr")" || ok
"$KCAL" predict --model full --coll allgather --p 4 --size 1M --format json --params "$tmp/full.params" 2>/dev/null | grep -c '"algorithm"' | grep -qx 7 && ok || no "full json"

# The MPI library's row: with what kcal probe measures (its line and the
# crossover mpi_gather_below) the table shows `mpi` first below 4K, marked
# as libkcoll's choice, and the crossover summary names it; CSV and JSON
# keep the model's algorithms only (kcal report joins on them).
cp "$(dirname "$0")/../data/broadwell.params" "$tmp/mpi.params"
printf 'mpi_gather_a 1e-6\nmpi_gather_b 1e-10\nmpi_gather_below 4096\n' >>"$tmp/mpi.params"
"$KCAL" predict --coll gather --p 2 --sizes 1K,4K --params "$tmp/mpi.params" >"$tmp/mtab" 2>/dev/null
[ "$(grep -c '^ *- *mpi .*<- libkcoll uses the MPI library here' "$tmp/mtab")" -eq 1 ] &&
  grep -A2 'fastest algorithm' "$tmp/mtab" | grep -Eq '^  1K +mpi$' && ok || no "mpi row below the crossover: $(cat "$tmp/mtab")"
"$KCAL" predict --coll gather --p 2 --sizes 1K,4K --params "$tmp/mpi.params" --format csv 2>/dev/null | grep -q ',mpi,' &&
  no "mpi row in the CSV" || ok
"$KCAL" predict --coll gather --p 2 --sizes 1K,4K --params "$tmp/mpi.params" --format json 2>/dev/null | grep -q '"mpi"' &&
  no "mpi row in the JSON" || ok

# --ppn: P ranks at PPN per node. Without the network keys, one line and
# exit 2 (nothing is guessed); a layout that is not whole nodes, or a k
# beyond the node, is refused.
bad "embedded knl: the params lack net_alpha/net_beta" predict --coll gather --p 512 --ppn 64
bad "the params lack net_alpha/net_beta" predict --coll gather --p 512 --ppn 64 --machine broadwell --format csv
cp "$(dirname "$0")/../data/knl.params" "$tmp/net.params"
printf 'net_alpha 2e-6\nnet_beta 1e-10\n' >>"$tmp/net.params"
bad "--ppn 64 with --p 500: P must be a multiple of PPN" predict --coll gather --p 500 --ppn 64 --params "$tmp/net.params"
bad "--ppn 8 with --p 8" predict --coll gather --p 8 --ppn 8 --params "$tmp/net.params"
bad "--k 64 is out of range for ppn = 64" predict --coll gather --p 512 --ppn 64 --k 64 --params "$tmp/net.params"
bad "--ppn: '0'" predict --coll gather --p 512 --ppn 0 --params "$tmp/net.params"
"$KCAL" predict --coll gather --p 512 --ppn 64 --sizes 64K,1M --format csv --params "$tmp/net.params" >"$tmp/ppn" 2>"$tmp/err"
[ $? -eq 0 ] && ok || no "--ppn csv run: $(cat "$tmp/err")"
[ "$(head -n 1 "$tmp/ppn")" = "collective,p,size_bytes,algorithm,k,predicted_s,rank" ] && ok || no "--ppn csv header"
# Per size: the six gather algorithms as node steps (throttled_write with
# k = 2..63) and mpi_flat: 5 + 62 + 1 rows, one rank 1, p = 512.
awk -F, 'NR > 1 { rows[$3]++; if ($2 != 512) bad = 1
           if ($4 == "mpi_flat") flat[$3]++; else if ($4 !~ /^two_level:/) bad = 1
           if ($4 == "two_level:throttled_write" && ($5 < 2 || $5 > 63)) bad = 1
           if ($7 == 1) ones[$3]++ }
         END { for (s in rows) if (rows[s] != 68 || flat[s] != 1 || ones[s] != 1) bad = 1
               exit bad || length(rows) != 2 }' "$tmp/ppn" && ok || no "--ppn csv rows: $(cat "$tmp/ppn" | head -5)"
# The embedded KNL gather at p = 64 picks throttled_write; across 8 nodes
# the network part is the same for every node step, so it stays first.
awk -F, '$3 == 1048576 && $7 == 1 { print $4 }' "$tmp/ppn" | grep -qx 'two_level:throttled_write' && ok || no "--ppn 1M winner: $(grep ',1$' "$tmp/ppn")"
"$KCAL" predict --coll gather --p 512 --ppn 64 --size 1M --explain --params "$tmp/net.params" >"$tmp/ptab" 2>/dev/null
grep -q 'p = 512 on 8 nodes of 64' "$tmp/ptab" && grep -q '^network: net_alpha 2.000 us' "$tmp/ptab" &&
  grep -q 'node_start.*node_copy.*node_lock.*node_sync.*net_alpha.*net_beta' "$tmp/ptab" &&
  grep -q 'mpi_flat' "$tmp/ptab" && grep -q '<- best' "$tmp/ptab" && ok || no "--ppn table: $(cat "$tmp/ptab")"
"$KCAL" predict --coll alltoall --p 8 --ppn 4 --size 1M --format json --params "$tmp/net.params" 2>/dev/null |
  grep -c '"ppn": 4' | grep -qx 4 && ok || no "--ppn json: pairwise, pairwise_flags, copy_in_out, mpi_flat"
# The reductions across nodes: their two-level rows and mpi_flat, none free.
"$KCAL" predict --coll allreduce,reduce,reduce_scatter_block --p 8 --ppn 4 --size 1M --format csv --params "$tmp/net.params" 2>/dev/null |
  awk -F, 'NR > 1 { n[$1]++; if (!($6 > 0)) bad = 1; if ($4 == "mpi_flat") flat++ }
           END { exit bad || n["allreduce"] != 4 || n["reduce"] != 4 || n["reduce_scatter_block"] != 3 || flat != 3 }' &&
  ok || no "--ppn reductions: $("$KCAL" predict --coll allreduce,reduce,reduce_scatter_block --p 8 --ppn 4 --size 1M --format csv --params "$tmp/net.params" 2>&1)"
# Without --ppn the output is what it was: no two-level rows.
"$KCAL" predict --coll gather --p 64 --size 1M --format csv --params "$tmp/net.params" 2>/dev/null | grep -q 'two_level\|mpi_flat' &&
  no "two-level rows without --ppn" || ok

# Unknown keys are kept with a warning naming file and line; --params wins over --machine.
cp "$(dirname "$0")/../data/broadwell.params" "$tmp/x.params"; echo "future_key 7" >>"$tmp/x.params"
"$KCAL" predict --coll scatter --p 4 --size 1K --params "$tmp/x.params" --machine power8 >/dev/null 2>"$tmp/err"
grep -q "x.params:[0-9]*: unknown key 'future_key'" "$tmp/err" && grep -q "file $tmp/x.params (--params)" "$tmp/err" && ok || no "unknown-key warning: $(cat "$tmp/err")"
KCAL_PARAMS="$tmp/x.params" "$KCAL" predict --coll scatter --p 4 --size 1K --machine power8 >/dev/null 2>"$tmp/err"
grep -q "embedded power8 (--machine)" "$tmp/err" && ok || no "--machine beats \$KCAL_PARAMS"
# kcal works from any directory (embedded defaults).
(cd / && "$KCAL" predict --coll scatter --p 4 --size 1K --machine broadwell >/dev/null 2>&1) && ok || no "runs from /"

# The v-collectives (model/irregular.h): --counts and its errors, and
# uniform counts predicting exactly the regular row (the same formula per
# pair, the pairs adding up to it).
bad "--counts: 'lumpy': not uniform" predict --coll alltoallv --p 4 --counts lumpy
bad "skew:F takes a factor" predict --coll alltoallv --p 4 --counts skew:0
bad "--counts is for a v-collective" predict --coll alltoall --p 4 --counts uniform
bad "takes none of --ppn, --k, --in-place, --top" predict --coll scatterv --p 4 --k 2
bad "--p must be 2 or more" predict --coll gatherv --p 1
bad "item 2 'alltoallv': stands alone" predict --coll bcast,alltoallv --p 4
printf '0 5\n7\n' >"$tmp/m2"
bad "3 byte counts, where p = 2 needs 4" predict --coll alltoallv --p 2 --counts "file:$tmp/m2"
printf '0 5\n7 1.5\n' >"$tmp/m2"
bad "m2:2: '1.5' is not a byte count" predict --coll alltoallv --p 2 --counts "file:$tmp/m2"
bad "/nonexistent: cannot open" predict --coll alltoallv --p 2 --counts file:/nonexistent
params=$(dirname "$0")/data/probed-quick.params
for vc in scatterv:parallel_read_split:scatter:parallel_read_split \
          gatherv:parallel_write_split:gather:parallel_write_split \
          allgatherv:source_read_flags:allgather:ring_source_read_flags \
          allgatherv:copy_in_out:allgather:copy_in_out \
          alltoallv:pairwise:alltoall:pairwise; do
  IFS=: read -r v vid r row <<<"$vc"
  "$KCAL" predict --coll "$v" --p 6 --sizes 1K:1M --params "$params" --format csv 2>/dev/null >"$tmp/v.csv"
  "$KCAL" predict --coll "$r" --p 6 --sizes 1K:1M --params "$params" --format csv 2>/dev/null >"$tmp/r.csv"
  # Each collective's first row, and allgatherv's staged row (the rows
  # algos/irregular.def prices with the regular row named here), against
  # that row, at every size.
  join -t, <(awk -F, -v a="$vid" 'NR > 1 && $4 == a { print $3 "," $6 }' "$tmp/v.csv" | sort) \
           <(awk -F, -v a="$row" 'NR > 1 && $4 == a { print $3 "," $6 }' "$tmp/r.csv" | sort) |
    awk -F, '{ d = $2 - $3; if (d < 0) d = -d; if (d > 1e-6 * $3) bad = 1; n++ }
             END { exit bad || n != 11 }' && ok || no "$v $vid uniform = $r $row"
done
# The windowed rows: one per window w = 1..p − 1 (k column), w = p − 1
# the parallel row at every size and distribution; the table shows the
# best window alone and says how many it hides.
for d in uniform skew:16 random:5; do
  "$KCAL" predict --coll scatterv --p 6 --sizes 1K:1M --counts $d --params "$params" --format csv 2>/dev/null >"$tmp/w.csv"
  awk -F, 'NR > 1 && $4 == "throttled_read" { k[$5]++ } END { for (w = 1; w <= 5; w++) if (k[w] != 11) bad = 1; exit bad || length(k) != 5 }' "$tmp/w.csv" &&
    join -t, <(awk -F, 'NR > 1 && $4 == "throttled_read" && $5 == 5 { print $3 "," $6 }' "$tmp/w.csv" | sort) \
             <(awk -F, 'NR > 1 && $4 == "parallel_read" { print $3 "," $6 }' "$tmp/w.csv" | sort) |
    awk -F, '{ d = $2 - $3; if (d < 0) d = -d; if (d > 1e-6 * $3) bad = 1; n++ } END { exit bad || n != 11 }' &&
    ok || no "scatterv --counts $d: throttled_read's windows"
done
"$KCAL" predict --coll gatherv --p 6 --sizes 256K --counts skew:16 --params "$params" >"$tmp/wt" 2>/dev/null &&
  [ "$(grep -c ' throttled_write:[1-5] ' "$tmp/wt")" = 1 ] && grep -q '(4 more rows: other windows' "$tmp/wt" &&
  ok || no "gatherv table: one window shown: $(cat "$tmp/wt")"
"$KCAL" predict --coll alltoallv --p 4 --sizes 64K --counts skew:16 --params "$params" --explain >"$tmp/skew" 2>/dev/null &&
  grep -q 'counts skew:16' "$tmp/skew" && grep -q 'pairwise .*<- best' "$tmp/skew" && ok || no "skew table: $(cat "$tmp/skew")"
# The CSV's collective column is the label kcal bench --counts writes too
# (common/vcounts.h), so kcal report joins the two and keeps
# distributions apart: the bare name for uniform, name-spec otherwise, k
# empty as for every algorithm without one.
for c in "uniform alltoallv" "skew:16 alltoallv-skew-16" "random:7 alltoallv-random-7" \
         "file:$tmp/m4 alltoallv-file-m4"; do
  read -r d want <<<"$c"
  printf '1 2 3 4\n5 6 7 8\n9 10 11 12\n13 14 15 16\n' >"$tmp/m4"
  "$KCAL" predict --coll alltoallv --p 4 --sizes 4K --counts "$d" --params "$params" --format csv 2>/dev/null >"$tmp/l.csv" &&
    awk -F, -v w="$want" 'NR > 1 && !($1 == w && $5 == "") {bad = 1} END {exit bad || NR < 2}' "$tmp/l.csv" &&
    ok || no "--counts $d: collective column not $want: $(cat "$tmp/l.csv")"
done

# --type and --op: the reductions' alone, one rate for the whole list;
# the fold at the op's own key where the params hold it (a max on ints
# at 8x reduce_beta: read_all at p = 4 folds 3 MiB at 7 ns/B more,
# 22 ms), else at reduce_beta and the header says so.
bad "--coll allgather moves bytes" predict --coll allgather --p 4 --op max
bad "--coll scatter moves bytes" predict --coll allreduce,scatter --p 4 --op max
bad "--coll alltoallv moves bytes" predict --coll alltoallv --p 4 --type int
bad "--op max is not defined on --type byte" predict --coll allreduce --p 4 --type byte --op max
bad "--op: 'nope' is not an op" predict --coll reduce --p 4 --op nope
{ cat "$params"; echo "reduce_beta 1e-9"; echo "reduce_max_int_beta 8e-9"; } >"$tmp/rates.params"
csv_time() { awk -F, '$4 == "read_all" {print $6}' "$1"; }
if "$KCAL" predict --coll allreduce --p 4 --size 1M --params "$tmp/rates.params" --format csv >"$tmp/sum.csv" 2>/dev/null &&
   "$KCAL" predict --coll allreduce --p 4 --size 1M --params "$tmp/rates.params" --type int --op max --format csv >"$tmp/max.csv" 2>/dev/null &&
   "$KCAL" predict --coll allreduce --p 4 --size 1M --params "$tmp/rates.params" --type int --op min --format csv >"$tmp/min.csv" 2>/dev/null; then
  awk -v s="$(csv_time "$tmp/sum.csv")" -v m="$(csv_time "$tmp/max.csv")" -v n="$(csv_time "$tmp/min.csv")" \
    'BEGIN {d = m - s; exit !(d > 21.9e-3 && d < 22.1e-3 && n == s)}' &&
    ok || no "--op max: read_all $(csv_time "$tmp/sum.csv") -> $(csv_time "$tmp/max.csv") (want +22 ms), min $(csv_time "$tmp/min.csv")"
else no "--type int --op max/min: a run failed"; fi
"$KCAL" predict --coll allreduce --p 4 --size 1M --params "$tmp/rates.params" --type int --op max 2>/dev/null |
  grep -q '^  int max: the op at reduce_max_int_beta = 8 ns/B' && ok || no "--op max: header lacks its rate"
"$KCAL" predict --coll reduce --p 4 --size 1M --params "$tmp/rates.params" --type int --op min 2>/dev/null |
  grep -q '^  int min: the op at reduce_beta = 1 ns/B .*; reduce_min_int_beta is not in the params' && ok ||
  no "--op min: header does not say its key is absent"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
