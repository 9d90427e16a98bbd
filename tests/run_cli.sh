#!/usr/bin/env bash
# kcal run: options and their one-line errors (exit 2, nothing started),
# the environment the ranks get (LD_PRELOAD of libkcoll_pmpi.so first, then
# the user's; --table, --params as absolute paths, --stats; KCAL_PARAMS,
# KCOLL_* from kcal's environment), the application's stdout and exit status
# passed through, --oversubscribe, --timeout (124), a missing launcher
# (127), and SIGTERM to kcal ending the whole job. Against the MPI library
# of $KCAL_MPI (common/mpi_flavor.sh; kcal run reads it too): MPICH's
# launcher and its build of the interposer.
set -u
KCAL=${KCAL:-./kcal}
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
export ASAN_OPTIONS=detect_leaks=0
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_STRICT KCAL_MPIRUN LD_PRELOAD
export KCAL_PMPI_LIB=$mpi_build/libkcoll_pmpi.so
lib=$(realpath "$KCAL_PMPI_LIB")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
cores=$(nproc)

# usage_error WANT ARGS...: exit 2, one line on stderr matching WANT, no stdout.
usage_error() {
  local want=$1; shift
  "$KCAL" run "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err"; then
    echo "ok   kcal run $*: $(cat "$tmp/err")"
  else
    bad "kcal run $*: exit $rc, stderr '$(cat "$tmp/err")', want exit 2 and '$want'"
  fi
}
usage_error "no application given"
usage_error "no application given" --np 2
usage_error "--np: 'x' is not" --np x -- true
usage_error "--np: '0' is not" --np 0 -- true
usage_error "--table /nonexistent: cannot read it" --table /nonexistent -- true
usage_error "/nonexistent: cannot open" --params /nonexistent -- true
printf 'format kcal-params-1\nalpha oops\n' >"$tmp/bad.params"
usage_error "bad.params:2:" --params "$tmp/bad.params" -- true
usage_error "cores here (--oversubscribe" --np $((cores + 1)) -- true
usage_error "unknown option" --frobnicate -- true

# The ranks' environment, as an application sees it.
show='echo "P=$LD_PRELOAD T=$KCOLL_TABLE K=$KCAL_PARAMS S=$KCOLL_STATS R=$KCOLL_STRICT"'
cp data/knl.params "$tmp/my.params"
printf '# a table\n' >"$tmp/my.table"
out=$(cd "$tmp" && "$KCAL" run --np 1 --table my.table --params my.params --stats -- /bin/sh -c "$show")
[ "$out" = "P=$lib T=$tmp/my.table K=$tmp/my.params S=1 R=" ] && echo "ok   --table, --params (absolute) and --stats reach the ranks" \
  || bad "ranks' environment: '$out'"
out=$(LD_PRELOAD=libfoo.so KCOLL_STRICT=1 KCAL_PARAMS=/x.params "$KCAL" run --np 1 --table /etc/hostname -- /bin/sh -c "$show" 2>/dev/null)
[ "$out" = "P=$lib:libfoo.so T=/etc/hostname K=/x.params S= R=1" ] && echo "ok   kcal's environment and the user's LD_PRELOAD reach the ranks" \
  || bad "ranks' environment from kcal's: '$out'"
# LD_PRELOAD is the ranks' only: the launcher (mpirun, or hydra's proxy that
# starts the ranks) does not load the interposer.
out=$("$KCAL" run --np 1 -- /bin/sh -c 'tr "\0" "\n" </proc/$PPID/environ | grep -c "^LD_PRELOAD=" || true')
[ "$out" = 0 ] && echo "ok   mpirun's own environment has no LD_PRELOAD" || bad "the launcher got LD_PRELOAD ($out)"

# Output and status pass through.
"$KCAL" run --np 2 -- /bin/sh -c 'printf "line\n"; exit 3' >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && [ "$(cat "$tmp/out")" = "$(printf 'line\nline')" ] && echo "ok   stdout of both ranks and exit 3 pass through" \
  || bad "pass-through: exit $rc, stdout '$(cat "$tmp/out")'"
"$KCAL" run --np $((cores + 1)) --oversubscribe -- true >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q 'oversubscribed' "$tmp/err" && echo "ok   --oversubscribe runs $((cores + 1)) ranks on $cores cores, and says so" \
  || bad "--oversubscribe: exit $rc: $(cat "$tmp/err")"
"$KCAL" run --np 1 --timeout 1 -- sleep 30 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 124 ] && grep -q 'timeout' "$tmp/err" && echo "ok   --timeout ends the run: exit 124" || bad "--timeout: exit $rc"
KCAL_MPIRUN=/nonexistent/mpirun "$KCAL" run --np 1 -- true >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 127 ] && grep -q "cannot run the launcher '/nonexistent/mpirun'" "$tmp/err" && echo "ok   a missing launcher: exit 127" \
  || bad "missing launcher: exit $rc: $(cat "$tmp/err")"

# SIGTERM to kcal: the job ends with it, nothing outlives it.
marker=$((RANDOM + 100000))
"$KCAL" run --np 2 -- sleep "$marker" >/dev/null 2>&1 &
kpid=$!
for _ in $(seq 50); do pgrep -f "^sleep $marker\$" >/dev/null && break; sleep 0.1; done
pgrep -f "^sleep $marker\$" >/dev/null || bad "the ranks did not start"
kill -TERM $kpid
wait $kpid
rc=$?
sleep 0.5
left=$(pgrep -f "sleep $marker" | xargs)
[ $rc -eq 143 ] && [ -z "$left" ] && echo "ok   SIGTERM to kcal run ends the job (exit $rc, nothing left)" \
  || bad "SIGTERM: exit $rc, left: $left"
exit $fail
