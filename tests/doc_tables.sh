#!/usr/bin/env bash
# The tables docs/model.md, docs/libkcoll.md and tests/test_model.c hold
# between `kcal doc-tables` markers are what the registries
# (model/algorithms.def, model/keys.def) make: a row added to a registry
# without `make docs-tables` fails here. And the check itself catches a
# table that drifted, a marker left open and a table kcal does not know.
set -u
cd "$(dirname "$0")/.."
KCAL=$(realpath "${KCAL_RELEASE:-${KCAL:-./kcal}}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if scripts/doc-tables --check "$KCAL" 2>"$tmp/err"; then ok
else no "the docs differ from the registries (make docs-tables):"; cat "$tmp/err" >&2; fi

# A copy of the files, changed: each change must fail the check.
copy() {
  rm -rf "$tmp/root"; mkdir -p "$tmp/root/docs" "$tmp/root/tests"
  cp docs/model.md docs/libkcoll.md "$tmp/root/docs/"
  cp tests/test_model.c "$tmp/root/tests/"
}
check_copy() { DOC_TABLES_ROOT=$tmp/root scripts/doc-tables --check "$KCAL" >/dev/null 2>"$tmp/err"; }

copy
if check_copy; then ok; else no "an unchanged copy fails the check: $(cat "$tmp/err")"; fi

# The drift issue 31 found: copy_in_out missing from allgather's row.
copy
sed -i '/^| allgather | `ring_neighbor`/s/, `copy_in_out`//' "$tmp/root/docs/model.md"
check_copy; rc=$?
if [ $rc -eq 1 ] && grep -q 'docs/model.md differs' "$tmp/err"; then ok
else no "a row without copy_in_out: rc=$rc $(cat "$tmp/err")"; fi

copy
sed -i 's/"pairwise_flags", "copy_in_out"}/"pairwise_flags"}/' "$tmp/root/tests/test_model.c"
check_copy; rc=$?
if [ $rc -eq 1 ] && grep -q 'tests/test_model.c differs' "$tmp/err"; then ok
else no "a pin without copy_in_out: rc=$rc $(cat "$tmp/err")"; fi

copy
sed -i '/^| `sync_step` |/d' "$tmp/root/docs/model.md"
check_copy; rc=$?
if [ $rc -eq 1 ]; then ok; else no "a key row missing: rc=$rc"; fi

copy
sed -i '/end kcal doc-tables libkcoll-algorithms/d' "$tmp/root/docs/libkcoll.md"
check_copy; rc=$?
if [ $rc -eq 2 ] && grep -q 'no end marker' "$tmp/err"; then ok
else no "an open marker: rc=$rc $(cat "$tmp/err")"; fi

copy
sed -i 's/kcal doc-tables keys:/kcal doc-tables kes:/' "$tmp/root/docs/model.md"
check_copy; rc=$?
if [ $rc -eq 2 ] && grep -q 'unknown table "kes"' "$tmp/err"; then ok
else no "an unknown table: rc=$rc $(cat "$tmp/err")"; fi

# --write puts a drifted copy right.
copy
sed -i '/^| alltoall | `pairwise` |/s/, `copy_in_out`//' "$tmp/root/docs/libkcoll.md"
DOC_TABLES_ROOT=$tmp/root scripts/doc-tables --write "$KCAL" >/dev/null
if cmp -s docs/libkcoll.md "$tmp/root/docs/libkcoll.md"; then ok
else no "--write did not restore docs/libkcoll.md"; fi

echo "doc_tables: $pass passed, $fail failed"
[ $fail -eq 0 ]
