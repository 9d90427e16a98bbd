/* phases: timing one CMA call and the phase sweeps T1, T2, T3(N) of
 * model.md ("Probing on a current Linux kernel").
 *
 *   T1 syscall  liovcnt = riovcnt = 0: returns at once
 *   T2 start-up 1 byte local, 1 byte remote
 *   T3(N)       1 byte local, N pages remote (N <= 1024): the kernel pins
 *               one batch of up to 1024 pages, copies 1 byte, unpins
 *   T3 fallback the paper's liovcnt = 0, riovcnt = N pages, for kernels on
 *               which the 1-byte read does not pin the whole range
 *
 * Every point: warm-up calls, then repeated samples; a sample times a batch
 * of back-to-back calls (enough for min_sample seconds, so the clock's own
 * cost is negligible) and records seconds per call. Samples of all points
 * are taken in many passes over the points, so a burst of load from
 * another process spreads over the curve instead of bending it; a sample
 * during which the reader was preempted (its involuntary context switches
 * grew) is taken again.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_PHASES_H
#define KCAL_PHASES_H

#include <stddef.h>
#include <sys/types.h>

#include "common/progress.h"
#include "fit/raw.h"

/* Progress over the whole probe, in abstract units of work. */
typedef struct {
    kcal_progress *pr;
    double done, total;
} kcal_meter;

void kcal_meter_tick(kcal_meter *m, const char *phase, double units);

/* Involuntary context switches of the calling thread so far (getrusage):
 * a sample during which it changed was preempted. -1 on failure. */
long kcal_involuntary_switches(void);

typedef enum {
    KCAL_CALL_SYSCALL, /* T1 */
    KCAL_CALL_STARTUP, /* T2 */
    KCAL_CALL_LOCK,    /* T3(N), 1 byte local */
    KCAL_CALL_LOCK_LIOV0, /* T3(N), liovcnt = 0 (the paper's Table III) */
    KCAL_CALL_COPY,    /* T4(N) */
    /* The same with process_vm_writev, the remote side written (issue 9) */
    KCAL_CALL_STARTUP_WRITE, /* T2 */
    KCAL_CALL_LOCK_WRITE,    /* T3(N), 1 byte local */
    KCAL_CALL_COPY_WRITE,    /* T4(N) */
} kcal_call_kind;

typedef struct {
    pid_t pid;           /* target */
    char *remote;        /* its buffer (address in the target) */
    size_t remote_bytes;
    char *local;         /* our pre-faulted buffer */
    size_t local_bytes;
    size_t page;
    int warmup;
    double min_sample;
    kcal_meter *meter;
    /* Rotation cursors (bytes) for cache-cold copies. */
    size_t rcur, lcur;
    long retaken; /* samples taken again: the reader was preempted */
    /* Test hook ($KCAL_PROBE_SIMULATE_FLAT_T3): the 1-byte T3 call locks one
     * page whatever N, as on a kernel where it does not pin the range. */
    int simulate_flat_t3;
} kcal_cma_setup;

/* Time `inner` back-to-back calls of `kind` over `pages` pages; with
 * `rotate` each call uses the next region of the remote and local buffers
 * (cache-cold), else offset 0 (cache-hot). Seconds per call, or -1 with
 * errno set when a call fails. */
double kcal_cma_time(kcal_cma_setup *s, kcal_call_kind kind, long pages,
                     int inner, int rotate);

/* Warm up and pick how many calls one sample batches. -1 on failure. */
int kcal_cma_calibrate(kcal_cma_setup *s, kcal_call_kind kind, long pages,
                       int rotate);

/* The page counts of the T3/T4 sweep: 1, 2, 4, 8, then `per_octave` points
 * per octave up to max_pages (<= 1024). Returns the count (<= max). */
size_t kcal_phases_page_list(int per_octave, long max_pages, long *out,
                             size_t max);

/* Concurrency levels to measure from lo to hi: every value up to 8, then 4
 * per octave, and hi itself (a 64-core node needs ~20 runs, not 64).
 * Returns the count (<= max). */
size_t kcal_phases_count_list(long lo, long hi, long *out, size_t max);

/* One sweep: a call kind over a list of page counts, measured pass by pass
 * so the caller can interleave sweeps (T3 and T4 of the same N then share
 * the machine's state, and load from other processes spreads over all
 * points). */
typedef struct {
    kcal_call_kind kind;
    int rotate;
    const char *phase, *pattern;
    long *pages;
    size_t n;
    int *inner; /* calls per sample, per point (calibrated) */
    int *rep;   /* samples taken so far, per point */
} kcal_sweep;

/* Calibrate (warm-up included). phase/pattern name the raw samples. 0, or
 * -1 with err. Free with kcal_sweep_free. */
int kcal_sweep_init(kcal_sweep *w, kcal_cma_setup *s, kcal_call_kind kind,
                    int rotate, const char *phase, const char *pattern,
                    const long *pages, size_t n, char *err, size_t errlen);
/* `reps` samples of every point. 0, or -1 with err. */
int kcal_sweep_pass(kcal_sweep *w, kcal_cma_setup *s, int reps, kcal_raw *raw,
                    char *err, size_t errlen);
void kcal_sweep_free(kcal_sweep *w);

#endif
