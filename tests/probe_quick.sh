#!/usr/bin/env bash
# A --quick probe of this machine (the CI smoke test): exit 0, every
# required key with a finite value (> 0; gamma_a >= 0, as a fit bounded at 0
# may hold it there), standard errors and metadata present; `kcal fit` on the
# raw samples it saved writes the very same params file; `kcal predict`
# accepts the file. Skips (77) where CMA is forbidden (some CI containers).
# The sm_* keys are measured with the MPI library of $KCAL_MPI
# (common/mpi_flavor.sh; kcal probe reads it too), which the file's source
# names.
set -u
KCAL=${KCAL:-./kcal}
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$KCAL" probe --quick --raw "$tmp/raw.csv" > "$tmp/p.params" 2> "$tmp/err"
rc=$?
cat "$tmp/err"
if [ $rc -eq 3 ]; then
  echo "skip: CMA is forbidden on this machine: $(tail -n 1 "$tmp/err")"
  exit 77
fi
[ $rc -eq 0 ] || fail "kcal probe --quick exited $rc"
grep -q 'reader on core' "$tmp/err" || fail "no 'reader on core' line on stderr"

val() { awk -v k="$1" '$1 == k {print $2}' "$tmp/p.params"; }
positive() { awk -v v="$1" 'BEGIN { exit !(v + 0 > 0 && v + 0 < 1e300 && v == v + 0) }'; }
nonneg() { awk -v v="$1" 'BEGIN { exit !(v + 0 >= 0 && v + 0 < 1e300 && v ~ /^[-+0-9.eE]+$/) }'; }

for k in alpha beta lock page gamma_b; do
  v=$(val $k)
  [ -n "$v" ] || fail "required key $k missing"
  positive "$v" || fail "$k = '$v' is not positive and finite"
done
v=$(val gamma_a)
[ -n "$v" ] || fail "required key gamma_a missing"
nonneg "$v" || fail "gamma_a = '$v' is not finite and >= 0"
for k in alpha_stderr beta_stderr lock_stderr gamma_a_stderr gamma_b_stderr \
         gamma_a_dof sm_bcast_a sm_gather_a sm_allgather_a sm_barrier_a; do
  v=$(val $k)
  [ -n "$v" ] || fail "key $k missing"
  nonneg "$v" || fail "$k = '$v' is not finite and >= 0"
done
for k in cpu cores sockets numa kernel hostname date l1d_cache l2_cache \
         cma_method beta_cache source; do
  grep -q "^$k " "$tmp/p.params" || fail "metadata key $k missing"
done
[ "$(val beta_cache)" = cold ] || fail "beta_cache should be cold by default"
grep -q "^source .*--mpi $KCAL_MPI" "$tmp/p.params" || fail "source does not name --mpi $KCAL_MPI: $(grep '^source' "$tmp/p.params")"
# The full model's keys: beta_hot always (measured next to the cold beta);
# sync_step when mpirun ran (the sm_* keys above say it did).
for k in beta_hot beta_hot_stderr sync_step sync_step_stderr; do
  v=$(val $k)
  [ -n "$v" ] || fail "key $k missing"
  nonneg "$v" || fail "$k = '$v' is not finite and >= 0"
done
positive "$(val beta_hot)" || fail "beta_hot = '$(val beta_hot)' is not positive"
# In cache is faster than out of cache (here ~3x; 1.2x is a loose floor).
awk -v c="$(val beta)" -v h="$(val beta_hot)" 'BEGIN { exit !(c > 1.2 * h) }' ||
  fail "beta_hot $(val beta_hot) is not clearly below the cold beta $(val beta)"
grep -q '^copy,hot,' "$tmp/raw.csv" || fail "raw file has no hot copy samples"
# The reductions' op (MPI_Reduce_local, timed in the first mpirun launch,
# which the sm_* keys above say ran): reduce_beta positive and finite with
# its standard error, from in-cache samples at 4 sizes (--quick) and one
# out of cache in the raw file.
positive "$(val reduce_beta)" || fail "reduce_beta = '$(val reduce_beta)' is not positive and finite"
nonneg "$(val reduce_beta_stderr)" || fail "reduce_beta_stderr = '$(val reduce_beta_stderr)' is not finite and >= 0"
[ "$(awk -F, '$1 == "reduce" && $2 == "hot" { b[$5] = 1 } END { print length(b) }' "$tmp/raw.csv")" -ge 2 ] ||
  fail "raw file has reduce hot samples at fewer than 2 sizes"
