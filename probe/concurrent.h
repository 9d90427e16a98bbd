/* concurrent: the copy rate when c processes copy at once, c = 1..C
 * (issue 9; docs/probe.md "Concurrent copies").
 *
 * γ(c) (contention.h) measures pinning under contention with 1-byte calls;
 * this measures the copies themselves: c processes, each bound to its own
 * core, wait on a process-shared barrier and then each time a batch of
 * process_vm_readv calls of N pages from the target into a buffer of its
 * own. Four patterns (raw phase "concurrent"):
 *   distinct_hot   copier i reads its own N pages again and again: the
 *                  copies stay in cache, and only what the cores share
 *                  between cache and core is contended
 *   distinct_cold  copier i rotates over its own slice of the target: the
 *                  copies come from memory, whose bandwidth the c share
 *   same_hot, same_cold  the same with every copier reading the same pages
 *                  (bcast's direct_read)
 * A batch during which its copier was preempted is left out.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_CONCURRENT_H
#define KCAL_CONCURRENT_H

#include "phases.h"
#include "raw.h"
#include "target.h"
#include "topo.h"

typedef struct {
    kcal_topo *topo;
    const kcal_target *target; /* >= max_copiers · cold_bytes */
    size_t page;
    long pages;        /* N, pages of one call */
    size_t cold_bytes; /* each copier's rotation span for the cold patterns */
    int max_copiers;   /* C */
    const long *counts; /* the c to measure */
    size_t n_counts;
    int reps, warmup, passes;
    int calls_hot, calls_cold; /* calls per timed batch */
    kcal_meter *meter;
} kcal_concurrent_setup;

/* Measure every c of counts and every pattern. 0, or -1 with err. */
int kcal_concurrent_measure(const kcal_concurrent_setup *s, kcal_raw *raw,
                            char *err, size_t errlen);

#endif
