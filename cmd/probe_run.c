/* probe_run: the measurements of a probe plan (see probe_run.h). */
#include "cmd/probe_run.h"
#include "cmd/cli.h"
#include "fit/calibrate.h"
#include "probe/bandwidth.h"
#include "probe/concurrent.h"
#include "probe/contention.h"
#include "probe/dirty.h"
#include "probe/knee.h"
#include "probe/load.h"
#include "probe/mutual.h"
#include "probe/pass.h"
#include "probe/sm.h"
#include "model/keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const char *const CMD = PROBE_CMD;

/* The targets and our buffer: released as soon as the measuring is over,
 * as the user waits for that too. Safe to call twice. */
static void release_buffers(probe_run *r)
{
    for (int i = 0; i < r->n_own; i++)
        kcal_target_stop(&r->own[i]);
    free(r->own);
    r->own = NULL;
    r->n_own = 0;
    kcal_target_stop(&r->main_t);
    if (r->local != MAP_FAILED)
        munmap(r->local, r->local_bytes);
    r->local = MAP_FAILED;
}

void probe_free(probe_run *r)
{
    for (int k = 0; k < SWEEP_COUNT; k++)
        kcal_sweep_free(&r->sw[k]);
    for (int k = 0; k < 3; k++)
        kcal_sweep_free(&r->wsw[k]);
    release_buffers(r);
    kcal_raw_free(&r->raw);
    kcal_topo_free(r->topo);
    r->topo = NULL;
}

void probe_say_setup(const probe_run *r)
{
    const kcal_topo_info *ti = &r->ti;
    int C = r->pl->max_readers;
    char rdesc[64] = "?", tdesc[64] = "?";
    int reader_core = ti->cores > 1 ? ti->cores - 1 : 0;
    /* The reader (this process) and the target on different cores. */
    if (kcal_topo_bind_core(r->topo, reader_core, rdesc, sizeof rdesc) < 0)
        kcal_cli_warn(CMD, "could not bind the reader to a core");
    kcal_topo_core_desc(r->topo, 0, tdesc, sizeof tdesc);
    const probe_plan *pl = r->pl;
    if (pl->pool_capped && !r->o->hot)
        kcal_cli_warn(CMD, "cold-copy buffers %zu MiB each, capped (twice "
                      "the %lu MiB of %s would be more): if the cache "
                      "really is that large, beta reads low",
                      pl->pool_bytes >> 20, pl->cold_cache.bytes >> 20,
                      pl->cold_cache.source);
    if (r->o->launch.quiet)
        return;
    fprintf(stderr, "kcal probe: %s, %d cores, %d socket(s), %d NUMA "
            "node(s), LLC %lu KiB, page %ld bytes\n", ti->cpu, ti->cores,
            ti->sockets, ti->numa, ti->llc >> 10, r->page);
    fprintf(stderr, "kcal probe: reader on %s, target on %s%s\n", rdesc,
            tdesc, ti->cores < 2 ? " (one core: they share it)" : "");
    if (C < 4)
        fprintf(stderr, "kcal probe: contention is measured for c = 1..%d "
                "readers only; gamma(c) beyond c = %d is extrapolated from "
                "the fit\n", C, C);
    if (C > ti->cores)
        fprintf(stderr, "kcal probe: --max-readers %d > %d cores: readers "
                "share cores, so gamma is not a pure contention "
                "measurement\n", C, ti->cores);
}

/* The target and our own buffer, pre-faulted: the probe times locking
 * and pinning, not page faults. 0 or -1 with r->err. */
