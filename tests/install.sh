#!/usr/bin/env bash
# make install / make uninstall: into a temporary PREFIX, then from outside
# the repository an application builds with nothing but
# `pkg-config --cflags --libs kcoll` and runs under mpirun; the installed
# kcal predicts (embedded params), benchmarks (its MPI program from
# PREFIX/libexec/kcal) and runs a plain MPI program with the installed
# interposer (kcal run --stats: the table shows libkcoll's algorithm); then
# make uninstall leaves no file behind. DESTDIR stages the same layout
# under another root while kcoll.pc keeps naming PREFIX.
set -u
cd "$(dirname "$0")/.."
command -v mpirun >/dev/null || { echo "mpirun not found"; exit 77; }
command -v mpicc >/dev/null || { echo "mpicc not found"; exit 77; }
command -v pkg-config >/dev/null || { echo "pkg-config not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_STRICT KCOLL_SIMULATE_NO_CMA \
  KCAL_BENCH_MPI KCAL_VCOLL_BENCH KCAL_SM_BENCH KCAL_PMPI_LIB KCAL_MPIRUN
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail=0
bad() { echo "FAIL $*"; fail=1; }

if make -s install PREFIX="$prefix" >"$tmp/log" 2>&1; then
  echo "ok   make install PREFIX=$prefix: $(find "$prefix" -type f | wc -l) files"
else
  bad "make install"; cat "$tmp/log"; exit 1
fi
for f in bin/kcal lib/libkcoll.a lib/libkcoll.so lib/libkcoll_pmpi.so \
         lib/pkgconfig/kcoll.pc include/kcoll.h libexec/kcal/kcal-bench-mpi libexec/kcal/kcal-vcoll-bench \
         libexec/kcal/kcal-sm-bench share/kcal/reports/times.gp share/kcal/knl.params \
         share/kcal/examples/hpccinf.txt; do
  [ -f "$prefix/$f" ] || bad "not installed: $f"
done

# An application, built from outside the repository with pkg-config only.
mkdir "$tmp/app"
cat >"$tmp/app/app.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include <kcoll.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static char buf[1 << 16];
    if (rank == 0)
        memset(buf, 'k', sizeof buf);
    int rc = kcoll_bcast(buf, sizeof buf, 0, MPI_COMM_WORLD, NULL);
    printf("rank %d: rc %d, got %c\n", rank, rc, buf[sizeof buf - 1]);
    MPI_Finalize();
    return rc != MPI_SUCCESS;
}
C
cat >"$tmp/app/plain.c" <<'C'
#include <stdio.h>
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static double x[8192];
    if (rank == 0)
        for (int i = 0; i < 8192; i++)
            x[i] = i;
    MPI_Bcast(x, 8192, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    printf("plain rank %d: %g\n", rank, x[8191]);
    MPI_Finalize();
    return x[8191] != 8191;
}
C
cd "$tmp/app" || exit 1
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs kcoll) || bad "pkg-config --cflags --libs kcoll failed"
[[ $flags == *-I$prefix/include* && $flags == *-L$prefix/lib* && $flags == *-lkcoll* && $flags == *-lmpi* ]] ||
  bad "pkg-config --cflags --libs kcoll: '$flags'"
# shellcheck disable=SC2086
if cc app.c $flags -o app 2>"$tmp/cc"; then
  echo "ok   cc app.c \$(pkg-config --cflags --libs kcoll)"
else
  bad "cc app.c $flags:"; cat "$tmp/cc"
fi
if timeout 60 mpirun --oversubscribe -np 2 -x LD_LIBRARY_PATH="$prefix/lib" ./app >"$tmp/out" 2>&1 &&
   grep -qx 'rank 0: rc 0, got k' "$tmp/out" && grep -qx 'rank 1: rc 0, got k' "$tmp/out"; then
  echo "ok   the application runs against the installed libkcoll.so"
else
  bad "the application's run:"; cat "$tmp/out"
fi
LD_LIBRARY_PATH=$prefix/lib ldd ./app | grep -q "$prefix/lib/libkcoll.so" || bad "app does not use $prefix/lib/libkcoll.so"
mpicc plain.c -o plain || bad "mpicc plain.c"

# The installed kcal, from here.
kcal=$prefix/bin/kcal
if "$kcal" predict --coll scatter --p 4 --size 1M >"$tmp/out" 2>&1 && grep -q '<- best' "$tmp/out"; then
  echo "ok   installed kcal predict (embedded params)"
else
  bad "installed kcal predict:"; cat "$tmp/out"
fi
if timeout 120 "$kcal" bench --coll bcast --p 2 --sizes 4K --iterations 3 --warmup 1 --format csv >"$tmp/out" 2>"$tmp/err" &&
   grep -q '^bcast,' "$tmp/out" && grep -Eq "running .* $prefix(/bin/\.\.)?/libexec/kcal/kcal-bench-mpi " "$tmp/err"; then
  echo "ok   installed kcal bench runs $prefix/libexec/kcal/kcal-bench-mpi"
