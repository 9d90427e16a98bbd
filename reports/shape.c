/* shape: an algorithm's steps and concurrency (shape.h). */
#include "shape.h"

#include <string.h>

#include "model.h"

kcal_shape kcal_shape_of(const char *alg, int p, int k)
{
    kcal_shape s = {.steps = 1, .concurrent = p};
    if (!strcmp(alg, "parallel_read") || !strcmp(alg, "parallel_write") ||
        !strcmp(alg, "direct_read")) {
        s.steps = 1;
        s.concurrent = p;
    } else if (!strcmp(alg, "sequential_write") ||
               !strcmp(alg, "sequential_read") ||
               !strcmp(alg, "direct_write")) {
        s.steps = p;
        s.concurrent = 1;
    } else if (!strncmp(alg, "throttled_", 10)) {
        s.steps = k ? (p + k - 1) / k : p;
        s.concurrent = k ? k : 1;
    } else if (!strcmp(alg, "knomial")) {
        s.steps = k ? kcal_ceil_log_k(p, k) : 1;
        s.concurrent = k ? k : 1;
    } else if (!strncmp(alg, "ring_", 5) || !strcmp(alg, "pairwise")) {
        s.steps = p > 1 ? p - 1 : 1;
        s.concurrent = p;
    } else if (!strcmp(alg, "recursive_doubling") || !strcmp(alg, "bruck")) {
        s.steps = kcal_ceil_log2(p);
        s.concurrent = p;
    } else if (!strcmp(alg, "scatter_allgather")) {
        s.steps = 2 * p - 1;
        s.concurrent = p;
    }
    if (s.steps < 1)
        s.steps = 1;
    /* model.md's sequential rows as printed in the paper charge p transfers
     * although the root's own block is a local copy or already in place;
     * scatter_allgather's scatter half is one of them. */
    s.p_transfers = !strcmp(alg, "sequential_write") ||
                    !strcmp(alg, "sequential_read") ||
                    !strcmp(alg, "direct_write") ||
                    !strcmp(alg, "scatter_allgather");
    return s;
}
