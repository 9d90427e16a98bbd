#!/usr/bin/env bash
# libkcoll.so exports exactly kcoll.h's public functions (KCOLL_API) and
# nothing else: no model or params code, no internal kcoll_* helpers, no
# test hooks. The library is built with -fvisibility=hidden (algos/module.mk).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
so=
for d in "${BUILD:+$BUILD/..}" "${KCAL_RELEASE:+$(dirname "$KCAL_RELEASE")}" "$here"; do
  [ -n "$d" ] && [ -f "$d/algos/libkcoll.so" ] && { so=$d/algos/libkcoll.so; break; }
done
[ -n "$so" ] || { echo "algos_exports: libkcoll.so not found (make lib builds it)"; exit 1; }
command -v nm >/dev/null || { echo "nm not found"; exit 77; }
want="kcoll_allgather kcoll_alltoall kcoll_bcast kcoll_gather kcoll_scatter"
# What the header marks public must be that list too.
declared=$(grep -o 'KCOLL_API int kcoll_[a-z_]*' "$here/algos/kcoll.h" | awk '{print $3}' | sort | xargs)
got=$(nm -D --defined-only "$so" | awk '{print $NF}' | sort | xargs)
fail=0
[ "$declared" = "$want" ] || { echo "FAIL: kcoll.h marks '$declared' KCOLL_API, want '$want'"; fail=1; }
[ "$got" = "$want" ] || { echo "FAIL: $so exports '$got', want '$want'"; fail=1; }
[ $fail -eq 0 ] && echo "libkcoll.so exports exactly: $got"
exit $fail
