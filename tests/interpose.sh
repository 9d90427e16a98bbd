#!/usr/bin/env bash
# The LD_PRELOAD interposer (libkcoll_pmpi.so, docs/interpose.md) under
# tests/interpose_check.c, a program that calls only MPI_* (and PMPI_* for
# its reference results):
#   - the library exports exactly the MPI and Fortran names it replaces, and
#     no object of libkcoll or of the interposer calls the twelve MPI_ names
#     itself (they would recurse into the interposer);
#   - the matrix at p = 1, 2, 3, 4 without the interposer (the program's own
#     checks against the MPI library) and with it, every call byte for byte equal to
#     PMPI's; its KCOLL_STATS table counts, per collective, exactly the calls
#     rank 0 made, taken by kcoll (an algorithm's row), "local" (one process)
#     or handed to the MPI library as "mpi(intercomm)", as the program says
#     they must be (types that are not contiguous, on some processes or on
#     all, are packed and still take kcoll);
#   - the reductions (--mode reduce) at p = 1, 2, 3, 4 without and with the
#     interposer: every result element against the program's own rank-order
#     fold, and the KCOLL_STATS rows of reduce, allreduce and
#     reduce_scatter_block as the program says (MPI_DOUBLE_INT: mpi(type-op));
#     also across virtual nodes, in two levels (two_level: rows);
#   - the v-collectives (--mode irregular) at p = 1, 2, 3, 4 without and
#     with the interposer: every buffer byte for byte equal to PMPI's, and
#     the KCOLL_STATS rows of scatterv, gatherv, allgatherv and alltoallv as
#     the program says (vector types packed, still kcoll's); also across
#     virtual nodes, packed in pieces, sanitized and with no state;
#   - packing in pieces and through a send to itself (KCOLL_PACK_LIMIT);
#   - the matrix and the reductions again with the interposer built with
#     ASan + UBSan;
#   - a C++ program (mpicxx) calls the same C names;
#   - errors: MPI_ERRORS_RETURN returns MPI_ERR_ROOT / MPI_ERR_COUNT, and
#     the reductions' and the v-collectives' errors (the calls are recorded
#     as mpi(invalid)); the
#     default handler aborts; an
#     error of libkcoll itself (KCOLL_STRICT=1 where CMA is "forbidden")
#     reaches the communicator's own handler once per call and is returned,
#     or aborts the job under MPI_ERRORS_ARE_FATAL.
#   - a KCOLL_TABLE decides the interposed calls; one that does not read
#     gives one warning per process, and the application still runs right,
#     on the MPI library's collectives.
#   - attributes of the program's own: on a communicator whose attribute
#     copy callback refuses (or accepts), the five collectives of 64 KiB
#     return 0 with the right data under MPI_ERRORS_RETURN, do not abort
#     under the default handler, run libkcoll's algorithms, and no copy
#     callback runs (libkcoll used to MPI_Comm_dup the communicator: the
#     refusing callback failed every call, twice per communicator);
#   - a state that cannot be built (KCOLL_SIMULATE_NO_STATE=0: on world
#     rank 0 only): one warning per process, the matrix byte for byte
#     right, and every call of rank 0 that kcoll took (an algorithm, or
#     local) is the MPI library's instead (mpi(no-state)): each of its
#     communicators has rank 0 in it. The same for the reductions.
# Against the MPI library of $KCAL_MPI (common/mpi_flavor.sh: Open MPI, or
# MPICH's build of the interposer in $BUILD-mpich).
set -u
BUILD=${BUILD:-build}
. "$(dirname "$0")/../common/mpi_flavor.sh"
mpi_require
prog=$mpi_build/tests/interpose_check
lib=$mpi_build/libkcoll_pmpi.so
for f in "$prog" "$lib"; do
  [ -e "$f" ] || { echo "interpose: $f not built (make test builds it)"; exit 1; }
done
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
command -v nm >/dev/null || { echo "nm not found"; exit 77; }
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_STRICT KCOLL_SIMULATE_NO_CMA
mpi=("${mpi_run[@]}")
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bad() { echo "FAIL $*"; fail=1; }
. "$(dirname "$0")/interpose_stats.bash"

