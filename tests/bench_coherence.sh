#!/usr/bin/env bash
# kcal-coherence-bench, which bench-collectives asks where the host runs
# the two cores before and after each run:
#  - on this machine (two cores or more): the header, one line of six
#    numbers per sample, ratio = round / local, both a positive ratio;
#  - two cores that are one CPU (an hwloc XML topology whose second core
#    has the first one's PU, HWLOC_THISSYSTEM=1 so the binding is real):
#    the two processes take turns, so a copy while the other copies too
#    takes well over 1.5x one alone (both), and a chunk passed between
#    them waits for the scheduler (ratio far above the 9-22 of two cores);
#  - one core: exit 1, one line, nothing on stdout;
#  - bad arguments: exit 2, one line naming the argument;
#  - the reader never outlives the writer.
set -u
cd "$(dirname "$0")/.."
BIN=${BUILD:-build}/kcal-coherence-bench
[ -x "$BIN" ] || make -s "$BIN" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cp "$BIN" "$tmp/kcb"

# topo FILE PU_OF_SECOND_CORE: a one-package machine whose cores are CPU 0
# and the given PU (0: both cores are CPU 0; none: one core).
topo() {
  local second=""
  if [ "$2" != none ]; then
    second="<object type=\"Core\" os_index=\"1\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"7\"><object type=\"PU\" os_index=\"$2\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"8\"/></object>"
  fi
  cat > "$1" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">
    <object type="Package" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2">
      <object type="NUMANode" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3" local_memory="1073741824"/>
      <object type="Core" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="5">
        <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="6"/>
      </object>
      $second
    </object>
  </object>
</topology>
XML
}

# check OUT SAMPLES: the output's form; prints "max_ratio median_both".
check() {
  awk -v want="$2" '
    NR == 1 { if ($0 !~ /^# kcal-coherence-bench: [0-9]+-byte chunks, [0-9]+ rounds per sample/) bad = "header: " $0; next }
    NR == 2 { if ($0 !~ /sample +round +write +local +ratio +both$/) bad = "columns: " $0; next }
    {
      n++
      if (NF != 6) { bad = "line " NR " has " NF " fields: " $0; exit }
      for (i = 1; i <= 6; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) { bad = "line " NR ": not a number: " $i; exit }
      if ($4 <= 0 || $6 <= 0) { bad = "line " NR ": local or both not positive: " $0; exit }
      r = $2 / $4
      if (r / $5 > 1.02 + 0.01 / $5 || $5 / r > 1.02 + 0.01 / r) { bad = "line " NR ": ratio " $5 " is not round/local " r; exit }
      if ($5 > mr) mr = $5
      b[n] = $6
    }
    END {
      if (bad == "" && n != want) bad = n " samples, wanted " want
      if (bad != "") { print "BAD " bad; exit 1 }
      for (i = 2; i <= n; i++) for (j = i; j > 1 && b[j-1] > b[j]; j--) { t = b[j]; b[j] = b[j-1]; b[j-1] = t }
      print mr, b[int((n + 1) / 2)]
    }' "$1"
}

# Two CPUs here: the real machine, whatever state the host is in.
if [ "$(nproc)" -ge 2 ]; then
  "$tmp/kcb" 3 0 200 4096 > "$tmp/real.out" 2> "$tmp/real.err" ||
    fail "exit $? on this machine: $(tail -1 "$tmp/real.err")"
  res=$(check "$tmp/real.out" 3) || fail "$res"
  echo "this machine: max ratio, median both: $res"
  grep -q "sample 3 of 3" "$tmp/real.err" || fail "no progress on stderr"
fi

# Two cores that are one CPU.
topo "$tmp/same.xml" 0
HWLOC_XMLFILE="$tmp/same.xml" HWLOC_THISSYSTEM=1 timeout 60 "$tmp/kcb" 3 0 10 4096 \
  > "$tmp/same.out" 2> "$tmp/same.err" || fail "exit $? with both cores on CPU 0: $(tail -1 "$tmp/same.err")"
res=$(check "$tmp/same.out" 3) || fail "$res"
echo "one CPU as two cores: max ratio, median both: $res"
set -- $res
awk -v b="$2" 'BEGIN { exit !(b > 1.5) }' ||
  fail "both $2 on one CPU: two processes taking turns should copy at well under half the speed each"
awk -v r="$1" 'BEGIN { exit !(r > 50) }' ||
  fail "ratio $1 on one CPU: a chunk should wait for the scheduler"

# One core.
topo "$tmp/one.xml" none
HWLOC_XMLFILE="$tmp/one.xml" HWLOC_THISSYSTEM=1 "$tmp/kcb" 1 0 10 > "$tmp/one.out" 2> "$tmp/one.err"
rc=$?
[ $rc -eq 1 ] || fail "one core: exit $rc, wanted 1"
[ ! -s "$tmp/one.out" ] || fail "one core: something on stdout: $(head -1 "$tmp/one.out")"
[ "$(wc -l < "$tmp/one.err")" -eq 1 ] && grep -q "one core" "$tmp/one.err" ||
  fail "one core: stderr is not one line saying so: $(cat "$tmp/one.err")"

# Bad arguments.
for args in "0" "x" "3 0 0" "3 0 10 63" "1 0 3 64 5"; do
  # shellcheck disable=SC2086
  "$tmp/kcb" $args > "$tmp/bad.out" 2> "$tmp/bad.err"
  rc=$?
  [ $rc -eq 2 ] || fail "arguments '$args': exit $rc, wanted 2"
  [ ! -s "$tmp/bad.out" ] || fail "arguments '$args': something on stdout"
  [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] || fail "arguments '$args': stderr is not one line: $(cat "$tmp/bad.err")"
done
grep -q "usage" "$tmp/bad.err" || fail "too many arguments: no usage line"
"$tmp/kcb" x 2>&1 >/dev/null | grep -q "argument 1: 'x'" || fail "a bad first argument is not named"

# Nothing left running from this copy of the program.
sleep 0.2
! pgrep -f "$tmp/kcb" > /dev/null || fail "a reader outlived its writer: $(pgrep -af "$tmp/kcb")"
echo "ok"
