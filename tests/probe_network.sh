#!/usr/bin/env bash
# kcal probe --network on one machine: the two ranks share a node, so it
# refuses (one line saying so, exit 2, empty stdout) unless --same-node
# asks for a test; then the base params come out with net_alpha, net_beta
# and net_gap (each with its standard error), the hosts, and a net_probe
# that says it is no network; kcal predict --ppn reads the result. Bad
# option combinations and a missing base are one line and exit 2. Against
# the MPI library of $KCAL_MPI (common/mpi_flavor.sh; kcal probe reads it).
set -u
KCAL=${KCAL:-./kcal}
DATA=$(cd "$(dirname "$0")/../data" && pwd)
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect STATUS PATTERN -- command...: exit status, the last stderr line
# matching, empty stdout, at most `lines` lines on stderr.
expect() {
  local want=$1 pat=$2 lines=$3
  shift 4
  "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  [ $rc -eq "$want" ] || fail "$* exited $rc, want $want ($(cat "$tmp/err"))"
  [ ! -s "$tmp/out" ] || fail "$* wrote to stdout: $(head -c 200 "$tmp/out")"
  tail -n 1 "$tmp/err" | grep -Eq -- "$pat" || fail "$* stderr lacks /$pat/: $(cat "$tmp/err")"
  [ "$(wc -l < "$tmp/err")" -le "$lines" ] || fail "$* printed more than $lines lines on stderr"
}

expect 2 'give --params FILE .* or set KCAL_PARAMS' 1 -- env -u KCAL_PARAMS "$KCAL" probe --network
expect 2 '--same-node goes with --network' 1 -- "$KCAL" probe --same-node
expect 2 '--params goes with --network' 1 -- "$KCAL" probe --params "$DATA/knl.params"
expect 2 '--network measures the network only: --hot' 1 -- "$KCAL" probe --network --hot --params "$DATA/knl.params"
expect 2 'nonexistent.params: cannot open' 1 -- "$KCAL" probe --network --params /nonexistent.params
# One machine: both ranks on one node. Refused, with -q in one line.
expect 2 'both ranks ran on .*, one node: --network needs one rank on each of two nodes' 1 -- \
  "$KCAL" probe --network -q --quick --params "$DATA/broadwell.params"
expect 1 'network: .*cannot run|network: the network run failed' 1 -- \
  "$KCAL" probe --network -q --quick --params "$DATA/broadwell.params" --mpirun /nonexistent/mpirun

# The test mode: measured on this node's shared memory, and said so.
KCAL_PARAMS="$DATA/broadwell.params" "$KCAL" probe --network --same-node --quick > "$tmp/net.params" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "--same-node exited $rc: $(cat "$tmp/err")"
grep -q 'warning: network: both ranks ran on .* (--same-node): these keys describe its shared memory, not a network' "$tmp/err" ||
  fail "no warning that --same-node is no network: $(cat "$tmp/err")"
for k in net_alpha net_beta net_gap; do
  for s in "" _stderr _dof; do
    grep -Eq "^$k$s [0-9.e+-]+$" "$tmp/net.params" || fail "$k$s missing or not a number"
  done
done
awk '$1 == "net_beta" && !($2 > 0) { exit 1 }' "$tmp/net.params" || fail "net_beta not positive"
grep -q '^net_probe kcal probe .* --network --quick .*both ranks on one node (--same-node): a test of the probe, not a network$' "$tmp/net.params" ||
  fail "net_probe does not say it is a test: $(grep net_probe "$tmp/net.params")"
grep -Eq '^net_hosts [^ ]+ [^ ]+$' "$tmp/net.params" || fail "net_hosts"
# The base keys came through unchanged.
grep -q '^alpha 0.98e-6$' "$tmp/net.params" && grep -q '^machine broadwell$' "$tmp/net.params" || fail "base params changed"
"$KCAL" predict --coll gather --p 8 --ppn 4 --size 1M --params "$tmp/net.params" > "$tmp/pred" 2> "$tmp/err" ||
  fail "predict --ppn with the probed keys: $(cat "$tmp/err")"
grep -q 'net_probe: kcal probe' "$tmp/pred" || fail "predict does not show how the network keys were measured"

[ $fails -eq 0 ] && echo ok
exit $((fails > 0))
