#!/usr/bin/env bash
# kcal probe --quick on a machine hwloc describes oddly (a VM): an empty CPU
# model string and a 508 MiB last-level cache, given to hwloc as an XML
# topology (HWLOC_XMLFILE; HWLOC_THISSYSTEM=1 so binding still works) with
# one core, so it runs anywhere. Checks:
#  - H2: the params file reads back (kcal predict accepts it; the empty CPU
#    model became "unknown" instead of a key without a value);
#  - H10: the cold-copy buffers are capped (the probe says so) instead of
#    2 x 508 MiB each, faulted in before the clock started; `done (N s)`
#    counts the whole run, so it is within a second of the wall time;
#  - kcal fit on the raw samples writes the same params file;
#  - one core: no reads of lines another core just wrote (the writer's
#    core would be the reader's), no dirty_* keys, and stderr says why;
#    no chunks passed between cores, no pass_* keys, and stderr says why.
# Skips (77) where CMA is forbidden.
set -u
KCAL=${KCAL:-./kcal}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$tmp/topo.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">
    <object type="Package" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2">
      <info name="CPUModel" value=""/>
      <object type="NUMANode" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3" local_memory="1073741824"/>
      <object type="L3Cache" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4" cache_size="532676608" depth="3" cache_linesize="64" cache_associativity="16" cache_type="0">
        <object type="Core" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="5">
          <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="6"/>
        </object>
      </object>
    </object>
  </object>
</topology>
XML

start=$(date +%s%N)
HWLOC_XMLFILE="$tmp/topo.xml" HWLOC_THISSYSTEM=1 \
  "$KCAL" probe --quick --no-sm --raw "$tmp/raw.csv" > "$tmp/p.params" 2> "$tmp/err"
rc=$?
wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$tmp/err"
if [ $rc -eq 3 ]; then
  echo "skip: CMA is forbidden on this machine: $(tail -n 1 "$tmp/err")"
  exit 77
fi
[ $rc -eq 0 ] || fail "kcal probe exited $rc"
grep -q 'LLC 520192 KiB' "$tmp/err" || fail "hwloc did not take the XML topology"

grep -qx 'cpu unknown' "$tmp/p.params" || fail "no 'cpu unknown' for an empty CPU model: $(grep '^cpu' "$tmp/p.params")"
"$KCAL" predict --params "$tmp/p.params" --coll scatter --p 2 > /dev/null 2> "$tmp/pred.err" ||
  fail "kcal predict refused the probe's params: $(cat "$tmp/pred.err")"

grep -Eq 'cold-copy buffers [0-9]+ MiB each, capped' "$tmp/err" ||
  fail "the probe does not say that it capped the cold-copy buffers"
mib=$(sed -n 's/.*cold-copy buffers \([0-9]*\) MiB each.*/\1/p' "$tmp/err")
[ "${mib:-9999}" -le 256 ] || fail "cold-copy buffers of $mib MiB for a 508 MiB LLC"

done_s=$(sed -n 's/.*done (\([0-9.]*\) s).*/\1/p' "$tmp/err")
[ -n "$done_s" ] || fail "no 'done (N s)' line"
awk -v d="$done_s" -v w="$wall_ms" 'BEGIN { exit !(w / 1000 - d < 1.0) }' ||
  fail "done ($done_s s) leaves out part of the ${wall_ms} ms the command took"

grep -q 'one core: reading lines another core just wrote cannot be measured' "$tmp/err" ||
  fail "on one core the probe does not say why dirty_beta and dirty_bytes are missing"
grep -Eq '^dirty_(beta|bytes) ' "$tmp/p.params" && fail "dirty_* keys measured on one core"
grep -q '^dirty,' "$tmp/raw.csv" && fail "dirty samples taken on one core"
grep -q 'one core: passing chunks between cores cannot be measured' "$tmp/err" ||
  fail "on one core the probe does not say why pass_a, pass_b and pass_next are missing"
grep -Eq '^pass_(a|b|next|mutual|spread) ' "$tmp/p.params" && fail "pass_* keys measured on one core"
grep -q 'pass_mutual and pass_spread left out' "$tmp/err" ||
  fail "on one core the probe does not name pass_mutual among the keys left out"
grep -q '^pass,' "$tmp/raw.csv" && fail "pass samples taken on one core"
grep -q 'one core: CMA calls whose targets make their own cannot be measured; cma_mutual left out' "$tmp/err" ||
  fail "on one core the probe does not say why cma_mutual is missing"
grep -q '^cma_mutual ' "$tmp/p.params" && fail "cma_mutual measured on one core"
grep -q '^mutual,' "$tmp/raw.csv" && fail "mutual samples taken on one core"

"$KCAL" fit "$tmp/raw.csv" > "$tmp/refit.params" 2> /dev/null || fail "kcal fit exited $?"
cmp -s "$tmp/p.params" "$tmp/refit.params" || fail "kcal fit on the raw differs from the probe's params"
echo "ok: done ${done_s} s, wall ${wall_ms} ms, cold buffers ${mib} MiB"