static int setup_buffers(probe_run *r)
{
    const probe_plan *pl = r->pl;
    if (kcal_target_start(&r->main_t, pl->target_bytes, r->topo, 0, r->err,
                          sizeof r->err) < 0)
        return -1;
    r->local_bytes = pl->local_bytes;
    r->local = mmap(NULL, r->local_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r->local == MAP_FAILED) {
        kcal_set_err(r->err, sizeof r->err, "mmap of %zu bytes: %s",
                     r->local_bytes, strerror(errno));
        return -1;
    }
    madvise(r->local, r->local_bytes, MADV_NOHUGEPAGE);
    memset(r->local, 1, r->local_bytes); /* pre-fault */

    kcal_cma_setup *cs = &r->cs;
    memset(cs, 0, sizeof *cs);
    cs->pid = r->main_t.pid;
    cs->remote = r->main_t.base;
    cs->remote_bytes = r->main_t.bytes;
    cs->local = r->local;
    cs->local_bytes = r->local_bytes;
    cs->page = (size_t)r->page;
    cs->warmup = pl->warmup;
    cs->min_sample = pl->min_sample;
    cs->meter = &r->meter;
    const char *flat = getenv("KCAL_PROBE_SIMULATE_FLAT_T3");
    cs->simulate_flat_t3 = flat && *flat && strcmp(flat, "0");
    return 0;
}

/* issue 9, writes: T2, T3(N) and T4(N) with process_vm_writev, on a
 * coarser list of N than the reads, in the same passes (so a write and a
 * read of one N see the same machine). T4 rotates out of cache as β's
 * does, in cache with --hot. 0 or -1 with r->err. */
static int write_sweeps_init(probe_run *r)
{
    const probe_plan *pl = r->pl;
    static const long one = 1;
    size_t el = sizeof r->err;
    if (kcal_sweep_init(&r->wsw[0], &r->cs, KCAL_CALL_STARTUP_WRITE, 0,
                        KCAL_PHASE_STARTUP_WRITE, KCAL_PATTERN_NONE, &one, 1,
                        r->err, el) < 0 ||
        kcal_sweep_init(&r->wsw[1], &r->cs, KCAL_CALL_LOCK_WRITE, 0,
                        KCAL_PHASE_LOCK_WRITE, KCAL_PATTERN_ONE_BYTE_LOCAL,
                        pl->w_pages, pl->n_w_pages, r->err, el) < 0 ||
        kcal_sweep_init(&r->wsw[2], &r->cs, KCAL_CALL_COPY_WRITE, !r->o->hot,
                        KCAL_PHASE_COPY_WRITE,
                        r->o->hot ? KCAL_PATTERN_HOT : KCAL_PATTERN_COLD,
                        pl->w_pages, pl->n_w_pages, r->err, el) < 0)
        return -1;
    return 0;
}

static int write_sweeps_pass(probe_run *r)
{
    for (int k = 0; k < 3; k++)
        if (r->wsw[k].n && kcal_sweep_pass(&r->wsw[k], &r->cs, 1, &r->raw,
                                           r->err, sizeof r->err) < 0)
            return -1;
    return 0;
}

/* issue 9, the cache knee: copies over working sets from 64 KiB up (in
 * the buffers setup_buffers made large enough), in KCAL_KNEE_SLICES
 * slices over the run (knee.h), the first before the T4 sweeps, so the
 * measured knee, not hwloc's cache size, sizes the cold rotation. The
 * later slices measure over the spans the first had (the rotation's are
 * smaller). 0 or -1 with r->err. */
