#!/usr/bin/env bash
# The libkcoll example, extracted from docs/libkcoll.md, builds against
# libkcoll.so with only -lkcoll and MPI, and against libkcoll.a with
# `make print-ldflags`, and runs at p = 3 with the expected output.
set -u
cd "$(dirname "$0")/.."
command -v mpicc >/dev/null || { echo "mpicc not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk '/^Example \(`scatter.c`\):/ {f = 1; next} f && /^```c$/ {on = 1; next} on && /^```$/ {exit} on' docs/libkcoll.md >"$tmp/scatter.c"
grep -q kcoll_scatter "$tmp/scatter.c" || { echo "docs/libkcoll.md example not found"; exit 1; }
fail=0
mpicc "$tmp/scatter.c" -Ialgos -Lalgos -lkcoll -o "$tmp/shared" || { echo "FAIL: link against libkcoll.so"; exit 1; }
# shellcheck disable=SC2046
mpicc "$tmp/scatter.c" -Ialgos $(make -s print-ldflags) -o "$tmp/static" || { echo "FAIL: static link with print-ldflags"; exit 1; }
ldd "$tmp/static" | grep -q libkcoll && { echo "FAIL: the static build needs libkcoll.so"; fail=1; }
for b in shared static; do
  if LD_LIBRARY_PATH=algos timeout 60 mpirun --oversubscribe -np 3 "$tmp/$b" >"$tmp/out" 2>&1; then
    for r in 0 1 2; do
      grep -qx "rank $r: rc 0, got $r" "$tmp/out" || { echo "FAIL: $b: no 'rank $r: rc 0, got $r'"; cat "$tmp/out"; fail=1; }
    done
  else
    echo "FAIL: $b run failed"; cat "$tmp/out"; fail=1
  fi
done
[ $fail -eq 0 ] && echo "docs/libkcoll.md example: builds both ways and runs"
exit $fail
