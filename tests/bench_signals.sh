#!/usr/bin/env bash
# Nothing kcal bench launches outlives it: killed with SIGTERM (its handler
# ends the job, then it dies of the signal) or with SIGKILL (the kernel
# sends mpirun SIGTERM, PR_SET_PDEATHSIG, and mpirun takes its ranks down),
# mpirun and every kcal-bench-mpi rank are gone. A stopped rank (SIGSTOP)
# does not hang it: --timeout 5 ends the job, exit 1, one line.
# The processes are found by a tag in their environment that only this
# script's kcal (and what it starts) carries, so other jobs on the machine
# are never matched; whatever carries it is killed on exit. With
# $KCAL_MPI=mpich the launcher is MPICH's hydra (mpiexec.mpich and its
# hydra_pmi_proxy), with the same promises.
set -u
KCAL=${KCAL:-./kcal}
. "$(dirname "$0")/../common/mpi_flavor.sh"
export ASAN_OPTIONS=detect_leaks=0
mpi_require
fail=0
tmp=$(mktemp -d)
export TMPDIR=$tmp
tag=bench-signals-$$-$RANDOM

tagged() { # pids of the processes that carry the tag
  grep -lzxF "KCAL_TEST_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null |
    sed 's|^/proc/\([0-9]*\)/environ$|\1|'
}
ranks() { local p; for p in $(tagged); do [ "$(cat /proc/$p/comm 2>/dev/null)" = kcal-bench-mpi ] && echo "$p"; done; }
describe() { local p; for p in $(tagged); do echo "  $p $(cat /proc/$p/comm 2>/dev/null) $(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)"; done; }
cleanup() {
  local p
  for p in $(tagged); do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# start ARGS...: kcal bench in the background with the tag, until its two
# ranks run. Sets $kcal (the pid).
start() {
  KCAL_TEST_TAG=$tag "$KCAL" bench -q --coll scatter --p 2 --sizes 1K \
    --iterations 100000000 "$@" >"$tmp/out" 2>"$tmp/err" &
  kcal=$!
  local i
  for i in $(seq 150); do
    [ "$(ranks | wc -l)" -eq 2 ] && { sleep 0.5; return 0; }
    kill -0 $kcal 2>/dev/null || break
    sleep 0.2
  done
  echo "FAIL: the ranks of kcal bench $* never ran:"; cat "$tmp/err"; fail=1
  return 1
}
# none_left WHAT: every tagged process has gone within 10 s.
none_left() {
  local i
  for i in $(seq 50); do
    [ -z "$(tagged)" ] && return 0
    sleep 0.2
  done
  echo "FAIL: $1: these outlived kcal bench:"; describe; fail=1
  for p in $(tagged); do kill -CONT "$p"; kill -KILL "$p"; done 2>/dev/null
}

# SIGTERM: the job is ended, then kcal dies of the signal (143).
if start; then
  kill -TERM $kcal; wait $kcal; rc=$?
  [ $rc -eq 143 ] || { echo "FAIL: SIGTERM: kcal bench exited $rc (want 143)"; cat "$tmp/err"; fail=1; }
  none_left "kill -TERM"
fi

# SIGKILL: kcal cannot do anything; mpirun must.
if start; then
  kill -KILL $kcal; wait $kcal 2>/dev/null
  none_left "kill -KILL"
fi

# A stopped rank: --timeout 5 ends the job; exit 1 and one line.
if start --timeout 5; then
  t0=$(date +%s)
  kill -STOP "$(ranks | head -n 1)"
  wait $kcal; rc=$?
  took=$(( $(date +%s) - t0 ))
  if [ $rc -ne 1 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
     ! grep -q 'timeout 5 s' "$tmp/err"; then
    echo "FAIL: stopped rank: exit $rc (want 1), stdout $(wc -c <"$tmp/out") bytes, stderr (want one line):"
    cat "$tmp/err"; fail=1
  fi
  [ $took -le 15 ] || { echo "FAIL: stopped rank: ended after $took s (--timeout 5)"; fail=1; }
  none_left "a stopped rank and --timeout 5"
fi
[ $fail -eq 0 ] && echo "kcal bench signals: all checks passed"
exit $fail
