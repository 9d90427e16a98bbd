/* mutual: a CMA call whose target process is itself making CMA calls at
 * that moment (issue 8; docs/probe.md "Mutual calls").
 *
 * In an allgather or alltoall every process reads (or writes) the others
 * while they read it; the probe's other measurements read passive targets.
 * On the Xeon KVM guest of docs/machine.md the full model missed exactly
 * those rows at 1-16 KiB: allgather ring_source_read_flags 2.0-2.3 µs
 * measured against 1.0-1.2 predicted, where copy_in_out (no CMA) was
 * within 0.1-0.3. A bare pair of process_vm_readv calls at 4 KiB, each
 * reading the other, took 1.22 µs against 0.98 alone: a call locks the
 * target's memory map and task, and when the target holds them for its own
 * call at the same moment the lines bounce between the cores.
 *
 * c workers (the gang, each bound to its core) make batches of 1-page
 * process_vm_readv calls at once, in two patterns (raw phase "mutual"):
 *   own      worker i reads its own passive target process (the baseline:
 *            c calls at once, as concurrent.h's own_hot, but 1 page)
 *   mutual   worker i reads worker (i + 1) mod c, which is reading its
 *            next one meanwhile: at c = 2 the two read each other
 * The difference of the medians at one c is what a call pays for its
 * target's own calls (the fit's cma_mutual). Only c >= 2.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_MUTUAL_H
#define KCAL_MUTUAL_H

#include "probe/phases.h"
#include "fit/raw.h"
#include "probe/target.h"
#include "probe/topo.h"

typedef struct {
    kcal_topo *topo;
    const kcal_target *own; /* max_workers passive targets, >= 1 page each */
    size_t page;
    int max_workers;        /* C >= 2 */
    const long *counts;     /* the c to measure, each in 2..C */
    size_t n_counts;
    int reps, warmup, passes;
    int calls;              /* calls per timed batch */
    kcal_meter *meter;
} kcal_mutual_setup;

/* Both patterns at every c of counts. 0, or -1 with err. */
int kcal_mutual_measure(const kcal_mutual_setup *s, kcal_raw *raw, char *err,
                        size_t errlen);

#endif