static int run_knee(probe_run *r, int slice)
{
    const probe_plan *pl = r->pl;
    int per = (pl->ws_passes + KCAL_KNEE_SLICES - 1) / KCAL_KNEE_SLICES;
    int first = slice * per;
    int passes = pl->ws_passes - first < per ? pl->ws_passes - first : per;
    if (passes <= 0)
        return 0;
    kcal_knee_setup ks = {.cs = &r->cs, .ws_pages = pl->ws, .n_ws = pl->n_ws,
                          .passes = passes, .first_pass = first};
    if (slice == 0) {
        r->knee_remote = r->cs.remote_bytes;
        r->knee_local = r->cs.local_bytes;
    } else {
        size_t rem = r->cs.remote_bytes, loc = r->cs.local_bytes;
        r->cs.remote_bytes = r->knee_remote;
        r->cs.local_bytes = r->knee_local;
        int rc = kcal_knee_measure(&ks, &r->raw, r->err, sizeof r->err);
        r->cs.remote_bytes = rem;
        r->cs.local_bytes = loc;
        return rc;
    }
    if (kcal_knee_measure(&ks, &r->raw, r->err, sizeof r->err) < 0)
        return -1;
    double knee, se;
    if (kcal_calibrate_knee(&r->raw, (double)r->page, &knee, &se) < 0)
        return 0; /* no knee found: the rotation stays hwloc-sized */
    kcal_cold_cache cc = kcal_bandwidth_cold_cache_knee(&r->ti, knee);
    size_t pool = kcal_bandwidth_pool_bytes(cc.bytes, NULL);
    if (pool < r->cs.remote_bytes)
        r->cs.remote_bytes = pool;
    if (pool < r->cs.local_bytes)
        r->cs.local_bytes = pool;
    if (!r->o->launch.quiet)
        fprintf(stderr, "%skcal probe: cache knee measured at %.0f MiB "
                "(hwloc reports a %lu MiB last-level cache); cold copies "
                "rotate over %zu MiB\n", r->pr.tty ? "\r\033[K" : "",
                knee / (1 << 20), r->ti.llc >> 20, r->cs.remote_bytes >> 20);
    return 0;
}

/* One target per reader, on the reader's core: the concurrent copies'
 * own_* patterns and contention's own. release_buffers stops them.
 * 0 or -1 with r->err. */
static int start_own_targets(probe_run *r)
{
    const probe_plan *pl = r->pl;
    int C = pl->max_readers;
    r->own = calloc((size_t)C, sizeof *r->own);
    if (!r->own) {
        kcal_set_err(r->err, sizeof r->err, "out of memory");
        return -1;
    }
    for (r->n_own = 0; r->n_own < C; r->n_own++)
        if (kcal_target_start(&r->own[r->n_own], pl->own_bytes, r->topo,
                              r->n_own, r->err, sizeof r->err) < 0)
            return -1;
    return 0;
}

/* issue 9, concurrent copies: c = 1..C copiers, in cache and out of it,
 * from distinct and the same pages of the main target, and each from its
 * own target. 0 or -1. */
static int run_concurrent(probe_run *r)
{
    const probe_plan *pl = r->pl;
    kcal_concurrent_setup cc = {
        .topo = r->topo, .target = &r->main_t, .own = r->own,
        .page = (size_t)r->page, .pages = pl->cc_pages,
        .cold_bytes = pl->cc_span, .max_copiers = pl->max_readers,
        .counts = pl->counts, .n_counts = pl->n_counts, .reps = pl->cc_reps,
        .warmup = pl->cc_warmup, .passes = pl->cc_passes, .calls_hot = 64,
        .calls_cold = 16, .meter = &r->meter};
    return kcal_concurrent_measure(&cc, &r->raw, r->err, sizeof r->err);
}

/* A phase that needs two cores, on one: said (unless quiet), not failed. */
static void warn_one_core(const probe_run *r, const char *what,
                          const char *keys)
{
    if (!r->o->launch.quiet)
        kcal_cli_warn(CMD, "one core: %s cannot be measured; %s left out",
                      what, keys);
}

/* issue 8, mutual calls: 1-page reads of each one's own passive target
 * against reads of each other, c >= 2 at once (mutual.h). Not on one
 * core. 0 or -1. */
static int run_mutual(probe_run *r)
{
    const probe_plan *pl = r->pl;
    if (!pl->n_mu_counts) {
        warn_one_core(r, "CMA calls whose targets make their own",
                      KCAL_KEY_NAME(cma_mutual));
        return 0;
    }
    kcal_mutual_setup ms = {
        .topo = r->topo, .own = r->own, .page = (size_t)r->page,
        .max_workers = pl->max_readers, .counts = pl->mu_counts,
        .n_counts = pl->n_mu_counts, .reps = pl->mu_reps, .warmup = 2,
        .passes = pl->mu_passes, .calls = 64, .meter = &r->meter};
    return kcal_mutual_measure(&ms, &r->raw, r->err, sizeof r->err);
}

