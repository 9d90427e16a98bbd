/* probe_plan: what kcal probe measures, and the raw file's metadata (see
 * probe_plan.h). */
#include "cmd/probe_plan.h"
#include "probe/dirty.h"
#include "probe/knee.h"
#include "probe/pass.h"
#include "probe/phases.h"
#include "model/keys.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef KCAL_VERSION
#define KCAL_VERSION "0.1.0"
#endif

/* Lines another core just wrote: N = 16 KiB .. 8 MiB (every other
 * doubling with --quick), read from the main target on core 0 by the
 * reader on the last core; none on one core. Grows the buffers to the
 * largest N (issue 9's knee already makes them larger), adds the work. */
static void plan_dirty(probe_plan *pl, const probe_options *o, const kcal_topo_info *ti,
                       long page, double *work)
{
    pl->n_d_sizes = ti->cores < 2 ? 0
                    : kcal_dirty_size_list((size_t)page, KCAL_DIRTY_MAX_BYTES,
                                           o->quick, pl->d_sizes, MAX_POINTS);
    pl->d_passes = o->quick ? 40 : 100;
    size_t top = pl->n_d_sizes ? (size_t)pl->d_sizes[pl->n_d_sizes - 1] : 0;
    if (pl->target_bytes < top)
        pl->target_bytes = top;
    if (pl->local_bytes < top)
        pl->local_bytes = top;
    *work += 2.0 * (double)pl->n_d_sizes * pl->d_passes;
}

/* Chunks passed between cores (pass.h), as copy_in_out passes them: the
 * probe on the last core, its peer on core 0; none on one core. In
 * KCAL_PASS_SLICES slices over the run (run_pass), 20 passes each (8 with
 * --quick); a sample is a few µs, a slice well under a second. */
static void plan_pass(probe_plan *pl, const probe_options *o, const kcal_topo_info *ti,
                      double *work)
{
    pl->n_pass_sizes = ti->cores < 2 ? 0
                       : kcal_pass_size_list(o->quick, pl->pass_sizes,
                                             MAX_POINTS);
    pl->pass_passes = o->quick ? 8 : 20;
    kcal_pass_setup ps = {.n_sizes = pl->n_pass_sizes,
                          .passes = pl->pass_passes};
    *work += KCAL_PASS_SLICES * kcal_pass_work(&ps);
}

/* issue 9's measurements: the cache knee's working sets up to 4x the
 * cache hwloc reports (at most two buffers of KCAL_BANDWIDTH_POOL_MAX:
 * W/2 in the target and W/2 in ours), concurrent copies, the writes. Grows
 * the buffers so the largest working set fits, and adds the work. */
