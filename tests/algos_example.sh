#!/usr/bin/env bash
# The libkcoll example, extracted from docs/libkcoll.md, builds against
# libkcoll.so with only -lkcoll and MPI, and against libkcoll.a with
# `make print-ldflags`, and runs at p = 3 with the expected output. For
# $KCAL_MPI=mpich: mpicc.mpich, -lkcoll-mpich, make MPI=mpich print-ldflags,
# mpiexec.mpich (common/mpi_flavor.sh).
set -u
cd "$(dirname "$0")/.."
. common/mpi_flavor.sh
mpi_require
command -v "$mpi_cc" >/dev/null || { echo "$mpi_cc not found"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk '/^Example \(`scatter.c`\):/ {f = 1; next} f && /^```c$/ {on = 1; next} on && /^```$/ {exit} on' docs/libkcoll.md >"$tmp/scatter.c"
grep -q kcoll_scatter "$tmp/scatter.c" || { echo "docs/libkcoll.md example not found"; exit 1; }
fail=0
"$mpi_cc" "$tmp/scatter.c" -Ialgos -Lalgos "-l${mpi_lib#lib}" -o "$tmp/shared" || { echo "FAIL: link against $mpi_lib.so"; exit 1; }
# shellcheck disable=SC2046
"$mpi_cc" "$tmp/scatter.c" -Ialgos $(MAKEFLAGS= make -s MPI="$KCAL_MPI" print-ldflags) -o "$tmp/static" || { echo "FAIL: static link with print-ldflags"; exit 1; }
ldd "$tmp/static" | grep -q libkcoll && { echo "FAIL: the static build needs libkcoll.so"; fail=1; }
LD_LIBRARY_PATH=algos ldd "$tmp/shared" | grep -q "$mpi_lib\.so => .*algos/$mpi_lib\.so" ||
  { echo "FAIL: the shared build does not load algos/$mpi_lib.so"; fail=1; }
for b in shared static; do
  if LD_LIBRARY_PATH=algos timeout 60 "${mpi_run[@]}" -np 3 "$tmp/$b" >"$tmp/out" 2>&1; then
    for r in 0 1 2; do
      grep -qx "rank $r: rc 0, got $r" "$tmp/out" || { echo "FAIL: $b: no 'rank $r: rc 0, got $r'"; cat "$tmp/out"; fail=1; }
    done
  else
    echo "FAIL: $b run failed"; cat "$tmp/out"; fail=1
  fi
done
[ $fail -eq 0 ] && echo "docs/libkcoll.md example: builds both ways against $mpi_lib and runs under $mpi_launcher"
exit $fail