# ---- the library's symbols ------------------------------------------------
want=$(for c in bcast scatter gather allgather alltoall reduce allreduce reduce_scatter_block \
                scatterv gatherv allgatherv alltoallv; do
  C=$(echo "$c" | tr a-z A-Z)
  echo "MPI_${C:0:1}${c:1}" "MPI_$C" "mpi_$c" "mpi_${c}_" "mpi_${c}__" "ompi_${c}_f"
done | tr ' ' '\n' | sort | xargs)
got=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort | xargs)
[ "$got" = "$want" ] && echo "ok   $lib exports the 12 C and 60 Fortran names only" \
  || bad "$lib exports '$got', want '$want'"
objs=$(ls "$mpi_build"/kcoll/algos/*.o "$mpi_build"/kcoll/interpose/*.o)
calls=$(for o in $objs; do nm -u "$o" | awk -v o="$(basename "$o")" \
  '$2 ~ /^MPI_(Bcast|Scatter|Gather|Allgather|Alltoall|Reduce|Allreduce|Reduce_scatter_block|Scatterv|Gatherv|Allgatherv|Alltoallv)$/ {print o ": " $2}'; done)
[ -z "$calls" ] && echo "ok   libkcoll's and the interposer's objects call the twelve collectives through PMPI_" \
  || bad "libkcoll calls the interposed names: $calls"

# ---- the matrix ------------------------------------------------------------
cma=1
for p in 1 2 3 4; do
  if timeout 300 "${mpi[@]}" -np $p "$prog" >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   p=$p without the interposer: $(tail -n 1 "$tmp/out")"
  else
    bad "p=$p without the interposer"; tail -n 20 "$tmp/out" "$tmp/err"
  fi
  start=$SECONDS
  if timeout 300 "${mpi[@]}" -np $p "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$prog" >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   p=$p with the interposer ($((SECONDS - start)) s): $(tail -n 1 "$tmp/out")"
  else
    bad "p=$p with the interposer"; tail -n 20 "$tmp/out" "$tmp/err"; continue
  fi
  if grep -q 'kcoll: warning: process_vm_readv is not permitted' "$tmp/err"; then
    cma=0; echo "     note: CMA is forbidden here: libkcoll ran the MPI library's collectives"
  fi
  if check_stats "$tmp/out" "$tmp/err" >"$tmp/why"; then
    echo "ok   p=$p KCOLL_STATS: $(awk '$1 == "expect" {printf "%s%s %s %s", s, $2, $3, $4; s = ", "}' "$tmp/out")"
  else
    bad "p=$p KCOLL_STATS does not count the calls as expected:"; cat "$tmp/why"; cat "$tmp/err"
  fi
  # The reductions.
  if timeout 300 "${mpi[@]}" -np $p "$prog" --mode reduce >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   p=$p reductions without the interposer: $(tail -n 1 "$tmp/out")"
  else
    bad "p=$p reductions without the interposer"; tail -n 20 "$tmp/out" "$tmp/err"
  fi
  start=$SECONDS
  if timeout 300 "${mpi[@]}" -np $p "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$prog" --mode reduce >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   p=$p reductions with the interposer ($((SECONDS - start)) s): $(tail -n 1 "$tmp/out")"
  else
    bad "p=$p reductions with the interposer"; tail -n 20 "$tmp/out" "$tmp/err"; continue
  fi
  if check_stats "$tmp/out" "$tmp/err" >"$tmp/why"; then
    echo "ok   p=$p reductions' KCOLL_STATS: $(awk '$1 == "expect" {printf "%s%s %s %s", s, $2, $3, $4; s = ", "}' "$tmp/out")"
  else
    bad "p=$p reductions' KCOLL_STATS do not count the calls as expected:"; cat "$tmp/why"; cat "$tmp/err"
  fi
  # The v-collectives.
  if timeout 300 "${mpi[@]}" -np $p "$prog" --mode irregular >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   p=$p v-collectives without the interposer: $(tail -n 1 "$tmp/out")"
  else
    bad "p=$p v-collectives without the interposer"; tail -n 20 "$tmp/out" "$tmp/err"
  fi
  start=$SECONDS
  if timeout 300 "${mpi[@]}" -np $p "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$prog" --mode irregular >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   p=$p v-collectives with the interposer ($((SECONDS - start)) s): $(tail -n 1 "$tmp/out")"
  else
    bad "p=$p v-collectives with the interposer"; tail -n 20 "$tmp/out" "$tmp/err"; continue
  fi
  if check_stats "$tmp/out" "$tmp/err" >"$tmp/why"; then
    echo "ok   p=$p v-collectives' KCOLL_STATS: $(awk '$1 == "expect" {printf "%s%s %s %s", s, $2, $3, $4; s = ", "}' "$tmp/out")"
  else
    bad "p=$p v-collectives' KCOLL_STATS do not count the calls as expected:"; cat "$tmp/why"; cat "$tmp/err"
  fi
done

# Across (virtual) nodes: groups of 2 world ranks count as nodes, so the
# world of 4 spans two and kcoll takes its calls with its two-level
# collectives; byte for byte the same, and the stats rows say two_level.
if [ $cma = 1 ]; then
  if timeout 300 "${mpi[@]}" -np 4 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_VIRTUAL_NODES=2 "$prog" >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   p=4 across virtual nodes of 2: $(tail -n 1 "$tmp/out")"
    if check_stats "$tmp/out" "$tmp/err" >"$tmp/why" &&
       [ "$(grep -cE '^(scatter|gather|bcast|allgather|alltoall) +two_level:' "$tmp/err")" -ge 5 ]; then
      echo "ok   p=4 across virtual nodes: KCOLL_STATS counts the calls, two_level rows for all five"
    else
      bad "p=4 across virtual nodes: KCOLL_STATS:"; cat "$tmp/why" "$tmp/err"
    fi
  else
    bad "p=4 across virtual nodes of 2"; tail -n 20 "$tmp/out" "$tmp/err"
  fi
  # The reductions across nodes: libkcoll's two levels (two_level_reduce.c),
  # right against the program's own fold, with two_level rows for all three.
  if timeout 300 "${mpi[@]}" -np 4 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_VIRTUAL_NODES=2 "$prog" --mode reduce >"$tmp/out" 2>"$tmp/err" &&
     check_stats "$tmp/out" "$tmp/err" >"$tmp/why"; then
    rows=0
    for c in reduce allreduce reduce_scatter_block; do
      grep -qE "^$c +two_level:" "$tmp/err" && rows=$((rows + 1))
    done
    if [ $rows = 3 ]; then
      echo "ok   p=4 reductions across virtual nodes of 2, two_level rows for all three: $(tail -n 1 "$tmp/out")"
    else
      bad "p=4 reductions across virtual nodes of 2: $rows of 3 collectives with two_level rows"; cat "$tmp/err"
    fi
  else
    bad "p=4 reductions across virtual nodes of 2"; cat "$tmp/why" 2>/dev/null; tail -n 20 "$tmp/out" "$tmp/err"
  fi
  # The v-collectives across nodes: libkcoll hands them to the MPI library
  # (its "mpi" rows, counted as kcoll's), byte for byte the same.
  if timeout 300 "${mpi[@]}" -np 4 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_VIRTUAL_NODES=2 "$prog" --mode irregular >"$tmp/out" 2>"$tmp/err" &&
     check_stats "$tmp/out" "$tmp/err" >"$tmp/why"; then
    echo "ok   p=4 v-collectives across virtual nodes of 2: $(tail -n 1 "$tmp/out")"
  else
    bad "p=4 v-collectives across virtual nodes of 2"; cat "$tmp/why" 2>/dev/null; tail -n 20 "$tmp/out" "$tmp/err"
  fi
fi

# Packing in pieces of at most 100 bytes (several elements per MPI_Pack),
# and at most 16 (a 24-byte vector element goes through a send to itself).
for limit in 100 16; do
  for mode in matrix irregular; do
    if timeout 300 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_PACK_LIMIT=$limit "$prog" --mode $mode >"$tmp/out" 2>"$tmp/err"; then
      echo "ok   p=3 KCOLL_PACK_LIMIT=$limit, --mode $mode: $(tail -n 1 "$tmp/out")"
    else
      bad "p=3 KCOLL_PACK_LIMIT=$limit, --mode $mode"; tail -n 20 "$tmp/out" "$tmp/err"
    fi
  done
done

# A KCOLL_TABLE that does not read: one warning line per process, and the
# application still runs right, every call on the MPI library's
# collectives (no algorithm row in the stats).
if [ $cma = 1 ]; then
  printf 'kcoll-table 1\nthis is not a rule\n' >"$tmp/bad.table"
  if timeout 300 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_TABLE="$tmp/bad.table" \
       "$prog" >"$tmp/out" 2>"$tmp/err"; then
    warned=$(grep -c "^kcoll: warning: \$KCOLL_TABLE: $tmp/bad.table:[0-9]*: " "$tmp/err")
    others=$(grep -c 'kcoll: warning' "$tmp/err")
    algs=$(sed -n '/^kcoll stats/,$p' "$tmp/err" | awk 'NF == 5 && $1 != "collective" && $2 != "local" && $2 !~ /^mpi/' | wc -l)
    if [ "$warned" -eq 3 ] && [ "$others" -eq 3 ] && [ "$algs" -eq 0 ] && check_stats "$tmp/out" "$tmp/err" >"$tmp/why"; then
      echo "ok   a bad KCOLL_TABLE: one warning per process, $(tail -n 1 "$tmp/out" | sed 's/.*: //'), every call on the MPI library"
    else
      bad "a bad KCOLL_TABLE: $warned table warnings ($others in all), $algs algorithm rows:"; cat "$tmp/why" "$tmp/err"
    fi
  else
    bad "a bad KCOLL_TABLE stopped the application:"; tail -n 20 "$tmp/out" "$tmp/err"
  fi
fi

# A KCOLL_TABLE that reads: with KCOLL_VERIFY=0 (no run-time check) its
# rules decide the calls through the interposer (every kcoll call of each collective runs the rule's choice,
# alltoall's 'mpi' the MPI library), and the results stay right.
if [ $cma = 1 ]; then
  cat >"$tmp/good.table" <<'T'
kcoll-table 1 by hand for tests/interpose.sh
scatter    *  *  sequential_write
gather     *  *  sequential_read
bcast      *  *  direct_write
allgather  *  *  bruck
alltoall   *  *  mpi
T
  if timeout 300 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_VERIFY=0 "$mpi_x" KCOLL_TABLE="$tmp/good.table" \
       "$prog" >"$tmp/out" 2>"$tmp/err" && ! grep -q 'kcoll: warning' "$tmp/err" &&
     awk 'FNR == NR && $1 == "expect" && $3 == "kcoll" { want[$2] = $4; next }
          FNR != NR && /^kcoll stats/ { on = 1; next }
          FNR != NR && on && NF == 5 { got[$1 " " $2] = $3 }
          END {
            split("scatter sequential_write gather sequential_read bcast direct_write allgather bruck alltoall mpi", r, " ")
            for (i = 1; i < 10; i += 2) if (got[r[i] " " r[i + 1]] != want[r[i]]) {
              print "  " r[i] " " r[i + 1] ": " got[r[i] " " r[i + 1]] + 0 " calls, want " want[r[i]]; bad = 1 }
            exit bad
          }' "$tmp/out" "$tmp/err" >"$tmp/why"; then
    echo "ok   KCOLL_TABLE's rules decide the interposed calls: $(tail -n 1 "$tmp/out" | sed 's/.*: //')"
  else
    bad "KCOLL_TABLE through the interposer:"; cat "$tmp/why" "$tmp/out" "$tmp/err" | tail -n 30
  fi
fi

# The interposer and libkcoll built with AddressSanitizer + UBSan, their
# runtimes preloaded first: the matrix and the piecewise packing again.
asan_lib=$mpi_build/pic-asan/libkcoll_pmpi.so
runtimes="$(cc -print-file-name=libasan.so):$(cc -print-file-name=libubsan.so)"
if [ -e "$asan_lib" ]; then
  if timeout 600 "${mpi[@]}" -np 3 "$mpi_x" ASAN_OPTIONS=detect_leaks=0 \
       "$mpi_x" LD_PRELOAD="$runtimes:$(realpath "$asan_lib")" "$prog" --mode reduce >"$tmp/out" 2>"$tmp/err" &&
     ! grep -q 'Sanitizer' "$tmp/err"; then
    echo "ok   p=3 sanitized interposer, reductions: $(tail -n 1 "$tmp/out")"
  else
    bad "p=3 sanitized interposer, reductions:"; tail -n 30 "$tmp/out" "$tmp/err"
  fi
  for limit in none 16; do
    extra=() label=
    [ $limit = none ] || { extra=("$mpi_x" KCOLL_PACK_LIMIT=$limit); label=" (KCOLL_PACK_LIMIT=$limit)"; }
    if timeout 600 "${mpi[@]}" -np 3 "$mpi_x" ASAN_OPTIONS=detect_leaks=0 "${extra[@]}" \
         "$mpi_x" LD_PRELOAD="$runtimes:$(realpath "$asan_lib")" "$prog" --mode irregular >"$tmp/out" 2>"$tmp/err" &&
       ! grep -q 'Sanitizer' "$tmp/err"; then
      echo "ok   p=3 sanitized interposer, v-collectives$label: $(tail -n 1 "$tmp/out")"
    else
      bad "p=3 sanitized interposer, v-collectives$label:"; tail -n 30 "$tmp/out" "$tmp/err"
    fi
  done
  for limit in none 16; do
    extra=() label=
    [ $limit = none ] || { extra=("$mpi_x" KCOLL_PACK_LIMIT=$limit); label=" (KCOLL_PACK_LIMIT=$limit)"; }
    if timeout 600 "${mpi[@]}" -np 3 "$mpi_x" ASAN_OPTIONS=detect_leaks=0 "${extra[@]}" \
         "$mpi_x" LD_PRELOAD="$runtimes:$(realpath "$asan_lib")" "$prog" >"$tmp/out" 2>"$tmp/err" &&
       ! grep -q 'Sanitizer' "$tmp/err"; then
      echo "ok   p=3 sanitized interposer$label: $(tail -n 1 "$tmp/out")"
    else
      bad "p=3 sanitized interposer$label:"; tail -n 30 "$tmp/out" "$tmp/err"
    fi
  done
else
  bad "$asan_lib not built (make test builds it)"
fi

# C++: a program compiled with mpicxx calls the same C names.
if command -v "$mpi_cxx" >/dev/null; then
  cat >"$tmp/app.cc" <<'CC'
#include <mpi.h>
#include <cstdio>
#include <vector>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    std::vector<double> mine(5000, rank + 0.5), all(5000 * p);
    MPI_Allgather(mine.data(), 5000, MPI_DOUBLE, all.data(), 5000, MPI_DOUBLE, MPI_COMM_WORLD);
    int bad = 0;
    for (int r = 0; r < p; r++)
        bad += all[5000 * r + 4999] != r + 0.5;
    std::printf("c++ rank %d: %d wrong\n", rank, bad);
    MPI_Finalize();
    return bad != 0;
}
CC
  if "$mpi_cxx" -O1 -o "$tmp/app_cc" "$tmp/app.cc" 2>"$tmp/err" &&
     timeout 60 "${mpi[@]}" -np 2 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$tmp/app_cc" >"$tmp/out" 2>"$tmp/err" &&
     [ "$(grep -c ': 0 wrong' "$tmp/out")" -eq 2 ] &&
     grep -Eq '^allgather +[a-z_]+(:[0-9]+)? +1 +80000 ' "$tmp/err" && ! grep -Eq '^allgather +mpi' "$tmp/err"; then
    echo "ok   C++ ($mpi_cxx): $(grep -E '^allgather ' "$tmp/err")"
  elif [ $cma = 0 ]; then
    echo "     note: C++ not checked: CMA is forbidden here"
  else
    bad "C++ under the interposer:"; cat "$tmp/out" "$tmp/err"
  fi
fi

# ---- attributes of the program's own, and a state that cannot be built ------
attr_ok() { # the output of a run of --mode attr at p = 3
  [ "$(grep -c '^attr: rank [0-2]: 0 wrong, copies 0$' "$tmp/out")" -eq 3 ]
}
if timeout 120 "${mpi[@]}" -np 3 "$prog" --mode attr >"$tmp/out" 2>"$tmp/err" && attr_ok; then
  echo "ok   attributes without the interposer: $(head -n 1 "$tmp/out")"
else
  bad "attributes without the interposer:"; cat "$tmp/out" "$tmp/err"
fi
for m in attr attr-fatal; do
  if timeout 120 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$prog" --mode $m >"$tmp/out" 2>"$tmp/err" &&
     attr_ok && ! grep -q 'kcoll: warning' "$tmp/err" &&
     { [ $cma = 0 ] || ! grep -Eq '^(scatter|gather|bcast|allgather|alltoall) +mpi' "$tmp/err"; }; then
    echo "ok   --mode $m: a refusing and an accepting copy callback, 64 KiB calls right, no callback run, kcoll's algorithms"
  else
    bad "--mode $m (an attribute whose copy callback refuses or counts):"; cat "$tmp/out" "$tmp/err"
  fi
done
if timeout 300 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_SIMULATE_NO_STATE=0 \
     "$prog" >"$tmp/out" 2>"$tmp/err"; then
  warned=$(grep -c '^kcoll: warning: cannot set libkcoll up on a communicator of [0-9]* processes (on \(this\|another\) process' "$tmp/err")
  others=$(grep -c 'kcoll: warning' "$tmp/err")
  # What the matrix expects kcoll or local to take, all mpi(no-state).
  awk '$1 == "expect" { n[$2 " " ($3 == "kcoll" || $3 == "local" ? "mpi(no-state)" : $3)] += $4 }
       END { for (k in n) print "expect", k, n[k] }' "$tmp/out" >"$tmp/out.nostate"
  if [ "$warned" -eq 3 ] && [ "$others" -eq 3 ] && check_stats "$tmp/out.nostate" "$tmp/err" 1 >"$tmp/why"; then
    echo "ok   KCOLL_SIMULATE_NO_STATE=0: one warning per process, $(tail -n 1 "$tmp/out" | sed 's/.*: //'), rank 0's calls all the MPI library's"
  else
    bad "KCOLL_SIMULATE_NO_STATE=0: $warned state warnings ($others in all):"; cat "$tmp/why" "$tmp/err"
  fi
else
  bad "KCOLL_SIMULATE_NO_STATE=0 stopped the application:"; tail -n 20 "$tmp/out" "$tmp/err"
fi
# The reductions likewise: what kcoll, local or libkcoll's type-op
# hand-off would take is mpi(no-state), which the interposer decides first.
if timeout 300 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_SIMULATE_NO_STATE=0 \
     "$prog" --mode reduce >"$tmp/out" 2>"$tmp/err"; then
  awk '$1 == "expect" { n[$2 " " ($3 == "mpi(intercomm)" ? $3 : "mpi(no-state)")] += $4 }
       END { for (k in n) print "expect", k, n[k] }' "$tmp/out" >"$tmp/out.nostate"
  if [ "$(grep -c 'kcoll: warning' "$tmp/err")" -eq 3 ] && check_stats "$tmp/out.nostate" "$tmp/err" >"$tmp/why"; then
    echo "ok   KCOLL_SIMULATE_NO_STATE=0, reductions: $(tail -n 1 "$tmp/out" | sed 's/.*: //'), rank 0's calls all the MPI library's"
  else
    bad "KCOLL_SIMULATE_NO_STATE=0, reductions:"; cat "$tmp/why" "$tmp/err"
  fi
else
  bad "KCOLL_SIMULATE_NO_STATE=0 stopped the reductions:"; tail -n 20 "$tmp/out" "$tmp/err"
fi
# The v-collectives likewise.
if timeout 300 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$mpi_x" KCOLL_SIMULATE_NO_STATE=0 \
     "$prog" --mode irregular >"$tmp/out" 2>"$tmp/err"; then
  awk '$1 == "expect" { n[$2 " " ($3 == "mpi(intercomm)" ? $3 : "mpi(no-state)")] += $4 }
       END { for (k in n) print "expect", k, n[k] }' "$tmp/out" >"$tmp/out.nostate"
  if [ "$(grep -c 'kcoll: warning' "$tmp/err")" -eq 3 ] && check_stats "$tmp/out.nostate" "$tmp/err" >"$tmp/why"; then
    echo "ok   KCOLL_SIMULATE_NO_STATE=0, v-collectives: $(tail -n 1 "$tmp/out" | sed 's/.*: //'), rank 0's calls all the MPI library's"
  else
    bad "KCOLL_SIMULATE_NO_STATE=0, v-collectives:"; cat "$tmp/why" "$tmp/err"
  fi
else
  bad "KCOLL_SIMULATE_NO_STATE=0 stopped the v-collectives:"; tail -n 20 "$tmp/out" "$tmp/err"
fi

# ---- errors ----------------------------------------------------------------
if timeout 120 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$mpi_x" KCOLL_STATS=1 "$prog" --mode errors >"$tmp/out" 2>"$tmp/err" &&
   [ "$(grep -c ': 0 wrong' "$tmp/out")" -eq 3 ]; then
  echo "ok   MPI_ERRORS_RETURN: a bad root and a bad count return their error class, and the reductions' and v-collectives' errors theirs"
else
  bad "MPI_ERRORS_RETURN"; cat "$tmp/out" "$tmp/err"
fi
for c in bcast:1 scatter:1 gather:1 allgather:1 reduce:1 allreduce:3 reduce_scatter_block:1 \
         scatterv:1 gatherv:1 allgatherv:1 alltoallv:1; do
  grep -Eq "^${c%:*} +mpi\(invalid\) +${c#*:} " "$tmp/err" || bad "errors: no '${c%:*} mpi(invalid) ${c#*:}' row in the stats"
done

# fatal_run NAME MARKER EXTRA...: must abort (non-zero exit, not by the
# timeout, no crash, and no MARKER line, which the program prints after
# the calls).
# Open MPI's own abort message is not checked: with several processes
# aborting at once its show_help sometimes loses it.
fatal_run() {
  local name=$1 marker=$2; shift 2
  timeout 120 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && ! grep -q "^$marker" "$tmp/out" &&
     ! grep -Eqi 'segmentation|signal 11' "$tmp/err"; then
    echo "ok   $name: the job aborted (exit $rc)"
  else
    bad "$name: exit $rc, want an abort"; cat "$tmp/out" "$tmp/err"
  fi
}
fatal_run "a bad root under MPI_ERRORS_ARE_FATAL" survived "$prog" --mode fatal

if [ $cma = 1 ]; then
  # libkcoll's own error: KCOLL_STRICT=1 where CMA is "forbidden".
  strict=("$mpi_x" KCOLL_SIMULATE_NO_CMA=1 "$mpi_x" KCOLL_STRICT=1)
  if timeout 120 "${mpi[@]}" -np 3 "$mpi_x" LD_PRELOAD="$lib" "${strict[@]}" "$prog" --mode strict >"$tmp/out" 2>"$tmp/err" &&
     [ "$(grep -c '^strict: calls 12 errors 12 class MPI_ERR_OTHER handler 12 last same$' "$tmp/out")" -eq 3 ]; then
    echo "ok   libkcoll's error reaches the communicator's handler once per call and is returned"
  else
    bad "libkcoll's error through the communicator's handler:"; cat "$tmp/out" "$tmp/err"
  fi
  fatal_run "libkcoll's error under MPI_ERRORS_ARE_FATAL" "strict:" "${strict[@]}" "$prog" --mode strict-fatal
fi
exit $fail
