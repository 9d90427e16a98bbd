/* bench_stats: what kcal-bench-mpi (bench_mpi.c) makes of the times of
 * its iterations, and the order it runs the variants in: plain functions
 * of arrays, no MPI. */
#ifndef KCAL_BENCH_STATS_H
#define KCAL_BENCH_STATS_H

#include <stdint.h>

/* order = a permutation of 0..n-1 drawn from seed, the same on every
 * rank. */
void kcal_bench_shuffle(int *order, int n, uint64_t seed);

/* The median of x, which it sorts. */
double kcal_bench_median(double *x, long n);

/* The medians of the odd and of the even iterations of x (in iteration
 * order); one iteration: both are it. */
void kcal_bench_halves(const double *x, long iters, double *h1, double *h2);

#endif
