/* kcal-copy-bench: one memcpy of n bytes against kcal_copy (common/copy.h),
 * interleaved in one run, medians of ITER copies between the same two
 * buffers (the way a collective called in a loop copies): the source on a
 * page, the destination DIST bytes past one (default 0: kcal_copy's 128 KiB
 * pieces, 64 KiB to 16 MiB; DIST 1..63: its vector loop near a page alias,
 * 4 KiB to 16 MiB). scripts/bench-copy runs it; docs/machine.md has what it
 * measured. Usage: kcal-copy-bench [ITER [DIST]] (ITER default 300). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/copy.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int iter = 300, dist = 0;
    if (argc > 3 || (argc >= 2 && (iter = atoi(argv[1])) < 1) ||
        (argc == 3 && ((dist = atoi(argv[2])) < 0 || dist > 4095))) {
        fprintf(stderr, "usage: kcal-copy-bench [ITERATIONS >= 1 "
                        "[DISTANCE 0..4095]]\n");
        return 2;
    }
    const size_t max = (size_t)16 << 20;
    char *src = aligned_alloc(4096, max);
    char *dst0 = aligned_alloc(4096, max + 4096);
    char *dst = dst0 ? dst0 + dist : NULL;
    double *whole = malloc(sizeof(double) * (size_t)iter);
    double *pieces = malloc(sizeof(double) * (size_t)iter);
    if (!src || !dst || !whole || !pieces) {
        fprintf(stderr, "kcal-copy-bench: %s\n", strerror(ENOMEM));
        return 1;
    }
    memset(src, 1, max);
    memset(dst, 2, max);
    printf("# kcal-copy-bench: median of %d copies, microseconds; dst - src "
           "= %d mod 4096\n", iter, dist);
    printf("%10s %12s %12s %8s\n", "bytes", "memcpy", "kcal_copy", "ratio");
    for (size_t n = dist ? 4096 : 64 * 1024; n <= max; n *= 2) {
        fprintf(stderr, "kcal-copy-bench: %zu bytes\n", n);
        for (int i = 0; i < iter; i++) {
            double t = now_us();
            memcpy(dst, src, n);
            whole[i] = now_us() - t;
            __asm__ volatile("" : : "r"(dst) : "memory");
            t = now_us();
            kcal_copy(dst, src, n);
            pieces[i] = now_us() - t;
            __asm__ volatile("" : : "r"(dst) : "memory");
        }
        double w = median(whole, iter), k = median(pieces, iter);
        /* ratio > 1: the pieces are faster. */
        printf("%10zu %12.2f %12.2f %8.2f\n", n, w, k, w / k);
    }
    free(src);
    free(dst0);
    free(whole);
    free(pieces);
    return 0;
}