grep -q '^reduce,cold,1,0,' "$tmp/raw.csv" || fail "raw file has no reduce cold samples"
grep -q '^# reduce fit: t = a + rho\*b over ' "$tmp/p.params" || fail "no reduce fit line in the header"
# The (op, type class) pairs of model/reduce_rates.def, timed in the same
# launch: one of each class the probe times for (int, floating, logical,
# complex, byte, pair), each positive with its standard error and its
# comment line; the raw file holds every pair's samples (3 sizes with
# --quick, fewer only on an L2 under 64 KiB). The ops the MPI library
# vectorises (the `any` ones) may instead be left out with the fit's note
# and the header saying so: at 100 GB/s in cache a quick probe of a loaded
# machine may not resolve their slope (CI on the Zen 5 guest,
# 2026-12-07: MPI_PROD on doubles 1.3e-11 +- 4.4e-12 s/B, under the 3
# standard errors the fit asks). The branchy ones, 10-100x slower
# (land on logical, minloc), always are.
for k in max_int:max:int:any prod_floating:prod:floating:any land_logical:land:logical:key \
         sum_complex:sum:complex:any bxor_byte:bxor:byte:any minloc_pair:minloc:pair:key; do
  IFS=: read -r m op cls need <<< "$k"
  if [ "$need" = any ] && grep -q "reduce_${m}_beta: the op's time did not grow with the size" "$tmp/err"; then
    grep -q "^# reduce $op on $cls: no growth with the size, reduce_${m}_beta not written" "$tmp/p.params" ||
      fail "reduce_${m}_beta not written, and the header does not say so"
    [ -z "$(val reduce_${m}_beta)" ] || fail "reduce_${m}_beta written despite the note"
  else
    positive "$(val reduce_${m}_beta)" || fail "reduce_${m}_beta = '$(val reduce_${m}_beta)' is not positive and finite"
    nonneg "$(val reduce_${m}_beta_stderr)" || fail "reduce_${m}_beta_stderr = '$(val reduce_${m}_beta_stderr)' is not finite and >= 0"
    grep -q "^# reduce $op on $cls: rho = " "$tmp/p.params" || fail "no comment line for reduce $op on $cls"
  fi
  [ "$(awk -F, -v m="$m" '$1 == "reduce" && $2 == m { b[$5] = 1 } END { print length(b) }' "$tmp/raw.csv")" -ge 2 ] ||
    fail "raw file has reduce $m samples at fewer than 2 sizes"
  # Out of cache (1 MiB, evicted before each call, 3 samples with
  # --quick): the key with its standard error and the comment's figure,
  # or the note that says why not (fit/calibrate_reduce.c: samples
  # clearly faster than in cache were not out of cache).
  [ "$(grep -c "^reduce,${m}_cold,1,0,1048576," "$tmp/raw.csv")" -ge 3 ] ||
    fail "raw file has fewer than 3 reduce ${m}_cold samples at 1 MiB"
  grep -q "^# reduce $op on $cls: .*; out of cache 1M: " "$tmp/p.params" ||
    fail "no out-of-cache figure on the comment line for reduce $op on $cls"
  if ! grep -q "reduce_${m}_beta_cold: out of cache the op was faster" "$tmp/err"; then
    positive "$(val reduce_${m}_beta_cold)" || fail "reduce_${m}_beta_cold = '$(val reduce_${m}_beta_cold)' is not positive and finite"
    nonneg "$(val reduce_${m}_beta_cold_stderr)" || fail "reduce_${m}_beta_cold_stderr = '$(val reduce_${m}_beta_cold_stderr)' is not finite and >= 0"
  fi
