/* contention: T3(N) with c = 1..C concurrent readers, for γ(c).
 *
 * Each reader is a forked process bound (hwloc) to its own core; all c of
 * them wait on a process-shared pthread barrier in shared memory before
 * every repetition, so their calls overlap as the ranks of a one-to-all
 * collective do. Three patterns (raw phase "contention"):
 *   distinct  reader i locks pages [i·N, (i+1)·N) of one target (the
 *             paper's one-to-all; the fit uses this one)
 *   same      every reader locks the same N pages of one target
 *   own       reader i locks N pages of its own target (all-to-all: the
 *             control, where only the machine, not one mm, is shared)
 * Library code: returns error codes, never prints. */
#ifndef KCAL_CONTENTION_H
#define KCAL_CONTENTION_H

#include "probe/phases.h"
#include "fit/raw.h"
#include "probe/target.h"
#include "probe/topo.h"

typedef struct {
    kcal_topo *topo;
    const kcal_target *shared; /* >= max_readers·pages pages */
    const kcal_target *own;    /* max_readers targets, >= pages pages each */
    size_t page;
    long pages;                /* N */
    int max_readers, reps, warmup, passes;
    const long *counts;        /* the c to measure (kcal_phases_count_list) */
    size_t n_counts;
    kcal_meter *meter;
} kcal_contention_setup;

/* Measure every c of counts (<= max_readers) and every pattern. 0, or -1 with err. */
int kcal_contention_measure(const kcal_contention_setup *s, kcal_raw *raw,
                            char *err, size_t errlen);

#endif
