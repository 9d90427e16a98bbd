#!/usr/bin/env bash
# The whole `make report` pipeline on a tiny sweep: reports/make-report with
# p = 2 and two sizes, the paper's KNL params (so no probe is needed), real
# kcal bench runs under mpirun, alltoallv under uniform and skew:16 counts
# besides the collectives. Checks that every collective has its plot as
# a complete 1000x700 PNG, that the CSVs parse and hold one row per measured
# point, and that report.md names the numbers and the MPI library measured
# ($KCAL_MPI's, common/mpi_flavor.sh: Open MPI, or MPICH as `make report
# MPI=mpich`). Skips (77) when this build has no `kcal bench` (the reference
# collectives are another part of kcal) or the library is not installed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/common/mpi_flavor.sh"
mpi_require
KCAL=$(realpath "${KCAL_RELEASE:-$root/kcal}")
if ! "$KCAL" bench --help >/dev/null 2>&1; then
  echo "skip: this kcal has no 'bench' command (reference collectives not built in)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { local what=$1; shift; if "$@"; then ok; else no "$what"; fi; }

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

out=$tmp/out
KCAL=$KCAL OUT=$out PARAMS=$root/data/knl.params PS=2 SIZES=16K,1M \
  VCOLLS=alltoallv DISTS="uniform skew:16" \
  "$root/reports/make-report" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
check "make-report exit 0 (got $rc; stderr tail: $(tail -5 "$tmp/stderr"))" [ $rc -eq 0 ]
check "progress on stderr" grep -q '^make-report: \[2/4\] bench scatter p=2' "$tmp/stderr"
check "headline on stdout" grep -q '^median model error: [0-9.]* %$' "$tmp/stdout"
check "regret on stdout" grep -q '^mean selection regret: [0-9.]* %$' "$tmp/stdout"

for c in scatter gather bcast allgather alltoall; do
  check "times-$c-p2.png is a complete 1000x700 PNG" png_ok "$out/times-$c-p2.png" 1000 700
  # Measured: every row of this collective is p = 2 at 16K or 1M, and both
  # sizes have the MPI library's collective and at least one kcoll one.
  for n in 16384 1048576; do
    check "measured $c $n mpi" grep -q "^$c,2,$n,mpi,," "$out/measured.csv"
    check "measured $c $n kcoll" bash -c "grep '^$c,2,$n,' '$out/measured.csv' | grep -vq ',mpi,'"
    check "ranking $c $n" grep -q "^$c,2,$n,[a-z_]*\(:[0-9]*\)\?,[a-z_]*\(:[0-9]*\)\?,[0-9.]*,[01]$" "$out/ranking.csv"
  done
  check "summary $c" grep -q "^$c,2,[a-z_]*,[0-9]*,2,[0-9.]*,[0-9.]*$" "$out/summary.csv"
done
# The v-collective under two distributions: two collectives of the report,
# named by the label kcal bench and kcal predict both write
# (common/vcounts.h), joined, ranked and plotted as the others. Its rows:
# pairwise and copy_in_out, which at these sizes runs (and is priced as)
# pairwise's pairs, so either may come first.
for c in alltoallv alltoallv-skew-16; do
  check "times-$c-p2.png is a complete 1000x700 PNG" png_ok "$out/times-$c-p2.png" 1000 700
  for n in 16384 1048576; do
    for a in mpi pairwise copy_in_out auto limit; do
      check "measured $c $n $a" grep -q "^$c,2,$n,$a,," "$out/measured.csv"
    done
    check "ranking $c $n" grep -Eq "^$c,2,$n,(pairwise|copy_in_out),(pairwise|copy_in_out),[0-9.]*,[01]$" "$out/ranking.csv"
  done
  check "summary $c" grep -Eq "^$c,2,(pairwise|copy_in_out),,2,[0-9.]*,[0-9.]*$" "$out/summary.csv"
  check "speedup.csv $c" grep -Eq "^$c,2,16384,(pairwise|copy_in_out)," "$out/speedup.csv"
