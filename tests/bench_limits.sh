#!/usr/bin/env bash
# kcal bench refuses runs that cannot work here, with one line and exit 2,
# before it launches anything (a launcher that records being started proves
# it): sizes whose buffers overflow 64 bits (p*n, and p ranks' worth) or do
# not fit in this machine's memory, and process counts beyond what the
# machine allows (16 ranks per core, the task limits). kcal-bench-mpi checks
# the sizes again when run directly. An unknown option at the end of the
# command line is named as unknown (not "needs a value").
set -u
KCAL=${KCAL:-./kcal}
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
export ASAN_OPTIONS=detect_leaks=0
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
cat >"$tmp/launcher" <<'SH'
#!/bin/sh
echo "$*" >> "$(dirname "$0")/launched"
exit 0
SH
chmod +x "$tmp/launcher"

# refused WANT_IN_LINE ARGS...: exit 2, one line on stderr holding WANT_IN_LINE,
# nothing on stdout, the launcher never started.
refused() {
  local want=$1; shift
  rm -f "$tmp/launched"
  "$KCAL" bench --mpirun "$tmp/launcher" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
     ! grep -qF -- "$want" "$tmp/err" || [ -e "$tmp/launched" ]; then
    echo "FAIL: kcal bench $* -> exit $rc (want 2), stdout $(wc -c <"$tmp/out") bytes," \
         "launched: $([ -e "$tmp/launched" ] && echo yes || echo no), stderr (want one line with '$want'):"
    cat "$tmp/err"; fail=1
  fi
}
# launched ARGS...: the checks let it through to the launcher.
launched() {
  rm -f "$tmp/launched"
  "$KCAL" bench -q --mpirun "$tmp/launcher" "$@" >"$tmp/out" 2>"$tmp/err"
  [ -e "$tmp/launched" ] || { echo "FAIL: kcal bench $* was not launched:"; cat "$tmp/err"; fail=1; }
}

# Sizes: the audit's case (p*n wraps to 0: a bogus success in ~1 us), a
# product that overflows only at p = 4, and one that is merely too large.
refused 8388608T --coll alltoall --p 2 --sizes 8388608T --algorithm mpi --check
refused 4194304T --coll gather --p 4 --sizes 4194304T
refused "1T needs" --coll alltoall --p 2 --sizes 1K,1T
refused memory --coll alltoall --p 2 --sizes 1T
launched --coll alltoall --p 2 --sizes 1K,4M --check

# Process counts: the audit's 1,048,576, and one past 16 per core.
cores=$(lscpu -p=core 2>/dev/null | grep -v '^#' | sort -u | wc -l)
[ "$cores" -ge 1 ] || cores=$(nproc)
refused "at most" --coll scatter --p 1048576
refused "at most" --coll scatter --p $((16 * cores + 1))
max=$(sed -n 's/.*at most \([0-9]*\) processes.*/\1/p' "$tmp/err")
[ -n "$max" ] && [ "$max" -ge 2 ] && [ "$max" -le $((16 * cores)) ] ||
  { echo "FAIL: limit '$max' not in 2..$((16 * cores))"; fail=1; }
launched --coll scatter --p 2 --sizes 1K
# The user's process limit (root is exempt from it: try as nobody where we
# can): each rank is 3 tasks, so ulimit -u 60 leaves room for at most 17.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$KCAL"; then
  (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups bash -c \
     'ulimit -u 60 && exec "$0" bench --coll scatter --p 30 --mpirun /bin/false' "$KCAL") \
    >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q 'ulimit -u 60' "$tmp/err"; then
    echo "FAIL: --p 30 under ulimit -u 60: exit $rc (want 2), stderr:"; cat "$tmp/err"; fail=1
  fi
fi

# getopt: an unknown option last is unknown, not short of a value.
refused "unknown option '--bogus'" --coll scatter --p 2 --bogus
refused "unknown option '--bogus'" --coll scatter --p 2 --sizes 1K --bogus
refused "'--sizes' needs a value" --coll scatter --p 2 --sizes
refused "unexpected argument 'extra'" --coll scatter --p 2 extra

# Defence in depth: the MPI program checks the sizes itself.
if command -v "$mpi_launcher" >/dev/null; then
  "$mpi_launcher" -np 2 "$mpi_build/kcal-bench-mpi" --coll alltoall --sizes 8388608T --algorithm mpi \
    --check --quiet >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || ! grep -q '^kcal-bench-mpi: size 8388608T' "$tmp/err"; then
    echo "FAIL: kcal-bench-mpi with 8388608T: exit $rc (want 2), stdout:"; cat "$tmp/out" "$tmp/err"; fail=1
  fi
fi
[ $fail -eq 0 ] && echo "kcal bench limits: all checks passed"
exit $fail
