/* probe_cmd: `kcal probe` — measure this machine and print its params file.
 *
 * Order: options (a --raw path is checked writable here, exit 2), CMA
 * permission test (exit 3 when forbidden), topology and the measurement
 * plan, buffers, T1/T2, T3(N) (falling back to the paper's liovcnt = 0
 * call on a kernel where the 1-byte read does not pin), T4(N) cold and/or
 * hot, reads of lines another core just wrote (dirty.h), chunks passed
 * between cores as copy_in_out passes them (pass.h), contention
 * with c = 1..C readers, T_sm_X through mpirun; then the
 * same fit as `kcal fit`. The params file is built in memory, read back,
 * and written to stdout only at the very end, so any failure leaves stdout
 * empty. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "probe/bandwidth.h"
#include "fit/calibrate.h"
#include "cmd/cli.h"
#include "probe/cma_check.h"
#include "probe/concurrent.h"
#include "probe/mutual.h"
#include "probe/contention.h"
#include "probe/dirty.h"
#include "probe/pass.h"
#include "common/err.h"
#include "probe/knee.h"
#include "probe/load.h"
#include "common/mpi_flavor.h"
#include "probe/network.h"
#include "probe/phases.h"
#include "fit/raw.h"
#include "probe/sm.h"
#include "probe/target.h"
#include "probe/topo.h"
#include "model/keys.h"

#ifndef KCAL_VERSION
#define KCAL_VERSION "0.1.0"
#endif

static const char *const CMD = "probe";

/* A params key's name (model/keys.def): the raw file's `# meta` entries
 * are the params file's metadata keys. */
#define K(name) kcal_key_name(KCAL_PK_##name)

typedef struct {
    int quiet, quick, hot, no_sm;
    int network, same_node; /* --network (network_cmd.c), --same-node */
    long max_readers; /* 0: the core count */
    const char *mpirun, *raw_path, *params_file;
    const kcal_mpi_flavor *mpi; /* --mpi, $KCAL_MPI, else Open MPI */
} options;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kcal probe [--quick] [--hot] [--max-readers C] [--mpi NAME]\n"
        "                  [--mpirun CMD] [--no-sm] [--raw RAW.csv] [-q] > machine.params\n"
        "       kcal probe --network [--params FILE] [--mpi NAME] [--mpirun CMD]\n"
        "                  [--same-node] [--quick] [-q] > cluster.params\n"
        "\n"
        "Measure the CMA cost model of this machine (alpha, beta, lock, page,\n"
        "gamma_a, gamma_b, sm_*) and print a params file with standard errors.\n"
        "\n"
        "  --quick          coarse calibration (fewer points and repeats)\n"
        "  --hot            beta from in-cache copies only (default: beta out of\n"
        "                   cache, rotating over buffers larger than the last-level\n"
        "                   cache (at most 256 MiB each), and beta_hot in cache,\n"
        "                   for --model full)\n"
        "  --max-readers C  concurrent readers for gamma(c), c = 1..C (default:\n"
        "                   the number of cores)\n"
        "  --mpi NAME       the MPI library whose T_sm, sync_step and hand-off sizes\n"
        "                   (sm_*, mpi_* keys) are measured: openmpi (default;\n"
        "                   $KCAL_MPI) or mpich (kcal-sm-bench of make MPI=mpich)\n"
        "  --mpirun CMD     launcher for the T_sm collectives (default $KCAL_MPIRUN,\n"
        "                   else --mpi's: mpirun.openmpi, mpiexec.mpich); if it\n"
        "                   fails the sm_* keys stay 0\n"
        "  --no-sm          do not launch MPI; the sm_* keys stay 0\n"
        "  --raw FILE       also save every raw sample (kcal fit FILE re-fits it)\n"
        "  -q, --quiet      no progress on stderr\n"
        "  --network        the network between two nodes instead: net_alpha,\n"
        "                   net_beta, net_gap added to the params of --params FILE\n"
        "                   (else $KCAL_PARAMS); --mpirun must put one rank on each\n"
        "                   of two nodes (\"srun -N 2 -n 2\", \"mpirun --map-by node\n"
        "                   -H a,b\"); --same-node measures two ranks of one node,\n"
        "                   for testing only\n"
        "Exit: 0 ok, 1 run-time failure, 2 bad option, 3 CMA forbidden here.\n");
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"quick", no_argument, 0, 'Q'},
        {"hot", no_argument, 0, 'H'},
        {"max-readers", required_argument, 0, 'c'},
        {"mpirun", required_argument, 0, 'm'},
        {"mpi", required_argument, 0, 'M'},
        {"no-sm", no_argument, 0, 'n'},
        {"raw", required_argument, 0, 'r'},
        {"network", no_argument, 0, 'N'},
        {"same-node", no_argument, 0, 'S'},
        {"params", required_argument, 0, 'P'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    const char *mpi = NULL;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'Q': o->quick = 1; break;
        case 'H': o->hot = 1; break;
        case 'n': o->no_sm = 1; break;
        case 'q': o->quiet = 1; break;
        case 'r': o->raw_path = optarg; break;
        case 'M': mpi = optarg; break;
        case 'N': o->network = 1; break;
        case 'S': o->same_node = 1; break;
        case 'P': o->params_file = optarg; break;
        case 'm':
            if (kcal_cli_mpirun_option(CMD, optarg, &o->mpirun) != 0)
                return -1;
            break;
        case 'c':
            if (kcal_cli_int_option(CMD, "--max-readers", optarg, 1, 1024,
                                    "a whole number from 1 to 1024", &o->max_readers) != 0)
                return -1;
            break;
        default:
            return kcal_cli_other_option(CMD, c, argv, usage);
        }
    }
    if (kcal_cli_no_operands(CMD, argc, argv, optind) != 0)
        return -1;
    char ferr[256];
    o->mpi = kcal_mpi_flavor_choose(mpi, ferr, sizeof ferr);
    if (!o->mpi) {
        kcal_cli_error(CMD, "%s", ferr);
        return -1;
    }
    if (!o->network && (o->same_node || o->params_file)) {
        kcal_cli_error(CMD, "%s goes with --network",
                       o->same_node ? "--same-node" : "--params");
        return -1;
    }
    if (o->network && (o->hot || o->no_sm || o->raw_path || o->max_readers)) {
        kcal_cli_error(CMD, "--network measures the network only: %s does "
                       "not apply", o->hot ? "--hot" : o->no_sm ? "--no-sm"
                       : o->raw_path ? "--raw" : "--max-readers");
        return -1;
    }
    /* A bad --raw path now, not after the whole measurement. */
    char err[KCAL_ERRLEN];
    if (o->raw_path &&
        kcal_raw_check_writable(o->raw_path, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "--raw %s", err);
        return -1;
    }
    if (!o->mpirun) {
        const char *env = getenv("KCAL_MPIRUN");
        if (env && *env)
            o->mpirun = env;
    }
    return 0;
}