done
pairs=$(grep -c '^KCAL_REDUCE_RATE(' "$(dirname "$0")/../model/reduce_rates.def")
[ "$(awk -F, '$1 == "reduce" && $2 != "hot" && $2 != "cold" && $2 !~ /_cold$/ { p[$2] = 1 } END { print length(p) }' "$tmp/raw.csv")" -eq "$pairs" ] ||
  fail "raw file has reduce samples of other than the $pairs pairs"
[ "$(awk -F, '$1 == "reduce" && $2 ~ /._cold$/ { p[$2] = 1 } END { print length(p) }' "$tmp/raw.csv")" -eq "$pairs" ] ||
  fail "raw file has reduce samples out of cache of other than the $pairs pairs"
# The hand-off measurement (kcal-sm-bench) of every collective: the MPI
# library's samples and libkcoll's in the raw file, the MPI library's line
# in the params (a 20-character name such as reduce_scatter_block's once
# fell out of the launch's output unread).
for c in scatter gather bcast allgather alltoall reduce allreduce reduce_scatter_block; do
  grep -q "^mpi_$c,mpi,2," "$tmp/raw.csv" || fail "raw file has no mpi_$c samples"
  grep -q "^kcoll_$c," "$tmp/raw.csv" || fail "raw file has no kcoll_$c samples"
  for k in mpi_${c}_a mpi_${c}_b; do
    nonneg "$(val $k)" || fail "$k = '$(val $k)' is not finite and >= 0"
  done
done
# Concurrent copies: all six patterns in the raw file; conc_hot and
# conc_cold (when there were c >= 2 copiers to fit) from the own_* ones.
for pat in own_hot own_cold distinct_hot distinct_cold same_hot same_cold; do
  grep -q "^concurrent,$pat,1,64," "$tmp/raw.csv" ||
    fail "raw file has no $pat concurrent copies"
done
for k in conc_hot conc_cold; do
  [ -z "$(val $k)" ] && continue
  grep -q "^# $k = slope .* of own_${k#conc_} (each copier reading its own target process)" "$tmp/p.params" ||
    fail "$k not fitted from own_${k#conc_}: $(grep "^# $k" "$tmp/p.params")"
done
# Lines another core just wrote (2 cores or more): dirty_beta and
# dirty_bytes with their standard errors, from both patterns' samples; or,
# when the fit found nothing to write, the note that says why.
if grep -q '^dirty_beta ' "$tmp/p.params"; then
  for k in dirty_beta dirty_bytes; do
    positive "$(val $k)" || fail "$k = '$(val $k)' is not positive and finite"
    nonneg "$(val ${k}_stderr)" || fail "${k}_stderr = '$(val ${k}_stderr)' is not finite and >= 0"
  done
  grep -q '^dirty,clean,' "$tmp/raw.csv" && grep -q '^dirty,dirty,' "$tmp/raw.csv" ||
    fail "dirty_beta without clean and dirty samples in the raw file"
else
  grep -q 'dirty_beta, dirty_bytes' "$tmp/err" ||
    fail "no dirty_beta and dirty_bytes, and no note why"
fi
# The working-set copies (beta_ws_*) in KCAL_KNEE_SLICES = 3 slices over
# the run, their reps numbered on: every point of the cma pattern has the
# quick probe's 12 samples, reps 0..11, each once.
awk -F, '$1 == "ws" && $2 == "cma" { n[$4]++; r[$4 "," $6]++; if ($6 > top[$4]) top[$4] = $6 }
  END { pts = 0; for (k in n) { pts++; if (n[k] != 12 || top[k] != 11) { print "ws point " k ": " n[k] " samples, last rep " top[k]; bad = 1 } }
        for (k in r) if (r[k] != 1) { print "ws rep repeated: " k; bad = 1 }
        if (!pts) { print "no ws rows"; bad = 1 }
        exit bad }' "$tmp/raw.csv" || fail "the working sets were not measured in 3 slices of 4 passes"
# Each working set the memcpy copies were measured at has its rate
# (memcpy_ws_*, positive): the full model prices a process's own copies
# with it.
want=$(awk -F, '$1 == "ws" && $2 == "memcpy" { w[$4] = 1 } END { print length(w) }' "$tmp/raw.csv")
got=0
for k in $(grep -o '^memcpy_ws_[0-9a-z]* ' "$tmp/p.params"); do
  positive "$(val $k)" || fail "$k = '$(val $k)' is not positive"
  got=$((got + 1))
