/* probe_run: running the measurements of a probe plan, phase by phase,
 * into raw samples: the buffers and targets, the sweeps T1..T4 (and the
 * paper's T3 on a kernel where the 1-byte read does not pin), the cache
 * knee, lines another core just wrote, chunks passed between cores,
 * concurrent copies, mutual calls, contention and T_sm through MPI, in an
 * order that spreads the slices of the time-varying ones over the run.
 * Command code: warnings go to stderr as the probe's. */
#ifndef KCAL_PROBE_RUN_H
#define KCAL_PROBE_RUN_H

#include "cmd/probe_plan.h"
#include "common/err.h"
#include "common/progress.h"
#include "fit/raw.h"
#include "probe/phases.h"
#include "probe/target.h"
#include "probe/topo.h"

/* The T1..T4 sweeps, in the order a pass runs them. */
enum {
    SWEEP_SYSCALL,    /* T1 */
    SWEEP_STARTUP,    /* T2 */
    SWEEP_LOCK,       /* T3(N), 1 byte local */
    SWEEP_COPY,       /* T4(N): cold, or hot with --hot (beta) */
    SWEEP_COPY_HOT,   /* T4(N) in cache next to the cold one (beta_hot) */
    SWEEP_PASSES,     /* the sweeps above share every pass */
    SWEEP_LOCK_LIOV0 = SWEEP_PASSES, /* T3(N) by the paper's call, only
                                      * after a flat T3 */
    SWEEP_COUNT
};

/* Everything a run holds; probe_free releases what was acquired. */
typedef struct {
    const probe_options *o;
    const probe_plan *pl;
    kcal_topo *topo;
    kcal_topo_info ti;
    long page;
    kcal_raw raw;
    kcal_target main_t; /* the T1..T4 target, and the contention one */
    kcal_target *own;   /* one per reader: patterns own, own_hot, own_cold */
    int n_own;
    char *local; /* our buffer, pre-faulted */
    size_t local_bytes;
    kcal_sweep sw[SWEEP_COUNT];
    kcal_sweep wsw[3]; /* issue 9: T2, T3(N), T4(N) written (writev) */
    kcal_cma_setup cs;
    size_t knee_remote, knee_local; /* cs's spans before the knee sized them */
    kcal_progress pr;
    kcal_meter meter;
    char err[KCAL_ERRLEN];
} probe_run;

/* What the probe is about to do, on stderr (not with -q). */
void probe_say_setup(const probe_run *r);

/* Every measurement of the plan into r->raw, then the buffers and targets
 * released. 0, or -1 with the error in r->err. */
int probe_measure(probe_run *r);

/* Release everything r acquired (safe after a failure). */
void probe_free(probe_run *r);

#endif
