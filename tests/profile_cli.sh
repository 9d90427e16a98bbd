#!/usr/bin/env bash
# kcal profile: its options and their one-line errors (exit 2, nothing on
# stdout, nothing started), kcal-bench-mpi --loop's own checks, and, where
# perf can record every CPU here, real runs at p = 2: the CSV (one row per
# class per item, positive wall times and call counts, samples that add up
# to about the CPUs' time), the table, --keep, and SIGTERM leaving neither
# a process nor the /tmp directory behind. Open MPI only: the profile runs
# kcal bench's program, whose MPICH build the MPICH suite tests already.
set -u
KCAL=${KCAL:-./kcal}
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
export ASAN_OPTIONS=detect_leaks=0
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCAL_MPIRUN KCAL_PERF
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

# usage_error WANT ARGS...: exit 2, one line on stderr matching WANT, no stdout.
usage_error() {
  local want=$1; shift
  "$KCAL" profile "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err"; then
    echo "ok   kcal profile $*: $(cat "$tmp/err")"
  else
    bad "kcal profile $*: exit $rc, stderr '$(cat "$tmp/err")', want exit 2 and '$want'"
  fi
}
usage_error "--coll is required" --p 2 --size 1M
usage_error "unknown collective 'scan'" --coll scan --p 2 --size 1M
usage_error "--p is required" --coll bcast --size 1M
usage_error "--p" --coll bcast --p 1 --size 1M
usage_error "--size is required" --coll bcast --p 2
usage_error "is not one size" --coll bcast --p 2 --size 1K,2K
usage_error "--size" --coll bcast --p 2 --size 12Q
usage_error "'nope' is not mpi, auto, limit" --coll bcast --p 2 --size 1M --algorithm mpi,nope
usage_error "name its throttle factor" --coll scatter --p 4 --size 1M --algorithm throttled_read
usage_error "'throttled_read:9' is not valid at p = 4" --coll scatter --p 4 --size 1M --algorithm throttled_read:9
usage_error "--format: 'xml'" --coll bcast --p 2 --size 1M --format xml
usage_error "--keep: /nonexistent is not a writable directory" --coll bcast --p 2 --size 1M --keep /nonexistent
usage_error "--seconds" --coll bcast --p 2 --size 1M --seconds 0
usage_error "does not fit in this machine's memory" --coll alltoall --p 2 --size 1T
usage_error "unknown option" --coll bcast --p 2 --size 1M --frobnicate
# A perf that cannot run: one line naming it, exit 1, nothing on stdout.
"$KCAL" profile --coll bcast --p 2 --size 4K --perf /nonexistent/perf >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "cannot run /nonexistent/perf" "$tmp/err" \
  && echo "ok   --perf /nonexistent: $(cat "$tmp/err")" || bad "--perf /nonexistent: exit $rc, '$(cat "$tmp/err")'"

# kcal-bench-mpi --loop: one variant list, never with --check.
for args in "--coll bcast --loop" "--coll bcast --loop --algorithm direct_read --check"; do
  # shellcheck disable=SC2086
  "${mpi_run[@]}" -np 1 "$mpi_build/kcal-bench-mpi" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -ne 0 ] && [ ! -s "$tmp/out" ] && grep -q -- "--loop" "$tmp/err" \
    && echo "ok   kcal-bench-mpi $args refused: $(grep -m1 -- --loop "$tmp/err")" || bad "kcal-bench-mpi $args: exit $rc"
done

# --rounds: only with --loop, never more rounds than calls; a loop in
# rounds still gives one row per variant with all its calls.
for args in "--coll bcast --algorithm mpi --rounds 2" \
            "--coll bcast --algorithm mpi --loop --iterations 3 --rounds 4"; do
  # shellcheck disable=SC2086
  "${mpi_run[@]}" -np 1 "$mpi_build/kcal-bench-mpi" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -ne 0 ] && [ ! -s "$tmp/out" ] && grep -q -- "--rounds" "$tmp/err" \
    && echo "ok   kcal-bench-mpi $args refused: $(grep -m1 -- --rounds "$tmp/err")" || bad "kcal-bench-mpi $args: exit $rc"
