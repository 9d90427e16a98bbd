/* bench_stats: the order of the variants and the statistics of the
 * iterations of kcal-bench-mpi (see bench_stats.h). */
#include "bench/bench_stats.h"
#include "common/quantile.h"

#include <stdlib.h>

/* order = a permutation of 0..n-1 drawn from seed (Fisher-Yates on an
 * xorshift stream): every rank draws the same one. */
void kcal_bench_shuffle(int *order, int n, uint64_t seed)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1) | 1;
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int j = (int)(x % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double kcal_bench_median(double *x, long n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return kcal_quantile_sorted(x, (size_t)n, 0.5);
}

/* The medians of the iterations taken in turn (0, 2, 4, ... and 1, 3,
 * 5, ...): interleaved, so both halves see the same drift of the machine,
 * and their difference is the noise of a median of iters/2 iterations.
 * x in iteration order; one iteration: both are it. */
void kcal_bench_halves(const double *x, long iters, double *h1, double *h2)
{
    if (iters < 2) {
        *h1 = *h2 = x[0];
        return;
    }
    double *a = malloc(sizeof *a * (size_t)(iters / 2 + 1));
    double *b = malloc(sizeof *b * (size_t)(iters / 2 + 1));
    if (!a || !b) {
        free(a);
        free(b);
        *h1 = *h2 = x[0];
        return;
    }
    long na = 0, nb = 0;
    for (long i = 0; i < iters; i++) {
        if (i % 2)
            b[nb++] = x[i];
        else
            a[na++] = x[i];
    }
    *h1 = kcal_bench_median(a, na);
    *h2 = kcal_bench_median(b, nb);
    free(a);
    free(b);
}