else
  bad "installed kcal bench:"; cat "$tmp/out" "$tmp/err"
fi
if timeout 120 "$kcal" bench --coll alltoallv --counts skew:4 --p 2 --sizes 4K --iterations 3 --warmup 1 --format csv >"$tmp/out" 2>"$tmp/err" &&
   grep -q '^alltoallv-skew-4,2,4096,pairwise,' "$tmp/out" && grep -Eq "running .* $prefix(/bin/\.\.)?/libexec/kcal/kcal-vcoll-bench " "$tmp/err"; then
  echo "ok   installed kcal bench --coll alltoallv runs $prefix/libexec/kcal/kcal-vcoll-bench"
else
  bad "installed kcal bench --coll alltoallv:"; cat "$tmp/out" "$tmp/err"
fi
if timeout 60 "$kcal" run --np 2 --stats -- ./plain >"$tmp/out" 2>"$tmp/err" &&
   grep -qx 'plain rank 1: 8191' "$tmp/out" &&
   grep -Eq '^bcast +[a-z_]+(:[0-9]+)? +1 +65536 ' "$tmp/err" && ! grep -Eq '^bcast +mpi' "$tmp/err"; then
  echo "ok   installed kcal run: $(grep -E '^bcast ' "$tmp/err")"
else
  bad "installed kcal run --stats:"; cat "$tmp/out" "$tmp/err"
fi
# The application built with pkg-config above, started by the installed kcal
# run with no LD_LIBRARY_PATH of the user's: the ranks find PREFIX/lib.
if (unset LD_LIBRARY_PATH; timeout 60 "$kcal" run --np 2 --stats -- ./app) >"$tmp/out" 2>"$tmp/err" &&
   grep -qx 'rank 1: rc 0, got k' "$tmp/out" && grep -Eq '^bcast +[a-z_]+(:[0-9]+)? +1 +65536 ' "$tmp/err"; then
  echo "ok   installed kcal run starts an application linked with pkg-config kcoll"
else
  bad "installed kcal run -- ./app (linked with pkg-config kcoll):"; cat "$tmp/out" "$tmp/err"
fi
# Without its library the loader's 127 is named as such, not as a missing launcher.
mv "$prefix/lib/libkcoll.so" "$tmp/libkcoll.so.away"
(unset LD_LIBRARY_PATH; timeout 60 "$kcal" run --np 1 -- ./app) >"$tmp/out" 2>"$tmp/err"; rc=$?
mv "$tmp/libkcoll.so.away" "$prefix/lib/libkcoll.so"
if [ $rc -eq 127 ] && grep -q 'libkcoll.so: cannot open shared object file' "$tmp/err" &&
   grep -q '^kcal run: the application exited 127: it, or a shared library it needs, was not found' "$tmp/err"; then
  echo "ok   a missing libkcoll.so: exit 127, the loader's message and kcal's line naming it"
else
  bad "kcal run with libkcoll.so missing: exit $rc:"; cat "$tmp/err"
fi
preload=$(timeout 60 "$kcal" run --np 1 -- /bin/sh -c 'echo "$LD_PRELOAD"')
[ "$preload" = "$prefix/lib/libkcoll_pmpi.so" ] && echo "ok   kcal run preloads $preload" \
  || bad "kcal run preloaded '$preload', want $prefix/lib/libkcoll_pmpi.so"
cd - >/dev/null || exit 1

if make -s uninstall PREFIX="$prefix" >"$tmp/log" 2>&1; then
  left=$(find "$prefix" -type f -o -type l)
  [ -z "$left" ] && echo "ok   make uninstall left no file in $prefix" || bad "left after make uninstall: $left"
  [ -d "$prefix/libexec/kcal" ] || [ -d "$prefix/share/kcal" ] && bad "kcal's own directories are left"
else
  bad "make uninstall"; cat "$tmp/log"
fi

# DESTDIR: the files under the staging root, kcoll.pc naming PREFIX.
if make -s install PREFIX=/opt/kcal DESTDIR="$tmp/stage" >"$tmp/log" 2>&1 &&
   [ -x "$tmp/stage/opt/kcal/bin/kcal" ] && grep -qx 'prefix=/opt/kcal' "$tmp/stage/opt/kcal/lib/pkgconfig/kcoll.pc" &&
   make -s uninstall PREFIX=/opt/kcal DESTDIR="$tmp/stage" >>"$tmp/log" 2>&1 &&
   [ -z "$(find "$tmp/stage" -type f)" ]; then
  echo "ok   DESTDIR stages PREFIX's layout, and uninstalls"
else
  bad "DESTDIR install/uninstall:"; cat "$tmp/log"
fi
exit $fail