done
check "the speedup plot's data has the v columns" grep -q '^size .* alltoallv alltoallv-skew-16$' "$out/data/speedup-p2.dat"
check "speedup chart" png_ok "$out/speedup-p2.png" 1000 700
check "ranking rows: 10 collectives x 2 sizes" [ "$(tail -n +2 "$out/ranking.csv" | wc -l)" -eq 20 ]
check "measured sizes" bash -c "tail -n +2 '$out/measured.csv' | cut -d, -f2,3 | sort -u | tr '\n' ' ' | grep -qx '2,1048576 2,16384 '"
check "measured header" [ "$(head -1 "$out/measured.csv")" = "collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed,p25_s,p75_s,half1_s,half2_s,p05_s" ]
check "predicted header" [ "$(head -1 "$out/predicted.csv")" = "collective,p,size_bytes,algorithm,k,predicted_s,rank" ]
for f in "$out"/*.csv; do
  check "$f parses (same field count as its header)" awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$f"
done
check "report.md headline" grep -q '^Median model error: [0-9.]* %' "$out/report.md"
check "report.md names $mpi_title" grep -q "^| MPI library (\`mpi\`) | $mpi_title [0-9v]" "$out/report.md"
check "the speedup text names $mpi_title" grep -q "median time of the MPI library's collective ($mpi_title " "$out/report.md"
check "make-report said which library" grep -q "^make-report: MPI library: $mpi_title " "$tmp/stderr"
# The full model is predicted and compared too.
check "predicted-full header" [ "$(head -1 "$out/predicted-full.csv")" = "collective,p,size_bytes,algorithm,k,predicted_s,rank" ]
check "predicted-full rows = predicted rows" [ "$(wc -l <"$out/predicted-full.csv")" -eq "$(wc -l <"$out/predicted.csv")" ]
check "ranking-full rows: 10 collectives x 2 sizes" [ "$(tail -n +2 "$out/ranking-full.csv" | wc -l)" -eq 20 ]
check "summary-full as summary" [ "$(cut -d, -f1-5 "$out/summary-full.csv")" = "$(cut -d, -f1-5 "$out/summary.csv")" ]
check "full headline on stdout" grep -q '^median model error, full model: [0-9.]* %$' "$tmp/stdout"
check "report.md compares the models" grep -q 'median model error: paper [0-9.]* %, full [0-9.]* %' "$out/report.md"
check "fallback said on stderr (knl params have no beta_hot)" grep -q 'make-report: kcal predict: warning: model full: no beta_hot' "$tmp/stderr"
check "report.md analysis" grep -q 'Over [0-9]* measured points from 16K up' "$out/report.md"
# The second launch: every other size of each run (16K of 16K,1M), after
# the whole first launch, joined as the between-launch noise floor.
check "second launch said on stderr" grep -q '^make-report: \[2/4\] bench again scatter p=2, sizes 16384 ' "$tmp/stderr"
check "second launch after the first" bash -c "[ \$(grep -n 'bench alltoall p=2' '$tmp/stderr' | cut -d: -f1) -lt \$(grep -n 'bench again scatter p=2' '$tmp/stderr' | cut -d: -f1) ]"
check "measured-again header" [ "$(head -1 "$out/measured-again.csv")" = "$(head -1 "$out/measured.csv")" ]
check "measured-again: 16K only, every collective" bash -c "[ \"\$(tail -n +2 '$out/measured-again.csv' | cut -d, -f1,2,3 | sort -u | tr '\n' ' ')\" = 'allgather,2,16384 allreduce,2,16384 alltoall,2,16384 alltoallv,2,16384 alltoallv-skew-16,2,16384 bcast,2,16384 gather,2,16384 reduce,2,16384 reduce_scatter_block,2,16384 scatter,2,16384 ' ]"
check "noise floor on stdout" grep -q '^between-launch noise floor: median [0-9.]* %, 90th percentile [0-9.]* % ([0-9]* rows at 10 points)$' "$tmp/stdout"
check "report.md opens with auto's table" [ "$(grep -m1 '^|' "$out/report.md")" = '| collective | p | size | `auto` | auto/mpi speed | best | auto/best time | auto/best, launch 2 |' ]
check "auto's table: 20 rows" [ "$(sed -n '/^| collective | p | size | `auto`/,/^$/p' "$out/report.md" | grep -c '^| [a-z_0-9-]* | 2 | ')" -eq 20 ]
check "report.md's speedup table has the v columns" grep -q '^| size (p = 2) | .* | alltoallv | alltoallv-skew-16 |$' "$out/report.md"
check "report.md floor row" grep -q '^| between-launch noise floor | median [0-9.]* %, 90th percentile [0-9.]* % ([0-9]* rows) |' "$out/report.md"
check "report.md ranking: launch 2 best at 16K" grep -q '^| scatter | 2 | 16384 | .* | `[a-z_:0-9]*` |$' "$out/report.md"
check "report.md ranking: not measured again at 1M" grep -q '^| scatter | 2 | 1048576 | .* | – |$' "$out/report.md"
check "no temp files left" bash -c "! find '$out' -name '*.tmp' -o -name '.make-report.*' | grep -q ."

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