done
# --twin: only with --loop, and only a fixed variant the loop measures.
for args in "--coll bcast --algorithm direct_read --twin direct_read" \
            "--coll bcast --algorithm direct_read,auto --loop --twin auto" \
            "--coll bcast --algorithm direct_read --loop --twin mpi"; do
  # shellcheck disable=SC2086
  "${mpi_run[@]}" -np 1 "$mpi_build/kcal-bench-mpi" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -ne 0 ] && [ ! -s "$tmp/out" ] && grep -q -- "--twin" "$tmp/err" \
    && echo "ok   kcal-bench-mpi $args refused: $(grep -m1 -- --twin "$tmp/err")" || bad "kcal-bench-mpi $args: exit $rc"
done
"${mpi_run[@]}" -np 1 "$mpi_build/kcal-bench-mpi" --coll bcast --sizes 4K --algorithm direct_read \
  --twin direct_read --loop --rounds 2 --iterations 10 --quiet >"$tmp/out" 2>"$tmp/err"; rc=$?
rows=$(awk -F, 'NR > 1 && $6 == 10 && $7 > 0 { print $4 }' "$tmp/out" | xargs)
[ $rc -eq 0 ] && [ "$rows" = "direct_read direct_read#2" ] \
  && echo "ok   --loop --twin: the variant's row, then its twin's" \
  || bad "--loop --twin: exit $rc, rows '$rows': $(cat "$tmp/out" "$tmp/err")"
# KCOLL_STATS counts libkcoll's calls (local copies at p = 1): direct_read's
# 10 in 3 rounds and its warm-up one, 4 KiB each.
KCOLL_STATS=1 "${mpi_run[@]}" -np 1 "$mpi_build/kcal-bench-mpi" --coll bcast --sizes 4K \
  --algorithm direct_read,mpi --loop --rounds 3 --iterations 10 --warmup 1 --quiet >"$tmp/out" 2>"$tmp/err"; rc=$?
rows=$(awk -F, 'NR > 1 && $6 == 10 && $7 > 0 { print $4 }' "$tmp/out" | sort | xargs)
kb=$(awk '$1 == "bcast" && $2 == "local" { print int($4 / 4096) }' "$tmp/out" "$tmp/err")
[ $rc -eq 0 ] && [ "$rows" = "direct_read mpi" ] && [ "$kb" = 11 ] \
  && echo "ok   --loop --rounds 3: a row of 10 calls for each variant, 11 calls of 4K run" \
  || bad "--loop --rounds 3: exit $rc, rows '$rows', $kb calls of 4K: $(cat "$tmp/out" "$tmp/err")"
# Without warm-up, one untimed set-up call of each variant (the staging
# areas and the params are made once per job, not by whichever variant
# comes first), auto's of 8 bytes: direct_read's and auto's 10 each, the
# set-up one of direct_read at 4 KiB and auto's of 8 bytes, and the
# benchmark's 1-byte CMA check (p = 1: all local copies).
KCOLL_STATS=1 "${mpi_run[@]}" -np 1 "$mpi_build/kcal-bench-mpi" --coll bcast --sizes 4K \
  --algorithm direct_read,auto --loop --rounds 2 --iterations 10 --warmup 0 --quiet >"$tmp/out" 2>"$tmp/err"; rc=$?
calls=$(awk '$1 == "bcast" && $2 == "local" { print $3, $4 }' "$tmp/err")
[ $rc -eq 0 ] && [ "$calls" = "23 86025" ] \
  && echo "ok   --loop --warmup 0: one set-up call per variant, auto's of 8 bytes" \
  || bad "--loop --warmup 0: exit $rc, calls and bytes '$calls' (want 23 86025: 21 of 4K, one of 8, one of 1): $(cat "$tmp/out" "$tmp/err")"

if ! perf record -a -e cpu-clock -q -o "$tmp/pre.data" -- true >/dev/null 2>&1; then
  echo "skip real runs: perf cannot record every CPU here (not installed, or kernel.perf_event_paranoid > 0 and not root)"
  exit $fail
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# CSV: 10 classes for each of the 2 items.
"$KCAL" profile -q --coll scatter --p 2 --size 64K --algorithm mpi,parallel_read_flags --seconds 1 \
  --format csv --keep "$tmp" >"$tmp/csv" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || bad "csv run: exit $rc: $(cat "$tmp/err")"
