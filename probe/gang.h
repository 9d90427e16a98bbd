/* gang: c worker processes that make their calls at the same moment, the
 * framework under the probe's concurrent measurements (contention.h: c
 * readers pinning; concurrent.h: c copiers copying).
 *
 * Worker i is a forked process bound (hwloc) to core i. All c of a run wait
 * on a process-shared pthread barrier in shared memory before every round,
 * so their steps overlap as the ranks of a collective do, and each times
 * its step. A step during which its worker was preempted (its involuntary
 * context switches grew) timed another process: it is left out of the raw
 * samples. A worker that dies, or is still waiting after 60 s (another one
 * died), fails the run; every worker is reaped before a run returns, on
 * success and on failure.
 *
 * For every pass, every c of counts and every pattern, in that order, one
 * run of warmup + ceil(reps / passes) rounds; the rounds after the warm-up
 * become raw rows (phase, pattern, c, pages, bytes, rep, seconds per call),
 * round by round and worker by worker, rep counting on per (pattern, c).
 * Library code: returns error codes, never prints. */
#ifndef KCAL_GANG_H
#define KCAL_GANG_H

#include "probe/phases.h"
#include "fit/raw.h"
#include "probe/topo.h"

/* Called in worker `worker` (a forked child: ctx is its own copy of the
 * caller's, so it may keep per-worker state there) of a run of pattern
 * `pat`. 0, or an errno value: the worker then makes no more steps but
 * still meets the barrier, so the others finish, and the run fails with
 * "<what>: <call>: <strerror>". */
typedef int (*kcal_gang_fn)(void *ctx, int pat, int worker);

typedef struct {
    /* What the rows and the errors call things */
    const char *phase;           /* raw phase (KCAL_PHASE_*) */
    const char *const *patterns; /* raw pattern names, n_patterns of them */
    int n_patterns;
    long pages, bytes;           /* the rows' pages and bytes columns */
    const char *what;            /* errors and progress: "contention" */
    const char *worker;          /* one worker in errors: "reader" */
    const char *call;            /* what a step calls, in errors */
    /* The runs */
    kcal_topo *topo;
    int max_workers;             /* C: cores 0..C-1 */
    const long *counts;          /* the c to run, each in 1..max_workers */
    size_t n_counts;
    int reps, warmup, passes;
    /* In each worker: setup (may be NULL) once before the first round,
     * then step, timed, once per round. */
    kcal_gang_fn setup, step;
    void *ctx;
    const int *calls;            /* per pattern, the calls one step makes:
                                  * a row's seconds are per call; NULL: 1 */
    int *run_workers;            /* not NULL: set to the run's c before its
                                  * workers start (they inherit the value),
                                  * for steps that address one another */
    kcal_meter *meter;
} kcal_gang_setup;

/* Every run, its samples added to raw. 0, or -1 with err. */
int kcal_gang_measure(const kcal_gang_setup *s, kcal_raw *raw, char *err,
                      size_t errlen);

#endif