/* issue 9, lines another core just wrote: the main target (core 0)
 * rewrites the ranges the reader (on the last core, say_setup) then
 * reads. Not on one core, where the writer's core is the reader's own.
 * 0 or -1 with r->err. */
static int run_dirty(probe_run *r)
{
    const probe_plan *pl = r->pl;
    if (!pl->n_d_sizes) {
        warn_one_core(r, "reading lines another core just wrote",
                      "dirty_beta and dirty_bytes");
        return 0;
    }
    kcal_dirty_setup ds = {
        .target = &r->main_t, .local = r->local,
        .local_bytes = r->local_bytes, .page = (size_t)r->page,
        .sizes = pl->d_sizes, .n_sizes = pl->n_d_sizes,
        .passes = pl->d_passes, .meter = &r->meter};
    if (kcal_dirty_measure(&ds, &r->raw, r->err, sizeof r->err) < 0)
        return -1;
    r->cs.retaken += ds.retaken;
    return 0;
}

_Static_assert(KCAL_PASS_SLICES == 5, "main runs run_pass at five moments");
_Static_assert(KCAL_KNEE_SLICES == 3, "main runs run_knee at three moments");

/* Chunks passed between cores, slice `slice` of KCAL_PASS_SLICES: the
 * peer on core 0, the probe on the last (say_setup). Not on one core
 * (said once). 0 or -1 with r->err. */
static int run_pass(probe_run *r, int slice)
{
    const probe_plan *pl = r->pl;
    if (!pl->n_pass_sizes) {
        char keys[128];
        snprintf(keys, sizeof keys, "%s, %s, %s, %s and %s",
                 KCAL_KEY_NAME(pass_a), KCAL_KEY_NAME(pass_b),
                 KCAL_KEY_NAME(pass_next), KCAL_KEY_NAME(pass_mutual),
                 KCAL_KEY_NAME(pass_spread));
        if (slice == 0)
            warn_one_core(r, "passing chunks between cores", keys);
        return 0;
    }
    kcal_pass_setup ps = {
        .topo = r->topo, .peer_core = 0, .sizes = pl->pass_sizes,
        .n_sizes = pl->n_pass_sizes, .passes = pl->pass_passes,
        .slice = slice, .meter = &r->meter};
    if (kcal_pass_measure(&ps, &r->raw, r->err, sizeof r->err) < 0)
        return -1;
    r->cs.retaken += ps.retaken;
    return 0;
}

/* T1..T4: calibrate every sweep, then run them pass by pass, so T3 and T4
 * (cold and hot) of each N see the same machine. 0 or -1 with r->err. */
static int run_sweeps(probe_run *r)
{
    const probe_plan *pl = r->pl;
    kcal_cma_setup *cs = &r->cs;
    kcal_sweep *sw = r->sw;
    static const long one = 1;
    int hot = r->o->hot;
    size_t el = sizeof r->err;
    if (kcal_sweep_init(&sw[SWEEP_SYSCALL], cs, KCAL_CALL_SYSCALL, 0,
                        KCAL_PHASE_SYSCALL, KCAL_PATTERN_NONE, &one, 1,
                        r->err, el) < 0 ||
        kcal_sweep_init(&sw[SWEEP_STARTUP], cs, KCAL_CALL_STARTUP, 0,
                        KCAL_PHASE_STARTUP, KCAL_PATTERN_NONE, &one, 1,
                        r->err, el) < 0 ||
        kcal_sweep_init(&sw[SWEEP_LOCK], cs, KCAL_CALL_LOCK, 0,
                        KCAL_PHASE_LOCK, KCAL_PATTERN_ONE_BYTE_LOCAL,
                        pl->pages, pl->n_pages, r->err, el) < 0 ||
        kcal_bandwidth_sweep_init(&sw[SWEEP_COPY], cs, pl->pages,
                                  pl->n_pages, !hot, r->err, el) < 0 ||
        (!hot && kcal_bandwidth_sweep_init(&sw[SWEEP_COPY_HOT], cs,
                                           pl->pages, pl->n_pages, 0,
                                           r->err, el) < 0))
        return -1;
    if (write_sweeps_init(r) < 0)
        return -1;
    for (int pass = 0; pass < pl->passes; pass++) {
        for (int k = 0; k < SWEEP_PASSES; k++)
            if (sw[k].n &&
                kcal_sweep_pass(&sw[k], cs, 1, &r->raw, r->err, el) < 0)
                return -1;
        if (write_sweeps_pass(r) < 0)
            return -1;
    }
    return 0;
}

