#!/usr/bin/env bash
# kcal report from the outside, on hand-made CSVs (no MPI needed): the
# tables hold the expected rows and values, the PNGs are complete 1000x700
# images, report.md and index.html show plots, tables, params and machine,
# oversubscribed runs are kept apart and labelled; bad input gives one
# FILE:LINE error, exit 2, empty stdout and no output files.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
KCAL=$(realpath "${KCAL:-$root/kcal}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { local what=$1; shift; if "$@"; then ok; else no "$what"; fi; }

# A valid, complete PNG of W x H: signature, IHDR first with the size,
# IEND last (a truncated file has no IEND).
png_ok() {
  local f=$1 w=$2 h=$3
  [ -s "$f" ] || return 1
  [ "$(od -An -tx1 -N8 "$f" | tr -d ' \n')" = 89504e470d0a1a0a ] || return 1
  [ "$(od -An -c -j12 -N4 "$f" | tr -d ' \n')" = IHDR ] || return 1
  local a b c d
  read -r a b c d <<<"$(od -An -tu1 -j16 -N4 "$f")"
  [ $(((a << 24) | (b << 16) | (c << 8) | d)) -eq "$w" ] || return 1
  read -r a b c d <<<"$(od -An -tu1 -j20 -N4 "$f")"
  [ $(((a << 24) | (b << 16) | (c << 8) | d)) -eq "$h" ] || return 1
  [ "$(tail -c 8 "$f" | head -c 4)" = IEND ]
}

cat >"$tmp/pred.csv" <<'EOF'
collective,p,size_bytes,algorithm,k,predicted_s,rank
scatter,2,16384,parallel_read,,10e-6,1
scatter,2,16384,sequential_write,,12e-6,2
scatter,2,1048576,parallel_read,,400e-6,1
scatter,2,1048576,sequential_write,,500e-6,2
bcast,2,16384,direct_read,,10e-6,1
bcast,2,16384,direct_write,,20e-6,2
bcast,2,1048576,direct_read,,300e-6,1
bcast,2,1048576,direct_write,,600e-6,2
scatter,4,1048576,parallel_read,,700e-6,3
scatter,4,1048576,throttled_read,2,500e-6,1
scatter,4,1048576,throttled_read,3,600e-6,2
EOF
cat >"$tmp/meas.csv" <<'EOF'
collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed
scatter,2,16384,parallel_read,,8e-6,7e-6,9e-6,100,0
scatter,2,16384,sequential_write,,15e-6,14e-6,16e-6,100,0
scatter,2,16384,mpi,,20e-6,19e-6,21e-6,100,0
scatter,2,1048576,parallel_read,,500e-6,480e-6,520e-6,50,0
scatter,2,1048576,sequential_write,,400e-6,390e-6,410e-6,50,0
scatter,2,1048576,mpi,,600e-6,590e-6,610e-6,50,0
bcast,2,16384,direct_read,,12e-6,11e-6,13e-6,100,0
bcast,2,16384,direct_write,,16e-6,15e-6,17e-6,100,0
bcast,2,16384,mpi,,24e-6,23e-6,25e-6,100,0
bcast,2,1048576,direct_read,,400e-6,390e-6,410e-6,50,0
bcast,2,1048576,direct_write,,500e-6,490e-6,510e-6,50,0
bcast,2,1048576,mpi,,800e-6,790e-6,810e-6,50,0
scatter,4,1048576,parallel_read,,800e-6,700e-6,900e-6,20,1
scatter,4,1048576,throttled_read,2,900e-6,800e-6,1000e-6,20,1
scatter,4,1048576,throttled_read,3,600e-6,500e-6,700e-6,20,1
scatter,4,1048576,mpi,,1000e-6,900e-6,1100e-6,20,1
EOF

out=$tmp/out
"$KCAL" report --measured "$tmp/meas.csv" --predicted "$tmp/pred.csv" \
  --params "$root/data/knl.params" --out "$out" --scripts "$root/reports" \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "kcal report exit 0 (got $rc: $(cat "$tmp/stderr"))" [ $rc -eq 0 ]

# Headlines on stdout, worked by hand. APEs of the non-oversubscribed points:
# scatter 25, 20 (16K) and 20, 25 (1M); bcast |10-12|/12 = 16.67,
# |20-16|/16 = 25, |300-400|/400 = 25, |600-500|/500 = 20: median 22.5.
# Regrets: scatter 16K 0, 1M 25; bcast 0, 0: mean 6.25.
check "median error on stdout" grep -qx 'median model error: 22.5 %' "$tmp/stdout"
check "mean regret on stdout" grep -qx 'mean selection regret: 6.2 %' "$tmp/stdout"
check "progress on stderr" grep -q 'kcal report: .*plots in' "$tmp/stderr"

# summary.csv: the issue's columns; bcast direct_read (16.67 + 25)/2 = 20.83.
check "summary.csv header" [ "$(head -1 "$out/summary.csv")" = "collective,p,algorithm,k,points,mape_pct,max_ape_pct" ]
check "summary.csv rows" [ "$(tail -n +2 "$out/summary.csv" | wc -l)" -eq 4 ]
check "summary scatter parallel_read" grep -qx 'scatter,2,parallel_read,,2,22.5000,25.0000' "$out/summary.csv"
check "summary bcast direct_read" grep -qx 'bcast,2,direct_read,,2,20.8333,25.0000' "$out/summary.csv"
check "no mpi in summary" bash -c "! grep -q ',mpi,' '$out/summary.csv'"
# ranking.csv: one row per (collective, p, size).
check "ranking.csv header" [ "$(head -1 "$out/ranking.csv")" = "collective,p,size_bytes,predicted_best,measured_best,regret_pct,tie" ]
check "ranking.csv rows" [ "$(tail -n +2 "$out/ranking.csv" | wc -l)" -eq 4 ]
check "ranking scatter 1M" grep -qx 'scatter,2,1048576,parallel_read,sequential_write,25.0000,0' "$out/ranking.csv"
check "ranking bcast 1M" grep -qx 'bcast,2,1048576,direct_read,direct_read,0.0000,0' "$out/ranking.csv"
# Oversubscribed p = 4 only in its own files: predicted throttled_read:2
# (rank 1) measured 900, best throttled_read:3 600: regret 50 %.
check "oversubscribed ranking" grep -qx 'scatter,4,1048576,throttled_read:2,throttled_read:3,50.0000,0' "$out/ranking-oversubscribed.csv"
check "oversubscribed kept out of ranking.csv" bash -c "! grep -q '^scatter,4,' '$out/ranking.csv'"
check "speedup.csv" grep -qx 'scatter,2,1048576,sequential_write,4.000000e-04,6.000000e-04,1.5000' "$out/speedup.csv"

# Every CSV parses: same number of fields on every line as in its header.
for f in "$out"/*.csv; do
  check "$f fields" awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$f"
done

# Plots: one per (collective, p), one speedup chart per p.
for png in times-scatter-p2 times-bcast-p2 times-scatter-p4 speedup-p2 speedup-p4; do
  check "$png.png is a complete 1000x700 PNG" png_ok "$out/$png.png" 1000 700
done
check "no temp files left" bash -c "! ls '$out' | grep -q '\.tmp$'"
check "gnuplot data" grep -q '^# series throttled_read:3' "$out/data/times-scatter-p4.dat"

# report.md: plots, both tables, params, machine, the analysis paragraph.
md=$out/report.md
check "md shows the plots" grep -q '](times-scatter-p2.png)' "$md"
check "md shows the speedup chart" grep -q '](speedup-p2.png)' "$md"
check "md summary table" grep -q '^| scatter | 2 | `parallel_read` |  | 2 | 22.5 | 25.0 |' "$md"
check "md ranking table" grep -q '^| scatter | 2 | 1048576 | `parallel_read` | `sequential_write` | 25.0 |' "$md"
check "md params" grep -q '^| `beta` | 3.0395136778115503e-10 |' "$md"
check "md machine" grep -q "^| host | $(uname -n) |" "$md"
check "md analysis" grep -q 'Over 8 measured points from 16K up, the paper model is off by 22.5 %' "$md"
check "md says params are not local" grep -q 'the params are not from this machine' "$md"
check "md labels oversubscribed" grep -q '^## Oversubscribed runs — not contention measurements' "$md"
check "md oversubscribed plot" grep -q '](times-scatter-p4.png)' "$md"
check "html" grep -q '<img src="times-bcast-p2.png"' "$out/index.html"

# The full model next to the paper's (--predicted-full): its own tables with
# the same columns, both headlines, the comparison in report.md, a dashed
# line's data column. APEs by hand: scatter 16K 10, 10; 1M 10, 0; bcast 16K
# 0, 0; 1M |440-400|/400 = 10, |420-500|/500 = 16: median 10. Regret: only
# bcast 1M picks direct_write (420 < 440) which measured 25 % slower: 6.25.
check "no full tables without --predicted-full" [ ! -e "$out/summary-full.csv" ]
cat >"$tmp/full.csv" <<'EOF2'
collective,p,size_bytes,algorithm,k,predicted_s,rank
scatter,2,16384,parallel_read,,8.8e-6,1
scatter,2,16384,sequential_write,,13.5e-6,2
scatter,2,1048576,parallel_read,,450e-6,2
scatter,2,1048576,sequential_write,,400e-6,1
bcast,2,16384,direct_read,,12e-6,1
bcast,2,16384,direct_write,,16e-6,2
bcast,2,1048576,direct_read,,440e-6,2
bcast,2,1048576,direct_write,,420e-6,1
EOF2
fout=$tmp/fout
"$KCAL" report --measured "$tmp/meas.csv" --predicted "$tmp/pred.csv" \
  --predicted-full "$tmp/full.csv" --params "$root/data/knl.params" \
  --out "$fout" --scripts "$root/reports" >"$tmp/fstdout" 2>"$tmp/fstderr"
rc=$?
check "kcal report --predicted-full exit 0 (got $rc: $(cat "$tmp/fstderr"))" [ $rc -eq 0 ]
check "paper headline unchanged" grep -qx 'median model error: 22.5 %' "$tmp/fstdout"
check "full median on stdout" grep -qx 'median model error, full model: 10.0 %' "$tmp/fstdout"
check "full regret on stdout" grep -qx 'mean selection regret, full model: 6.2 %' "$tmp/fstdout"
check "summary.csv the same with or without the full model" cmp -s "$out/summary.csv" "$fout/summary.csv"
check "summary-full.csv header" [ "$(head -1 "$fout/summary-full.csv")" = "collective,p,algorithm,k,points,mape_pct,max_ape_pct" ]
check "summary-full scatter parallel_read" grep -qx 'scatter,2,parallel_read,,2,10.0000,10.0000' "$fout/summary-full.csv"
check "summary-full bcast direct_write" grep -qx 'bcast,2,direct_write,,2,8.0000,16.0000' "$fout/summary-full.csv"
check "ranking-full.csv header" [ "$(head -1 "$fout/ranking-full.csv")" = "collective,p,size_bytes,predicted_best,measured_best,regret_pct,tie" ]
check "ranking-full bcast 1M" grep -qx 'bcast,2,1048576,direct_write,direct_read,25.0000,0' "$fout/ranking-full.csv"
check "ranking-full scatter 1M" grep -qx 'scatter,2,1048576,sequential_write,sequential_write,0.0000,0' "$fout/ranking-full.csv"
check "md comparison section" grep -q '^## Paper model against the full model' "$fout/report.md"
check "md comparison numbers" grep -q 'median model error: paper 22.5 %, full 10.0 %' "$fout/report.md"
check "md comparison regret" grep -q 'mean selection regret: paper 6.2 %, full 6.2 %' "$fout/report.md"
check "no comparison without the full model" bash -c "! grep -q 'against the full model' '$out/report.md'"
check "plot data: the full model's column" grep -qx '16384 8 7 9 10 8.8' "$fout/data/times-scatter-p2.dat"
check "full times plot" png_ok "$fout/times-bcast-p2.png" 1000 700
sed '2s/,8.8e-6,/,soon,/' "$tmp/full.csv" >"$tmp/badfull.csv"
"$KCAL" report --measured "$tmp/meas.csv" --predicted "$tmp/pred.csv" \
  --predicted-full "$tmp/badfull.csv" --params "$root/data/knl.params" \
  --out "$tmp/badf" >"$tmp/bfout" 2>"$tmp/bferr"
rc=$?
check "bad --predicted-full: exit 2, FILE:LINE, nothing written" \
  bash -c "[ $rc -eq 2 ] && [ ! -s '$tmp/bfout' ] && grep -q '$tmp/badfull.csv:2' '$tmp/bferr' && [ ! -e '$tmp/badf' ]"

# Two launches (tests/samples/report-*.csv, docs/report.md's sample):
# the noise floor, the table that opens the report, the marks. Changes
# 100·|t1 − t2|/min of the 8 kcoll rows in both launches: scatter 16K
# parallel_read 8 → 10.4: 30, sequential_write 0; 1M 440 → 400: 10,
# 410 → 451: 10; bcast 16K 0, 16 → 20: 25; 1M 0, 500 → 550: 10. Sorted
# 0 0 0 10 10 10 25 30: median 10, 90th percentile at 6.3: 25 + 0.3·5 = 26.5.
S=$root/tests/samples
nout=$tmp/nout
"$KCAL" report --measured "$S/report-measured.csv" --predicted "$S/report-predicted.csv" \
  --measured-again "$S/report-again.csv" --params "$root/data/knl.params" \
  --out "$nout" --no-plots -q >"$tmp/nstdout" 2>"$tmp/nstderr"
rc=$?
check "kcal report --measured-again exit 0 (got $rc: $(cat "$tmp/nstderr"))" [ $rc -eq 0 ]
check "noise floor on stdout" grep -qx 'between-launch noise floor: median 10.0 %, 90th percentile 26.5 % (8 rows at 4 points)' "$tmp/nstdout"
nmd=$nout/report.md
# The first table is auto's, each collective's worst size first: scatter
# 16K auto 8.4 against parallel_read 8 (1.05; mpi 20: 2.38×), then 1M 420
# against sequential_write 410 (1.02); bcast 16K 15 against mpi 10 (1.50,
# 0.67×), then 1M 404 against direct_read 400 (1.01). Launch 2 measured
# auto at scatter 16K only: 9.5 against sequential_write 9: 1.06.
check "first table is auto's" [ "$(grep -m1 '^|' "$nmd")" = '| collective | p | size | `auto` | auto/mpi speed | best | auto/best time | auto/best, launch 2 |' ]
check "auto table rows, worst first" [ "$(grep -A5 -m1 '^| collective | p | size | `auto`' "$nmd" | tail -4)" = '| scatter | 2 | 16K | 8.4 µs | 2.38× | `parallel_read` | 1.05 | 1.06 |
| scatter | 2 | 1M | 420 µs | 1.43× | `sequential_write` | 1.02 | – |
| bcast | 2 | 16K | 15 µs | 0.67× | `mpi` | 1.50 | – |
| bcast | 2 | 1M | 404 µs | 1.98× | `direct_read` | 1.01 | – |' ]
check "floor beside the repeat error" grep -qx '| between-launch noise floor | median 10.0 %, 90th percentile 26.5 % (8 rows) |' "$nmd"
check "repeat error still there" grep -qx '| repeat error (noise floor) | 4.0 % (12 points) |' "$nmd"
# Marks at floor 10: scatter 16K margin 100·0.5/10 = 5 %; scatter 1M
# regret 100·30/410 = 7.3 %; bcast margins 100 %, regrets 0.
check "choices within the floor" grep -qx '| first choice within the noise floor | 2 of 4 |' "$nmd"
check "margin mark, auto and launch 2 best" grep -qx '| scatter | 2 | 16384 | `parallel_read` | `parallel_read` | 0.0 |  | margin | 8.4 µs, 1.05× | `sequential_write` |' "$nmd"
check "regret mark" grep -qx '| scatter | 2 | 1048576 | `parallel_read` | `sequential_write` | 7.3 |  | regret | 420 µs, 1.02× | `parallel_read` |' "$nmd"
check "no mark" grep -qx '| bcast | 2 | 16384 | `direct_read` | `direct_read` | 0.0 |  |  | 15 µs, 1.25× | `direct_read` |' "$nmd"
check "the sentence on the floor" grep -q 'At 2 of 4 points the model.s first choice lies inside it' "$nmd"
check "html has the auto table" grep -q '<th><code>auto</code></th>' "$nout/index.html"
check "ranking.csv unchanged by a second launch" grep -qx 'scatter,2,1048576,parallel_read,sequential_write,7.3171,0' "$nout/ranking.csv"
# One launch: the same tables say so, and no marks.
"$KCAL" report --measured "$S/report-measured.csv" --predicted "$S/report-predicted.csv" \
  --params "$root/data/knl.params" --out "$tmp/n1" --no-plots -q >"$tmp/n1out" 2>&1
check "one launch: no floor line on stdout" bash -c "! grep -q between-launch '$tmp/n1out'"
check "one launch: floor row says so" grep -qx '| between-launch noise floor | – (one launch) |' "$tmp/n1/report.md"
check "one launch: no mark" grep -qx '| scatter | 2 | 1048576 | `parallel_read` | `sequential_write` | 7.3 |  |  | 420 µs, 1.02× |' "$tmp/n1/report.md"

# Bad input: FILE:LINE, exit 2, nothing on stdout, nothing written.
bad() {
  local want=$1; shift
  rm -rf "$tmp/bad"
  "$KCAL" report --out "$tmp/bad" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
  local rc=$?
  local errs; errs=$(grep -c '' "$tmp/err.txt")
  if [ $rc -eq 2 ] && [ ! -s "$tmp/out.txt" ] && [ "$errs" -eq 1 ] &&
     grep -q -- "$want" "$tmp/err.txt" && [ ! -e "$tmp/bad" ]; then ok
  else no "kcal report $* -> rc=$rc stdout=$(wc -c <"$tmp/out.txt")B stderr: $(cat "$tmp/err.txt")"; fi
}
sed '3s/,15e-6,/,fifteen,/' "$tmp/meas.csv" >"$tmp/bad1.csv"
bad "$tmp/bad1.csv:3: bad median_s 'fifteen'" --measured "$tmp/bad1.csv" --predicted "$tmp/pred.csv" --params "$root/data/knl.params"
sed '4s/,400e-6,1$/,400e-6/' "$tmp/pred.csv" >"$tmp/bad2.csv"
bad "$tmp/bad2.csv:4: 6 fields, the header has 7" --measured "$tmp/meas.csv" --predicted "$tmp/bad2.csv" --params "$root/data/knl.params"
bad "$tmp/pred.csv:1: header lacks column 'median_s'" --measured "$tmp/pred.csv" --predicted "$tmp/pred.csv" --params "$root/data/knl.params"
bad "$tmp/nope.csv: No such file" --measured "$tmp/nope.csv" --predicted "$tmp/pred.csv" --params "$root/data/knl.params"
bad "--measured and --predicted are required" --predicted "$tmp/pred.csv"
bad "unknown option '--colour'" --colour --measured "$tmp/meas.csv" --predicted "$tmp/pred.csv"
grep -v '^bcast' "$tmp/pred.csv" | sed 's/^scatter,2,/scatter,3,/; s/^scatter,4,/scatter,5,/' >"$tmp/other.csv"
sed 's/^scatter,2,/scatter,3,/; s/^scatter,4,/scatter,5,/; s/^bcast,2,/bcast,3,/' "$tmp/meas.csv" >"$tmp/other-meas.csv"
bad "nothing to compare" --measured "$tmp/meas.csv" --predicted "$tmp/other.csv" --params "$root/data/knl.params"
bad "no point of $tmp/other-meas.csv matches a point of $tmp/meas.csv" --measured "$tmp/meas.csv" --predicted "$tmp/pred.csv" --measured-again "$tmp/other-meas.csv" --params "$root/data/knl.params"
sed '3s/,15e-6,/,-1,/' "$tmp/meas.csv" >"$tmp/bad3.csv"
bad "$tmp/bad3.csv:3: bad median_s '-1'" --measured "$tmp/meas.csv" --predicted "$tmp/pred.csv" --measured-again "$tmp/bad3.csv" --params "$root/data/knl.params"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