/* ---- the measurement plan: what to measure, how often, in what buffers */

#define MAX_POINTS 64 /* page counts, reader counts, rank counts */

typedef struct {
    /* T1..T4 sweeps: one sample per point per pass */
    int passes, warmup, per_octave;
    double min_sample;
    long pages[MAX_POINTS]; /* the N of T3(N) and T4(N) */
    size_t n_pages;
    /* contention: c = 1..C readers of c_pages pages each */
    int max_readers; /* C */
    int c_reps, c_warmup, c_passes;
    long c_pages;
    long counts[MAX_POINTS];
    size_t n_counts;
    /* T_sm: p = 2..P ranks, P <= cores (none with --no-sm) */
    int sm_reps, sm_inner, sm_warmup;
    long ps[MAX_POINTS];
    size_t n_ps;
    /* buffers (bytes): the target's (C·N contention pages, and at least
     * the cold rotation pool), and ours (the pool, or one batch of 1024
     * pages with --hot); the pool outgrows cold_cache unless capped */
    kcal_cold_cache cold_cache;
    int pool_capped;
    size_t pool_bytes, target_bytes, local_bytes;
    /* progress, in units of one sample of one sweep point */
    double sweep_units, sm_units; /* sm_units: per mpirun launch */
    /* issue 9: the working sets of the cache knee (pages), its passes; the
     * concurrent copies (counts as for contention; cc_pages per call, each
     * copier's cold rotation span, in the main target and in its own); the
     * writes' page counts (T3 and T4 with process_vm_writev) */
    size_t ws_max;
    long ws[MAX_POINTS];
    size_t n_ws;
    int ws_passes;
    int cc_reps, cc_warmup, cc_passes;
    long cc_pages;
    size_t cc_span;
    /* issue 8, mutual calls: the c >= 2 of counts, reps and passes */
    long mu_counts[MAX_POINTS];
    size_t n_mu_counts;
    int mu_reps, mu_passes;
    /* one target per reader/copier (contention's and the concurrent
     * copies' own patterns): C·N contention pages, and a cold span each */
    size_t own_bytes;
    long w_pages[MAX_POINTS];
    size_t n_w_pages;
    /* lines another core just wrote (dirty.h): the sizes N (bytes; none on
     * one core), samples per point */
    long d_sizes[MAX_POINTS];
    size_t n_d_sizes;
    int d_passes;
    /* chunks passed between cores (pass.h): the chunk sizes (none on one
     * core), samples per point */
    long pass_sizes[MAX_POINTS];
    size_t n_pass_sizes;
    int pass_passes;
} plan;