static void plan_issue9(probe_plan *pl, const probe_options *o, const kcal_topo_info *ti,
                        long page, double *work)
{
    pl->ws_max = kcal_knee_max_bytes(ti->llc, 2 * KCAL_BANDWIDTH_POOL_MAX);
    pl->n_ws = kcal_knee_ws_list((size_t)page, pl->ws_max, pl->ws, MAX_POINTS);
    pl->ws_passes = o->quick ? 12 : 30;
    size_t half = pl->ws_max / 2;
    if (pl->target_bytes < half)
        pl->target_bytes = half;
    if (pl->local_bytes < half)
        pl->local_bytes = half;
    pl->cc_reps = o->quick ? 16 : 40;
    pl->cc_warmup = 2;
    /* δ(c) is a ratio of medians from separate runs per c: the passes
     * alternate the c every few batches, so a slow stretch of a shared
     * host falls on every c alike (docs/probe.md "Concurrent copies":
     * with 2 passes conc_hot read 0-0.38 over seven probes, with 8
     * 0-0.075 over five). */
    pl->cc_passes = o->quick ? 4 : 8;
    /* The cold patterns rotate each copier over 1/C of the main target
     * (distinct_cold) or as much of its own (own_cold). */
    pl->cc_pages = 64;
    size_t len = (size_t)pl->cc_pages * (size_t)page;
    pl->cc_span = pl->target_bytes / (size_t)pl->max_readers / len * len;
    pl->own_bytes = (size_t)pl->c_pages * (size_t)page;
    if (pl->own_bytes < pl->cc_span)
        pl->own_bytes = pl->cc_span;
    pl->n_w_pages = kcal_phases_page_list(o->quick ? 1 : 2, 1024, pl->w_pages,
                                          MAX_POINTS);
    *work += 2.0 * (double)pl->n_ws * pl->ws_passes;
    for (size_t i = 0; i < pl->n_counts; i++)
        *work += 6.0 * pl->counts[i] *
                 ((pl->cc_reps + pl->cc_passes - 1) / pl->cc_passes) *
                 pl->cc_passes;
    *work += (1.0 + 2.0 * (double)pl->n_w_pages) * pl->passes;
    /* Mutual calls: 64 one-page calls a batch take some 50 µs, so many
     * batches cost little; passes alternate the patterns as for δ(c). */
    pl->mu_reps = o->quick ? 48 : 120;
    pl->mu_passes = o->quick ? 4 : 8;
    pl->n_mu_counts = 0;
    for (size_t i = 0; i < pl->n_counts; i++)
        if (pl->counts[i] >= 2)
            pl->mu_counts[pl->n_mu_counts++] = pl->counts[i];
    for (size_t i = 0; i < pl->n_mu_counts; i++)
        *work += 2.0 * pl->mu_counts[i] *
                 ((pl->mu_reps + pl->mu_passes - 1) / pl->mu_passes) *
                 pl->mu_passes;
}

void probe_plan_make(probe_plan *pl, const probe_options *o, const kcal_topo_info *ti,
                      long page)
{
    memset(pl, 0, sizeof *pl);
    if (o->quick) {
        pl->passes = 120, pl->warmup = 4, pl->per_octave = 3;
        pl->min_sample = 200e-6;
        pl->c_reps = 40, pl->c_warmup = 3, pl->c_passes = 4;
        pl->c_pages = 1024;
        pl->sm_reps = 8, pl->sm_inner = 100, pl->sm_warmup = 50;
    } else {
        pl->passes = 300, pl->warmup = 8, pl->per_octave = 4;
        pl->min_sample = 500e-6;
        /* 10 passes: γ(c), like δ(c), is a ratio of runs per c. */
        pl->c_reps = 150, pl->c_warmup = 5, pl->c_passes = 10;
        pl->c_pages = 1024;
        pl->sm_reps = 24, pl->sm_inner = 200, pl->sm_warmup = 100;
    }
    int C = o->max_readers ? (int)o->max_readers : ti->cores;
    pl->max_readers = C;
    /* γ does not depend on N (the paper's Fig. 5); beyond 64 readers a
     * smaller N keeps the C·N-page target and the C own targets small. */
    if (C > 64)
        pl->c_pages = 256;
    pl->n_pages = kcal_phases_page_list(pl->per_octave, 1024, pl->pages,
                                        MAX_POINTS);
    pl->n_counts = kcal_phases_count_list(1, C, pl->counts, MAX_POINTS);
    /* No oversubscribed T_sm: a rank waiting for a core is not a
     * shared-memory cost. */
    int P = C < ti->cores ? C : ti->cores;
    pl->n_ps = o->no_sm ? 0 : kcal_phases_count_list(2, P, pl->ps, MAX_POINTS);

    pl->cold_cache = kcal_bandwidth_cold_cache(ti);
    pl->pool_bytes = kcal_bandwidth_pool_bytes(pl->cold_cache.bytes,
                                               &pl->pool_capped);
    pl->target_bytes = (size_t)C * (size_t)pl->c_pages * (size_t)page;
    if (pl->target_bytes < pl->pool_bytes)
        pl->target_bytes = pl->pool_bytes;
    pl->local_bytes = o->hot ? 1024 * (size_t)page : pl->pool_bytes;

    /* T1, T2, then T3 and T4 at every N; the default measures T4 twice,
     * cold (beta) and hot (beta_hot). */
    int n_copy = o->hot ? 1 : 2;
    double work = 2.0 * pl->passes + (1.0 + n_copy) * pl->n_pages * pl->passes;
    for (size_t i = 0; i < pl->n_counts; i++)
        work += 3.0 * pl->counts[i] *
                ((pl->c_reps + pl->c_passes - 1) / pl->c_passes) * pl->c_passes;
    plan_issue9(pl, o, ti, page, &work);
    plan_dirty(pl, o, ti, page, &work);
    plan_pass(pl, o, ti, &work);
    kcal_reduce_plan_make(&pl->reduce, ti->l2, ti->llc, o->quick,
                          pl->min_sample);
    pl->sweep_units = work;
    pl->sm_units = pl->n_ps ? 0.4 * work / (double)pl->n_ps : 0;
}

