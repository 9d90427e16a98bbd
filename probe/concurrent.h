/* concurrent: the copy rate when c processes copy at once, c = 1..C
 * (issue 9; docs/probe.md "Concurrent copies").
 *
 * γ(c) (contention.h) measures pinning under contention with 1-byte calls;
 * this measures the copies themselves: c processes, each bound to its own
 * core, wait on a process-shared barrier and then each time a batch of
 * process_vm_readv calls of N pages from a target into a buffer of its
 * own. Six patterns (raw phase "concurrent"):
 *   own_hot        copier i reads N pages of its own target process again
 *                  and again: the copies stay in cache, and only what the
 *                  cores share between cache and core is contended
 *   own_cold       copier i rotates over its own target: the copies come
 *                  from memory, whose bandwidth the c share. The own_*
 *                  pair is δ(c) as the collectives see it (an allgather
 *                  ring's or alltoall's c copies read c processes)
 *   distinct_hot, distinct_cold  the same from distinct pages of one
 *                  target: the c also contend on that one process's page
 *                  tables and locks while pinning (γ(c)'s cost, so the
 *                  model does not charge it twice)
 *   same_hot, same_cold  every copier reading the same pages of one
 *                  target (bcast's direct_read)
 * A batch during which its copier was preempted is left out.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_CONCURRENT_H
#define KCAL_CONCURRENT_H

#include "probe/phases.h"
#include "fit/raw.h"
#include "probe/target.h"
#include "probe/topo.h"

typedef struct {
    kcal_topo *topo;
    const kcal_target *target; /* >= max_copiers · cold_bytes */
    const kcal_target *own;    /* max_copiers targets, one per copier,
                                * each >= cold_bytes and >= N pages */
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