/* Lines another core just wrote: N = 16 KiB .. 8 MiB (every other
 * doubling with --quick), read from the main target on core 0 by the
 * reader on the last core; none on one core. Grows the buffers to the
 * largest N (issue 9's knee already makes them larger), adds the work. */
static void plan_dirty(plan *pl, const options *o, const kcal_topo_info *ti,
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
static void plan_pass(plan *pl, const options *o, const kcal_topo_info *ti,
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
static void plan_issue9(plan *pl, const options *o, const kcal_topo_info *ti,
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

static void plan_make(plan *pl, const options *o, const kcal_topo_info *ti,
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

static void set_meta(kcal_raw *raw, const kcal_topo_info *ti, const options *o,
                     long page, int max_readers)
{
    struct utsname u;
    char host[256] = "unknown", date[64] = "", buf[64];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta_text(raw, K(machine), host);
    /* The sm_* and mpi_* keys are the MPI library's: say which. */
    snprintf(buf, sizeof buf, "kcal probe %s%s --mpi %s", KCAL_VERSION,
             o->quick ? " --quick" : "", o->mpi->name);
    kcal_raw_set_meta(raw, K(source), buf);
    kcal_raw_set_meta(raw, K(probe), o->quick ? "quick" : "full");
    meta_text(raw, K(hostname), host);
    kcal_raw_set_meta(raw, K(date), date);
    meta_text(raw, K(cpu), ti->cpu);
    snprintf(buf, sizeof buf, "%d", ti->cores);
    kcal_raw_set_meta(raw, K(cores), buf);
    snprintf(buf, sizeof buf, "%d", ti->sockets);
    kcal_raw_set_meta(raw, K(sockets), buf);
    snprintf(buf, sizeof buf, "%d", ti->numa);
    kcal_raw_set_meta(raw, K(numa), buf);
    if (uname(&u) == 0)
        meta_text(raw, K(kernel), u.release);
    meta_num(raw, K(page), (double)page);
    meta_num(raw, K(l1d_cache), (double)ti->l1d);
    meta_num(raw, K(l2_cache), (double)ti->l2);
    meta_num(raw, K(l3_cache), (double)ti->l3);
    meta_num(raw, K(max_readers), max_readers);
    kcal_raw_set_meta(raw, K(beta_cache),
                      o->hot ? KCAL_PATTERN_HOT : KCAL_PATTERN_COLD);
    kcal_raw_set_meta(raw, K(oversubscribed), "no");
}

/* ---- running the phases ------------------------------------------------ */

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
    const options *o;
    const plan *pl;
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

static void probe_free(probe_run *r)
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

/* What the probe is about to do, on stderr (not with -q). */
static void say_setup(const probe_run *r)
{
    const kcal_topo_info *ti = &r->ti;
    int C = r->pl->max_readers;
    char rdesc[64] = "?", tdesc[64] = "?";
    int reader_core = ti->cores > 1 ? ti->cores - 1 : 0;
    /* The reader (this process) and the target on different cores. */
    if (kcal_topo_bind_core(r->topo, reader_core, rdesc, sizeof rdesc) < 0)
        kcal_cli_warn(CMD, "could not bind the reader to a core");
    kcal_topo_core_desc(r->topo, 0, tdesc, sizeof tdesc);
    const plan *pl = r->pl;
    if (pl->pool_capped && !r->o->hot)
        kcal_cli_warn(CMD, "cold-copy buffers %zu MiB each, capped (twice "
                      "the %lu MiB of %s would be more): if the cache "
                      "really is that large, beta reads low",
                      pl->pool_bytes >> 20, pl->cold_cache.bytes >> 20,
                      pl->cold_cache.source);
    if (r->o->quiet)
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
    const plan *pl = r->pl;
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
    const plan *pl = r->pl;
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
    const plan *pl = r->pl;
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
    if (!r->o->quiet)
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
    const plan *pl = r->pl;
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
    const plan *pl = r->pl;
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
    if (!r->o->quiet)
        kcal_cli_warn(CMD, "one core: %s cannot be measured; %s left out",
                      what, keys);
}

/* issue 8, mutual calls: 1-page reads of each one's own passive target
 * against reads of each other, c >= 2 at once (mutual.h). Not on one
 * core. 0 or -1. */
static int run_mutual(probe_run *r)
{
    const plan *pl = r->pl;
    if (!pl->n_mu_counts) {
        warn_one_core(r, "CMA calls whose targets make their own",
                      K(cma_mutual));
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
    const plan *pl = r->pl;
    if (!pl->n_d_sizes) {
        char keys[96];
        snprintf(keys, sizeof keys, "%s and %s", K(dirty_beta), K(dirty_bytes));
        warn_one_core(r, "reading lines another core just wrote", keys);
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
    const plan *pl = r->pl;
    if (!pl->n_pass_sizes) {
        if (slice == 0) {
            char keys[96];
            snprintf(keys, sizeof keys, "%s, %s and %s", K(pass_a),
                     K(pass_b), K(pass_next));
            warn_one_core(r, "passing chunks between cores", keys);
        }
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
    const plan *pl = r->pl;
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
    const plan *pl = r->pl;
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
    kcal_raw_set_meta(&r->raw, K(cma_method), method);
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
        kcal_raw_set_meta(&r->raw, K(probe), note);
        kcal_cli_warn(CMD, "the machine was busy while measuring (other "
                      "processes %.0f %% of the CPU time, host steal "
                      "%.0f %%, %.0f %% of the samples preempted and "
                      "retaken): alpha, lock and beta may read high; "
                      "probe again when it is quiet", 100 * others,
                      100 * steal, 100 * frac);
    } else if (retaken && !r->o->quiet) {
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
    const plan *pl = r->pl;
    int C = pl->max_readers;
    if (!r->o->quiet)
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

/* T_sm_X through MPI: a failure costs the sm_* keys, not the probe. */
static void run_sm(probe_run *r)
{
    const plan *pl = r->pl;
    if (!pl->n_ps) {
        if (!r->o->no_sm && !r->o->quiet)
            kcal_cli_warn(CMD, "T_sm needs p >= 2 ranks on distinct cores "
                          "(%d core(s), --max-readers %d): not measured, "
                          "sm_* keys left 0", r->ti.cores, pl->max_readers);
        return;
    }
    char helper[4096];
    kcal_sm_setup ss = {
        .mpirun = r->o->mpirun, .mpi = r->o->mpi, .helper = NULL, .ps = pl->ps,
        .n_ps = pl->n_ps, .reps = pl->sm_reps, .inner = pl->sm_inner,
        .warmup = pl->sm_warmup, .timeout = 60, .meter = &r->meter,
        .tick_units = pl->sm_units};
    ss.helper = kcal_sm_find_helper(r->o->mpi, helper, sizeof helper);
    if (!ss.helper)
        kcal_cli_warn(CMD, "kcal-sm-bench not found (%s builds it; or "
                      "set KCAL_SM_BENCH): sm_* keys left 0",
                      r->o->mpi->make_hint);
    else if (kcal_sm_measure(&ss, &r->raw, r->err, sizeof r->err) < 0)
        kcal_cli_warn(CMD, "T_sm: %s; sm_* keys left 0 for p without "
                      "data", r->err);
}

/* ---- writing the raw samples and the params file ----------------------- */

/* Save the raw samples (--raw) and fit them; the params file is built in
 * memory (*out, *outlen) and written by the caller. Prints the error line
 * itself; 0 or -1. */
static int fit_and_format(probe_run *r, char **out, size_t *outlen)
{
    const char *raw_path = r->o->raw_path;
    if (raw_path &&
        kcal_raw_save(raw_path, &r->raw, r->err, sizeof r->err) < 0) {
        kcal_cli_error(CMD, "--raw %s", r->err);
        return -1;
    }
    kcal_params params;
    kcal_params_init(&params);
    kcal_calibrate_notes notes;
    size_t clen = 8192;
    char *comment = malloc(clen);
    int rc = -1;
    if (!comment) {
        kcal_cli_error(CMD, "out of memory");
    } else if (kcal_calibrate_params(&r->raw, &params, &notes, comment, clen,
                                     r->err, sizeof r->err) < 0) {
        kcal_cli_error(CMD, "fit: %s", r->err);
    } else {
        if (!r->o->quiet)
            for (int i = 0; i < notes.n; i++)
                kcal_cli_warn(CMD, "%s", notes.text[i]);
        /* Read back before anything reaches stdout: the probe never
         * prints a params file its own reader refuses. */
        if (kcal_params_format(&params, comment, out, outlen, r->err,
                               sizeof r->err) < 0)
            kcal_cli_error(CMD, "fit: %s", r->err);
        else
            rc = 0;
    }
    free(comment);
    kcal_params_free(&params);
    return rc;
}

int kcal_probe_main(int argc, char **argv)
{
    options o;
    int prc = parse_options(argc, argv, &o);
    if (prc)
        return prc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;
    if (o.network) /* no CMA needed: another measurement */
        return kcal_probe_network(o.params_file, o.mpirun, o.mpi, o.same_node,
                                  o.quick, o.quiet);

    char msg[KCAL_ERRLEN];
    int e;
    if (kcal_cma_check(msg, sizeof msg, &e) < 0) {
        kcal_cli_error(CMD, "%s", msg);
        return e == EPERM || e == ENOSYS ? KCAL_EXIT_FORBIDDEN : KCAL_EXIT_FAIL;
    }

    probe_run r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.main_t = (kcal_target){.pid = -1, .ctl_fd = -1};
    r.local = MAP_FAILED;
    kcal_raw_init(&r.raw);
    /* The clock of `done (N s)` starts here: the user waits for the
     * buffers to be faulted in too. */
    kcal_progress_init(&r.pr, CMD, o.quiet);
    r.topo = kcal_topo_load();
    if (!r.topo) {
        kcal_cli_error(CMD, "hwloc could not load this machine's topology");
        return KCAL_EXIT_FAIL;
    }
    kcal_topo_get_info(r.topo, &r.ti);
    r.page = sysconf(_SC_PAGESIZE);
    plan pl;
    plan_make(&pl, &o, &r.ti, r.page);
    r.pl = &pl;
    set_meta(&r.raw, &r.ti, &o, r.page, pl.max_readers);
    say_setup(&r);

    int rc = KCAL_EXIT_FAIL;
    char *out = NULL;
    size_t outlen = 0;
    r.meter = (kcal_meter){&r.pr, 0, pl.sweep_units + pl.sm_units * pl.n_ps};
    kcal_progress_update(&r.pr, "buffers", 0, r.meter.total);
    if (setup_buffers(&r) < 0)
        goto fail;
    kcal_load load;
    kcal_load_start(&load);
    /* The pass slices go between the phases, so they span the run
     * (pass.h: the cost they measure can change within a minute). */
    if (run_pass(&r, 0) < 0 || run_knee(&r, 0) < 0 || run_sweeps(&r) < 0 ||
        choose_lock_method(&r) < 0 || run_pass(&r, 1) < 0)
        goto fail;
    if (run_dirty(&r) < 0 || run_knee(&r, 1) < 0 || run_pass(&r, 2) < 0)
        goto fail;
    report_load(&r, &load);
    if (start_own_targets(&r) < 0 || run_concurrent(&r) < 0 ||
        run_mutual(&r) < 0 ||
        run_knee(&r, 2) < 0 || run_contention(&r) < 0 || run_pass(&r, 3) < 0)
        goto fail;
    run_sm(&r);
    if (run_pass(&r, 4) < 0)
        goto fail;
    release_buffers(&r);
    kcal_progress_update(&r.pr, "fit", r.meter.total, r.meter.total);
    if (fit_and_format(&r, &out, &outlen) < 0)
        goto done;
    kcal_progress_finish(&r.pr, "done");
    if (fwrite(out, 1, outlen, stdout) != outlen || fflush(stdout)) {
        kcal_cli_error(CMD, "writing stdout: %s", strerror(errno));
        goto done;
    }
    rc = KCAL_EXIT_OK;
    goto done;
fail:
    kcal_cli_error(CMD, "%s", r.err);
done:
    free(out);
    probe_free(&r);
    return rc;
}