done
[ "$want" -gt 0 ] && [ "$got" = "$want" ] ||
  fail "$got memcpy_ws_* keys for $want working sets of memcpy samples"
# ... at three moments: the raw file (in the order measured) holds three
# separate stretches of ws rows, other phases between them.
blocks=$(awk -F, '!/^#/ { ws = $1 == "ws"; if (ws && !prev) b++; prev = ws } END { print b + 0 }' "$tmp/raw.csv")
[ "$blocks" = 3 ] || fail "ws rows in $blocks stretches of the raw file, not 3 slices"

# Concurrent copies and contention (2 cores or more): one copier and two
# alternate in 4 passes each (the quick probe's), so both counts see the
# same moments of a host whose speed changes (docs/probe.md): among the
# rows of the phase, the one-copier rows of a pattern come in 4 stretches.
stretches() { # phase pattern
  awk -F, -v ph="$1" -v pat="$2" '!/^#/ && $1 == ph { one = $2 == pat && $3 == 1; if (one && !prev) b++; prev = one } END { print b + 0 }' "$tmp/raw.csv"
}
if grep -q '^concurrent,own_hot,2,' "$tmp/raw.csv"; then
  [ "$(stretches concurrent own_hot)" = 4 ] || fail "concurrent own_hot: one copier in $(stretches concurrent own_hot) stretches, not 4 passes"
  [ "$(stretches contention own)" = 4 ] || fail "contention own: one reader in $(stretches contention own) stretches, not 4 passes"
fi

# Mutual calls (2 cores or more): 1-page reads of each one's own target
# and of each other, both at every c >= 2 in 4 passes (each pattern's rows
# in 4 stretches), and cma_mutual with its standard error; or the warning
# that says why it is missing.
if grep -q '^concurrent,own_hot,2,' "$tmp/raw.csv"; then
  for pat in own mutual; do
    grep -q "^mutual,$pat,2,1,4096," "$tmp/raw.csv" || fail "raw file has no mutual $pat rows at c = 2"
    [ "$(awk -F, -v pat=$pat '!/^#/ && $1 == "mutual" { m = $2 == pat; if (m && !prev) b++; prev = m } END { print b + 0 }' "$tmp/raw.csv")" = 4 ] ||
      fail "mutual $pat rows not in 4 passes"
  done
  ! grep -q '^mutual,[a-z]*,1,' "$tmp/raw.csv" || fail "mutual rows at c = 1 (only c >= 2 read each other)"
  nonneg "$(val cma_mutual)" || fail "cma_mutual = '$(val cma_mutual)' is not finite and >= 0"
  nonneg "$(val cma_mutual_stderr)" || fail "cma_mutual_stderr = '$(val cma_mutual_stderr)' is not finite and >= 0"
  grep -q '^# mutual calls, 1 page: mutual - own per call = c=2 ' "$tmp/p.params" ||
    fail "no mutual - own difference in the params' comment"
else
  grep -q 'cma_mutual left out' "$tmp/err" || fail "one core: no cma_mutual and no warning why"
fi

