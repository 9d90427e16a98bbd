# bench-launches.awk: from N `kcal bench --format csv` files, one per
# launch of the same collective, how the speedup over the MPI library moves
# from launch to launch (scripts/bench-launches; tests/bench_launches.sh).
#
#   awk -v threshold=1.3 -f scripts/bench-launches.awk launch1.csv launch2.csv ...
#
# Per launch and size: mpi = the `mpi` row's median, best = the smallest
# median of libkcoll's algorithms (every row but mpi, auto and limit),
# limit = the `limit` row's median (the busiest process's copies alone),
# speedup = mpi / best. Per size over the launches it prints the 10th,
# 50th and 90th percentile of the speedup (nearest rank), how many launches
# fell below `threshold`, the median mpi, best and limit in microseconds,
# and the correlation (Pearson) of the speedup with limit and with best:
# launches that lose because the plain copy (and the MPI library, which
# makes the same copy) ran fast show as a correlation near +1 with limit
# and near 0 with best; launches where libkcoll itself ran slow, as one
# near -1 with best. A file without the CSV header, or a size without its
# mpi, limit or any libkcoll row, is an error naming the file and line.
BEGIN {
    FS = ","
    if (threshold == "")
        threshold = 1.3
    launches = 0
}
FNR == 1 {
    if ($0 !~ /^collective,p,size_bytes,algorithm,k,median_s/) {
        printf "bench-launches.awk: %s:1: not a kcal bench CSV (no header)\n", FILENAME > "/dev/stderr"
        bad = 1
        exit 1
    }
    flush()
    launches++
    file = FILENAME
    next
}
NF < 6 || $6 !~ /^[0-9.eE+-]+$/ || !($6 > 0) {
    printf "bench-launches.awk: %s:%d: not a row of kcal bench (median_s %s)\n", FILENAME, FNR, $6 > "/dev/stderr"
    bad = 1
    exit 1
}
{
    n = $3 + 0
    if (!(n in seen)) {
        seen[n] = 1
        order[++nsizes] = n
    }
    here[n] = 1
    if ($4 == "mpi")
        mpi[n] = $6
    else if ($4 == "limit")
        lim[n] = $6
    else if ($4 != "auto" && (!(n in best) || $6 < best[n]))
        best[n] = $6
}
# One launch is complete: keep its speedup per size.
function flush(   n, k) {
    for (n in here) {
        if (!(n in mpi) || !(n in lim) || !(n in best)) {
            printf "bench-launches.awk: %s: size %d lacks its %s row\n", file, n,
                !(n in mpi) ? "mpi" : !(n in lim) ? "limit" : "libkcoll" > "/dev/stderr"
            bad = 1
            exit 1
        }
        k = ++count[n]
        sp[n, k] = mpi[n] / best[n]
        vm[n, k] = mpi[n]
        vb[n, k] = best[n]
        vl[n, k] = lim[n]
    }
    delete here
    delete mpi
    delete lim
    delete best
}
function sortv(a, m,   i, j, t) {
    for (i = 2; i <= m; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
}
# Nearest rank: the ceil(q·m)-th smallest of m sorted values.
function rank(a, m, q,   r) {
    r = int(q * m)
    if (r < q * m)
        r++
    return a[r < 1 ? 1 : r]
}
function median_of(src, n, m,   i, t) {
    for (i = 1; i <= m; i++)
        t[i] = src[n, i]
    sortv(t, m)
    return rank(t, m, 0.5)
}
function corr(x, y, n, m,   i, mx, my, sxy, sxx, syy) {
    for (i = 1; i <= m; i++) {
        mx += x[n, i]; my += y[n, i]
    }
    mx /= m; my /= m
    for (i = 1; i <= m; i++) {
        sxy += (x[n, i] - mx) * (y[n, i] - my)
        sxx += (x[n, i] - mx) ^ 2
        syy += (y[n, i] - my) ^ 2
    }
    return sxx > 0 && syy > 0 ? sprintf("%+.2f", sxy / sqrt(sxx * syy)) : "n/a"
}
END {
    if (bad)
        exit 1
    flush()
    if (launches == 0) {
        print "bench-launches.awk: no launches" > "/dev/stderr"
        exit 1
    }
    printf "%-9s %8s %5s %6s %5s %12s %8s %8s %8s %12s %11s\n", "size", "launches", "p10",
        "median", "p90", "below_" threshold, "mpi_us", "best_us", "limit_us", "corr_limit", "corr_best"
    for (i = 1; i <= nsizes; i++) {
        n = order[i]
        m = count[n]
        below = 0
        for (j = 1; j <= m; j++) {
            s[j] = sp[n, j]
            below += sp[n, j] < threshold
        }
        sortv(s, m)
        printf "%-9d %8d %5.2f %6.2f %5.2f %5d (%3.0f%%) %8.2f %8.2f %8.2f %12s %11s\n", n, m,
            rank(s, m, 0.1), rank(s, m, 0.5), rank(s, m, 0.9), below, 100 * below / m,
            1e6 * median_of(vm, n, m), 1e6 * median_of(vb, n, m), 1e6 * median_of(vl, n, m),
            corr(sp, vl, n, m), corr(sp, vb, n, m)
        delete s
    }
}