/* model.md: detect a kernel on which the 1-byte T3 does not grow with N,
 * and measure T3 with the paper's liovcnt = 0 call instead. Records the
 * method trusted in the raw metadata. 0, or -1 with r->err. */
static int choose_lock_method(probe_run *r)
{
    const probe_plan *pl = r->pl;
    const char *method = KCAL_PATTERN_ONE_BYTE_LOCAL;
    if (kcal_calibrate_lock_grows(&r->raw, method) == 0) {
        kcal_cli_warn(CMD, "T3 (1-byte local iovec, N-page remote) does not "
                      "grow with N on this kernel; falling back to the "
                      "paper's liovcnt = 0 method");
        kcal_sweep *w = &r->sw[SWEEP_LOCK_LIOV0];
        r->meter.total += (double)pl->n_pages * pl->passes;
        if (kcal_sweep_init(w, &r->cs, KCAL_CALL_LOCK_LIOV0, 0,
                            KCAL_PHASE_LOCK, KCAL_PATTERN_LIOVCNT_ZERO,
                            pl->pages, pl->n_pages, r->err,
                            sizeof r->err) < 0)
            return -1;
        for (int pass = 0; pass < pl->passes; pass++)
            if (kcal_sweep_pass(w, &r->cs, 1, &r->raw, r->err,
                                sizeof r->err) < 0)
                return -1;
        method = KCAL_PATTERN_LIOVCNT_ZERO;
        if (kcal_calibrate_lock_grows(&r->raw, method) != 1) {
            kcal_set_err(r->err, sizeof r->err, "T3 does not grow with N "
                         "with the paper's liovcnt = 0 call either: this "
                         "kernel does not let a probe time page pinning, so "
                         "l cannot be measured");
            return -1;
        }
    }
    kcal_raw_set_meta(&r->raw, KCAL_KEY_NAME(cma_method), method);
    return 0;
}

/* Preempted samples are retaken, but other processes also share caches
 * and memory with us, and a host may steal our vCPU: a run on a busy
 * machine reads high. Say so, in the file too. */
static void report_load(probe_run *r, const kcal_load *load)
{
    double others, steal;
    kcal_load_stop(load, &others, &steal);
    long retaken = r->cs.retaken;
    double taken = (double)r->raw.n + (double)retaken;
    double frac = taken > 0 ? retaken / taken : 0;
    if (frac > 0.02 || others > 0.2 || steal > 0.05) {
        char note[200];
        snprintf(note, sizeof note, "%s; busy machine: other processes "
                 "used %.0f %% of the CPU time, %.0f %% stolen by the "
                 "host, %.0f %% of the samples preempted and retaken",
                 r->o->quick ? "quick" : "full", 100 * others, 100 * steal,
                 100 * frac);
        kcal_raw_set_meta(&r->raw, KCAL_KEY_NAME(probe), note);
        kcal_cli_warn(CMD, "the machine was busy while measuring (other "
                      "processes %.0f %% of the CPU time, host steal "
                      "%.0f %%, %.0f %% of the samples preempted and "
                      "retaken): alpha, lock and beta may read high; "
                      "probe again when it is quiet", 100 * others,
                      100 * steal, 100 * frac);
    } else if (retaken && !r->o->launch.quiet) {
        fprintf(stderr, "%skcal probe: %ld samples taken again: the "
                "reader was preempted during them\n",
                r->pr.tty ? "\r\033[K" : "", retaken);
    }
}

/* γ(c): c = 1..C concurrent readers of the main target, and of the
 * readers' own targets (start_own_targets) for the "own" control. Stops
 * every target when done. 0 or -1 with r->err. */