# Chunks passed between cores (2 cores or more): pass_a, pass_b, pass_next,
# pass_mutual and pass_spread with standard errors, from cross and local
# streams of 1 and 8 chunks in each of 5 slices of the run (mutual ones of
# 16K only); or
# the note that says why they are missing.
if grep -q '^pass_a ' "$tmp/p.params"; then
  for k in pass_a pass_b pass_next pass_mutual; do
    nonneg "$(val $k)" || fail "$k = '$(val $k)' is not finite and >= 0"
    nonneg "$(val ${k}_stderr)" || fail "${k}_stderr = '$(val ${k}_stderr)' is not finite and >= 0"
  done
  for pat in cross local; do
    grep -q "^pass,$pat,1,0,1024," "$tmp/raw.csv" && grep -q "^pass,$pat,8,4,16384," "$tmp/raw.csv" ||
      fail "pass keys without $pat streams of 1 and 8 chunks in the first and last slices of the raw file"
  done
  grep -q "^pass,mutual,1,0,16384," "$tmp/raw.csv" && grep -q "^pass,mutual,8,4,16384," "$tmp/raw.csv" ||
    fail "pass keys without mutual streams of 1 and 8 chunks of 16K in the first and last slices of the raw file"
  ! grep -q "^pass,mutual,[0-9]*,[0-9]*,1024," "$tmp/raw.csv" ||
    fail "mutual streams of 1K chunks: the probe measures them at 16K only"
  grep -q '^# chunks passed both ways at once, extra per stream T_mutual - T_local in us: 1x16K [0-9.e+-]* \[[0-9.e+-]*\] 8x16K .*; each further chunk: ' "$tmp/p.params" ||
    fail "no header line for the mutual streams"
  grep -q '^# chunks passed between cores.*second dearest of 5 slice(s)' "$tmp/p.params" ||
    fail "the pass was not measured in 5 slices"
  grep -q '^# pass fit: E(1, c) = a + b\*c over 3 sizes' "$tmp/p.params" ||
    fail "no pass fit line in the header"
  # How far the pass moved over the 5 slices (8 passes each): >= 1.
  awk -v v="$(val pass_spread)" 'BEGIN { exit !(v ~ /^[-+0-9.eE]+$/ && v + 0 >= 1) }' ||
    fail "pass_spread = '$(val pass_spread)' is not a number >= 1"
  nonneg "$(val pass_spread_stderr)" || fail "pass_spread_stderr = '$(val pass_spread_stderr)' is not finite and >= 0"
  grep -q '^# pass spread: a further chunk of 16K across the cores, copies included, median per slice in us:\( [0-9.e+-]*\)\{5\}; pass_spread ' "$tmp/p.params" ||
    fail "no pass spread line with 5 slices' medians in the header"
else
  grep -q 'pass_a, pass_b, pass_next' "$tmp/err" ||
    fail "no pass_a, pass_b and pass_next, and no note why"
fi
"$KCAL" predict --model full --params "$tmp/p.params" --coll bcast --p 2 \
    > "$tmp/predfull" 2> "$tmp/predfull.err" ||
  fail "kcal predict --model full refused the probe's params: $(cat "$tmp/predfull.err")"
grep -q 'warning: model full' "$tmp/predfull.err" &&
  fail "kcal predict --model full fell back although the probe wrote every key: $(cat "$tmp/predfull.err")"
head -n 1 "$tmp/raw.csv" | grep -q '^# meta ' || fail "raw file has no meta lines"
grep -qx 'phase,pattern,readers,pages,bytes,rep,seconds' "$tmp/raw.csv" ||
  fail "raw file lacks the header"

"$KCAL" fit "$tmp/raw.csv" > "$tmp/refit.params" 2> "$tmp/fit.err" ||
  fail "kcal fit exited $?: $(cat "$tmp/fit.err")"
cmp "$tmp/p.params" "$tmp/refit.params" || {
  diff "$tmp/p.params" "$tmp/refit.params"
  fail "kcal fit on the saved raw differs from the probe's params"
}
"$KCAL" fit --points "$tmp/raw.csv" > "$tmp/points.csv" || fail "kcal fit --points exited $?"
head -n 1 "$tmp/points.csv" | grep -qx 'phase,pattern,readers,pages,bytes,n,median_s,spread_s,se_s' ||
  fail "kcal fit --points: wrong header"
grep -q '^lock,one_byte_local,1,1024,1,' "$tmp/points.csv" || fail "kcal fit --points: no T3(1024) row"
grep -q '^contention,distinct,2,1024,1,' "$tmp/points.csv" || fail "kcal fit --points: no c = 2 row"
"$KCAL" predict --params "$tmp/p.params" --coll scatter --p 2 > "$tmp/pred" 2>&1 ||
  fail "kcal predict refused the probe's params: $(cat "$tmp/pred")"
echo "ok: alpha $(val alpha) lock $(val lock) beta $(val beta) gamma_b $(val gamma_b)"