/* A text the machine reports (CPU model, host name, kernel) as a `# meta`
 * value a params file can hold: line breaks, other control characters and
 * '#' (a comment in a params file) become blanks, surrounding blanks go,
 * and nothing left is "unknown" (a VM may report an empty CPU model). */
static void meta_text(kcal_raw *raw, const char *key, const char *value)
{
    char buf[512];
    size_t n = 0;
    for (const char *c = value; *c && n < sizeof buf - 1; c++)
        buf[n++] = (*c == '#' || iscntrl((unsigned char)*c)) ? ' ' : *c;
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    const char *v = buf;
    while (*v == ' ')
        v++;
    kcal_raw_set_meta(raw, key, *v ? v : "unknown");
}

static void meta_num(kcal_raw *raw, const char *key, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    kcal_raw_set_meta(raw, key, buf);
}

void probe_set_meta(kcal_raw *raw, const kcal_topo_info *ti, const probe_options *o,
                     long page, int max_readers)
{
    struct utsname u;
    char host[256] = "unknown", date[64] = "", buf[64];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta_text(raw, KCAL_KEY_NAME(machine), host);
    /* The sm_* and mpi_* keys are the MPI library's: say which. */
    snprintf(buf, sizeof buf, "kcal probe %s%s --mpi %s", KCAL_VERSION,
             o->quick ? " --quick" : "", o->launch.flavor->name);
    kcal_raw_set_meta(raw, KCAL_KEY_NAME(source), buf);
    kcal_raw_set_meta(raw, KCAL_KEY_NAME(probe), o->quick ? "quick" : "full");
    meta_text(raw, KCAL_KEY_NAME(hostname), host);
    kcal_raw_set_meta(raw, KCAL_KEY_NAME(date), date);
    meta_text(raw, KCAL_KEY_NAME(cpu), ti->cpu);
    snprintf(buf, sizeof buf, "%d", ti->cores);
    kcal_raw_set_meta(raw, KCAL_KEY_NAME(cores), buf);
    snprintf(buf, sizeof buf, "%d", ti->sockets);
    kcal_raw_set_meta(raw, KCAL_KEY_NAME(sockets), buf);
    snprintf(buf, sizeof buf, "%d", ti->numa);
    kcal_raw_set_meta(raw, KCAL_KEY_NAME(numa), buf);
    if (uname(&u) == 0)
        meta_text(raw, KCAL_KEY_NAME(kernel), u.release);
    meta_num(raw, KCAL_KEY_NAME(page), (double)page);
    meta_num(raw, KCAL_KEY_NAME(l1d_cache), (double)ti->l1d);
    meta_num(raw, KCAL_KEY_NAME(l2_cache), (double)ti->l2);
    meta_num(raw, KCAL_KEY_NAME(l3_cache), (double)ti->l3);
    meta_num(raw, KCAL_KEY_NAME(max_readers), max_readers);
    kcal_raw_set_meta(raw, KCAL_KEY_NAME(beta_cache),
                      o->hot ? KCAL_PATTERN_HOT : KCAL_PATTERN_COLD);
    kcal_raw_set_meta(raw, KCAL_KEY_NAME(oversubscribed), "no");
}