[ "$(head -1 "$tmp/csv")" = "collective,p,size_bytes,algorithm,class,cpu_seconds_per_call,seconds_per_call_alone,seconds_per_call_profiled,calls,oversubscribed" ] \
  && echo "ok   csv header" || bad "csv header: $(head -1 "$tmp/csv")"
[ "$(tail -n +2 "$tmp/csv" | wc -l)" -eq 20 ] && echo "ok   csv: 20 rows (2 items x 10 classes)" || bad "csv rows: $(tail -n +2 "$tmp/csv" | wc -l)"
for item in mpi parallel_read_flags; do
  for cls in cma_copy cma_pages kernel_locks kernel_other memcpy flags mpi user_other idle others; do
    [ "$(grep -c "^scatter,2,65536,$item,$cls," "$tmp/csv")" -eq 1 ] || bad "no single row $item $cls"
  done
done
# Wall times positive and under a millisecond, at least 100 calls, no
# negative class, and the classes add up to between 0.5 and 3 CPUs' worth
# of the wall time (both CPUs are sampled; perf slows the calls a little).
awk -F, 'NR > 1 { rows++
                  if (!($7 > 0 && $7 < 1e-3 && $8 > 0 && $8 < 1e-3 && $9 >= 100 && $6 >= 0 && $10 == 0)) bad = 1
                  sum[$4] += $6; wall[$4] = $8 }
         END { for (a in sum) if (!(sum[a] > 0.5 * wall[a] && sum[a] < 3 * wall[a])) bad = 1
               exit bad || rows != 20 }' "$tmp/csv" && echo "ok   csv: wall times, calls, samples add up to the CPUs' time" \
  || { bad "csv values"; cat "$tmp/csv"; }
# The libkcoll algorithm's time is its own (flags, CMA); MPI's is the library's.
awk -F, '$4 == "parallel_read_flags" && ($5 == "flags" || $5 ~ /^cma_/) { k += $6 }
         $4 == "parallel_read_flags" && $5 == "mpi" { m = $6 }
         $4 == "mpi" && $5 == "mpi" { mm = $6 } $4 == "mpi" && $5 == "flags" { mf = $6 }
         END { exit !(k > m && mm > 0 && mf == 0) }' "$tmp/csv" \
  && echo "ok   csv: parallel_read_flags spends its time in flags and CMA, mpi in the MPI library" || bad "classes by item"
ls "$tmp"/scatter-p2-64K-mpi.perf.data "$tmp"/scatter-p2-64K-parallel_read_flags.perf.data >/dev/null 2>&1 \
  && echo "ok   --keep left each item's perf.data" || bad "--keep: $(ls "$tmp")"

# The table names the MPI library, both wall-time lines and every class.
"$KCAL" profile -q --coll bcast --p 2 --size 16K --algorithm direct_split --seconds 1 >"$tmp/table" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q "^# MPI library: " "$tmp/table" && grep -q "^wall us per call, alone" "$tmp/table" \
  && grep -q "^CMA pages: find, pin, release" "$tmp/table" && grep -q "^total (about CPUs x wall)" "$tmp/table" \
  && echo "ok   table" || { bad "table: exit $rc"; cat "$tmp/table" "$tmp/err"; }

# SIGTERM mid-run: exit 143, nothing on stdout, no process, no directory.
before=$(ls -d /tmp/kcal-profile.* 2>/dev/null | sort)
"$KCAL" profile -q --coll bcast --p 2 --size 64K --algorithm direct_split --seconds 60 >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 5
kill -TERM $pid; wait $pid; rc=$?
sleep 1
left=$(pgrep -f "kcal-bench-mpi --coll bcast --sizes 65536 --algorithm direct_split --loop" | xargs)
after=$(ls -d /tmp/kcal-profile.* 2>/dev/null | sort)
[ $rc -eq 143 ] && [ ! -s "$tmp/out" ] && [ -z "$left" ] && [ "$before" = "$after" ] \
  && echo "ok   SIGTERM: exit 143, nothing left" || bad "SIGTERM: exit $rc, left '$left', dirs '$after' (were '$before')"
exit $fail