static int run_contention(probe_run *r)
{
    const probe_plan *pl = r->pl;
    int C = pl->max_readers;
    if (!r->o->launch.quiet)
        fprintf(stderr, "%skcal probe: contention readers on cores 0..%d, one "
                "process each\n", r->pr.tty ? "\r\033[K" : "", C - 1);
    kcal_contention_setup ks = {
        .topo = r->topo, .shared = &r->main_t, .own = r->own,
        .page = (size_t)r->page, .pages = pl->c_pages, .max_readers = C,
        .reps = pl->c_reps, .warmup = pl->c_warmup, .passes = pl->c_passes,
        .counts = pl->counts, .n_counts = pl->n_counts, .meter = &r->meter};
    if (kcal_contention_measure(&ks, &r->raw, r->err, sizeof r->err) < 0)
        return -1;
    release_buffers(r);
    return 0;
}

/* T_sm_X through MPI, and in its first launch the reductions' op
 * (reduce.h: MPI_Reduce_local needs MPI): a failure costs the sm_* keys
 * and reduce_beta, not the probe. */
static void run_sm(probe_run *r)
{
    const probe_plan *pl = r->pl;
    if (!pl->n_ps) {
        if (!r->o->no_sm && !r->o->launch.quiet)
            kcal_cli_warn(CMD, "T_sm needs p >= 2 ranks on distinct cores "
                          "(%d core(s), --max-readers %d): not measured, "
                          "sm_* keys left 0, no %s", r->ti.cores,
                          pl->max_readers, KCAL_KEY_NAME(reduce_beta));
        return;
    }
    char helper[4096], rbuf[2048];
    char *rargs[KCAL_REDUCE_MAX_SIZES + 8];
    kcal_sm_setup ss = {
        .mpirun = r->o->launch.mpirun, .mpi = r->o->launch.flavor,
        .helper = NULL, .ps = pl->ps,
        .n_ps = pl->n_ps, .reps = pl->sm_reps, .inner = pl->sm_inner,
        .warmup = pl->sm_warmup, .timeout = 60, .meter = &r->meter,
        .tick_units = pl->sm_units, .first_args = NULL};
    if (kcal_reduce_args(&pl->reduce, rbuf, sizeof rbuf, rargs,
                         (int)(sizeof rargs / sizeof *rargs)) > 0)
        ss.first_args = rargs;
    ss.helper = kcal_sm_find_helper(r->o->launch.flavor, helper, sizeof helper);
    if (!ss.helper)
        kcal_cli_warn(CMD, "kcal-sm-bench not found (%s builds it; or "
                      "set KCAL_SM_BENCH): sm_* keys left 0, no %s",
                      r->o->launch.flavor->make_hint,
                      KCAL_KEY_NAME(reduce_beta));
    else if (kcal_sm_measure(&ss, &r->raw, r->err, sizeof r->err) < 0)
        kcal_cli_warn(CMD, "T_sm: %s; sm_* keys left 0 for p without "
                      "data", r->err);
}

int probe_measure(probe_run *r)
{
    if (setup_buffers(r) < 0)
        return -1;
    kcal_load load;
    kcal_load_start(&load);
    /* The pass slices go between the phases, so they span the run
     * (pass.h: the cost they measure can change within a minute). */
    if (run_pass(r, 0) < 0 || run_knee(r, 0) < 0 || run_sweeps(r) < 0 ||
        choose_lock_method(r) < 0 || run_pass(r, 1) < 0)
        return -1;
    if (run_dirty(r) < 0 || run_knee(r, 1) < 0 || run_pass(r, 2) < 0)
        return -1;
    report_load(r, &load);
    if (start_own_targets(r) < 0 || run_concurrent(r) < 0 ||
        run_mutual(r) < 0 ||
        run_knee(r, 2) < 0 || run_contention(r) < 0 || run_pass(r, 3) < 0)
        return -1;
    run_sm(r);
    if (run_pass(r, 4) < 0)
        return -1;
    release_buffers(r);
    return 0;
}
