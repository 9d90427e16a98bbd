# bench-model.awk: the model's error on one benchmark run, the targets
# "the full model's median error <= 15 % from 16K" of issues 29 and 30
# (scripts/bench-collectives with REDUCTIONS=1 calls it T6,
# scripts/bench-irregular V5; tests/bench_model.sh feeds it made-up runs).
#
#   awk -v label=TEXT -v target=NAME -v strict=0|1 [-v bound=15] [-v from=16384] \
#       -f scripts/bench-model.awk PREDICT.csv BENCH.csv
#
# PREDICT.csv is `kcal predict --format csv` (collective,p,size_bytes,
# algorithm,k,predicted_s,rank), BENCH.csv `kcal bench --format csv` or
# kcal-vcoll-bench's (collective,p,size_bytes,algorithm,k,median_s,...),
# told apart by their headers, in either order. A measured row is joined
# with the predicted row of the same collective, p, size, algorithm and
# k; a measured row without k (the v-collectives' throttled rows, whose k
# libkcoll picks) with that algorithm's fastest predicted k, the model's
# own pick. mpi, auto and limit are no algorithm of the model. The error
# of a point is |predicted - measured| / measured; over the points from
# `from` bytes it prints one line:
#   model  LABEL: median error 8.3 % over 50 points from 16K (worst:
#          copy_in_out 32K +99 %)  ok | MISS T6 (median 18.4 % > 15 %)
# and exits 1 on a miss when strict (else "(miss T6 ...)", exit 0, as
# bench-judge.awk shows the oversubscribed runs' misses). No
# point at all is a miss too: nothing was compared. Bad input (a file
# that is neither CSV, a time that is not positive) is one line on
# stderr naming file:line, exit 2, nothing on stdout.
BEGIN {
  FS = ","
  if (bound == "") bound = 15
  if (from == "") from = 16384
  if (target == "") target = "T"
}
function lab(n) { return n >= 1048576 ? n / 1048576 "M" : n >= 1024 ? n / 1024 "K" : n }
function bad(msg) {
  printf "bench-model: %s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
  bad_input = 1
  exit 2
}
FNR == 1 {
  kind = ""
  for (i = 1; i <= NF; i++) { if ($i == "predicted_s") kind = "p"; if ($i == "median_s") kind = "m" }
  if (kind == "" || $1 != "collective" || $3 != "size_bytes" || $4 != "algorithm" || $5 != "k")
    bad("neither the CSV of kcal predict nor that of kcal bench")
  for (i = 1; i <= NF; i++) col[kind, $i] = i
  next
}
{
  t = $(col[kind, kind == "p" ? "predicted_s" : "median_s"]) + 0
  if (!(t > 0)) bad("a time that is not positive")
  if (kind == "p") {
    key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
    pk[key SUBSEP $5] = t
    if (!(key in pany) || t < pany[key]) pany[key] = t
    next
  }
  if ($4 == "mpi" || $4 == "auto" || $4 == "limit" || $3 + 0 < from) next
  m[++nm] = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
  mt[nm] = t
}
END {
  if (bad_input) exit 2
  n = 0
  for (i = 1; i <= nm; i++) {
    split(m[i], f, SUBSEP)
    key = f[1] SUBSEP f[2] SUBSEP f[3] SUBSEP f[4]
    if (f[5] != "") { if (!((key SUBSEP f[5]) in pk)) continue; p = pk[key SUBSEP f[5]] }
    else { if (!(key in pany)) continue; p = pany[key] }
    e = (p - mt[i]) / mt[i]
    a = e < 0 ? -e : e
    err[++n] = a
    if (n == 1 || a > worst) { worst = a; wsign = e; wname = f[4] (f[5] != "" ? ":" f[5] : "") " " lab(f[3] + 0) }
  }
  # insertion sort: a run has at most a few hundred points
  for (i = 2; i <= n; i++) {
    v = err[i]
    for (j = i - 1; j >= 1 && err[j] > v; j--) err[j + 1] = err[j]
    err[j + 1] = v
  }
  if (n == 0) {
    printf "model  %s: no point from %s to compare  %s %s (nothing compared)%s\n", label, lab(from), strict ? "MISS" : "(miss", target, strict ? "" : ")"
    exit strict ? 1 : 0
  }
  med = n % 2 ? err[(n + 1) / 2] : (err[n / 2] + err[n / 2 + 1]) / 2
  printf "model  %s: median error %.1f %% over %d points from %s (worst: %s %+.0f %%)", label, 100 * med, n, lab(from), wname, 100 * wsign
  if (100 * med <= bound) { printf "  ok\n"; exit 0 }
  printf "  %s %s (median %.1f %% > %s %%)%s\n", strict ? "MISS" : "(miss", target, 100 * med, bound, strict ? "" : ")"
  exit strict ? 1 : 0
}
